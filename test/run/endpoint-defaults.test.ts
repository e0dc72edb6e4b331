/**
 * With an endpoint the model is the default (issue 32, item 3): "fitted" means the embeddings endpoint when one
 * is configured, a model-built index gets its own folder, DualG's rule stages become its model stages where
 * those are routed; offline nothing changes.
 */
import { createModelRouter } from '../../lib/models/router';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { effectiveEmbedder, indexBuildTag } from '../../lib/run/endpoint-defaults';
import { withStageDefaults } from '../../lib/dualg/stage-defaults';
import { mentionLinker, microCandidateSource } from '../../lib/dualg/retriever';
import { experiment, makeQuestions, tmpDir, writeBench } from './helpers';

const files = writeBench(tmpDir('kf-endpoint-defaults-'), makeQuestions(1));
const exp = experiment(files, { index: { dir: '/tmp/ix', build: 'ensure', embedder: 'fitted' } });

test('offline: the fitted encoder, the plain index folder, DualG on its rules', () => {
  assert.equal(effectiveEmbedder(exp.config, {}), 'fitted');
  assert.equal(indexBuildTag(exp.config, {}), '');
  const d = withStageDefaults({}, {});
  assert.deepEqual(d.settings, {});
  assert.deepEqual(d.ruleParts, ['OpenIE triples', 'equivalence edges', 'entity linking', 'image micro facts', 'cross-tier alignment', 'micro candidates']);
});

test('a chat endpoint without embeddings: model-built index folder, fitted encoder, DualG OpenIE and vision by the model', () => {
  const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', KF_MODEL: 'm' };
  assert.equal(effectiveEmbedder(exp.config, env), 'fitted');
  assert.match(indexBuildTag(exp.config, env), /^-model-[0-9a-f]{6}$/);
  const d = withStageDefaults({}, env);
  assert.deepEqual(d.settings, { openie: 'stage', microImages: 'vision' });
  assert.deepEqual(d.ruleParts, ['equivalence edges', 'entity linking', 'cross-tier alignment', 'micro candidates']);
});

test('an embeddings endpoint: the fitted default becomes the endpoint; DualG links and merges names through it; explicit settings win', () => {
  const env = { KF_EMBED_BASE_URL: 'http://127.0.0.1:9/v1', KF_EMBED_MODEL: 'bge' };
  assert.equal(effectiveEmbedder(exp.config, env), 'openai');
  const other = indexBuildTag(exp.config, { ...env, KF_EMBED_MODEL: 'e5' });
  assert.notEqual(indexBuildTag(exp.config, env), other, 'another embedding model is another index folder');
  const d = withStageDefaults({ linking: 'trigrams' }, env);
  assert.deepEqual(d.settings, { linking: 'trigrams', equivalence: 'stage', alignment: 'stage', microCandidates: 'stage' });
  assert.ok(d.ruleParts.includes('entity linking') && !d.ruleParts.includes('equivalence edges'));
});

test("a table-only endpoint (the experiment's [models], nothing in the environment) also moves DualG onto its model stages", () => {
  const models = { stages: { embedding: { baseUrl: 'http://127.0.0.1:9/v1', model: 'bge' }, openie: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } } };
  const d = withStageDefaults({}, {}, models);
  assert.deepEqual(d.settings, { openie: 'stage', equivalence: 'stage', linking: 'stage', alignment: 'stage', microCandidates: 'stage' });
  assert.deepEqual(d.ruleParts, ['image micro facts'], 'only vision, which the table does not route, stays on rules');
  // The retriever's model parts read the same routes: the table's embedding endpoint serves linking and micro candidates.
  assert.ok(mentionLinker('stage', 'dualg', createModelRouter(models, { env: {}, cacheMode: 'off' })), 'linking through the table-routed embedding stage');
  assert.ok(
    microCandidateSource('stage', 'dualg', createModelRouter(models, { env: {}, cacheMode: 'off' })),
    'micro candidates through the table-routed embedding stage',
  );
  assert.throws(
    () => microCandidateSource('stage', 'dualg', createModelRouter({}, { env: {}, cacheMode: 'off' })),
    /no embedding endpoint is configured/,
    'neither table nor environment: refused',
  );
});
