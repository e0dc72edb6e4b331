/**
 * Equivalence edges through the `embedding` stage over REAL HTTP (scripted server): the names of candidate
 * pairs are embedded by the endpoint and joined at the paper's tau = 0.8; a graph asking for the stage without
 * an embedding endpoint is refused (the trigram profile is the labelled offline stand-in, never a silent one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dualgGraphKind, graphSettings } from '../../lib/dualg/artifacts';
import { equivalencePairs } from '../../lib/dualg/graph/equivalence';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { ownScratch } from '../_shared/scratch';
import { SECRET } from '../models/helpers';

/** A vector per name: the abbeys point one way (cosine 0.995 between them), the composer another. */
function vectorOf(name: string): number[] {
  if (name.includes('abbey')) return name.includes('saint') ? [1, 0.1, 0, 0] : [1, 0, 0, 0];
  return [0.5, 0, 1, 0];
}

test('equivalence = "stage": candidate names embedded by the endpoint, joined above tau 0.8', async () => {
  const server = await ScriptedServer.start();
  server.on({ kind: 'embeddings', reply: (req) => ({ embeddings: (req.body.input as string[]).map(vectorOf) }) });
  const router = createModelRouter(
    { defaults: { baseUrl: server.url, model: 'chat' } },
    { env: { OPENAI_API_KEY: SECRET, KF_EMBED_MODEL: 'name-encoder' }, cacheMode: 'off' },
  );
  try {
    const keys = ['maurice abbey', 'saint maurice abbey', 'maurice ravel', 'lisbon'];
    const embedder = router.embedder()!;
    const pairs = await equivalencePairs(keys, 0.8, (names) => embedder.embed(names));
    assert.deepEqual(
      pairs.map((p) => [keys[p.a], keys[p.b]]),
      [['maurice abbey', 'saint maurice abbey']],
    );
    assert.ok(pairs[0].cosine > 0.99);
    const sent = server.requests.filter((r) => r.kind === 'embeddings').flatMap((r) => r.body.input as string[]);
    assert.deepEqual(sent.sort(), ['maurice abbey', 'maurice ravel', 'saint maurice abbey'], 'only names of candidate pairs are embedded');
    assert.equal(server.requests.find((r) => r.kind === 'embeddings')?.body.model, 'name-encoder');
  } finally {
    await router.close();
    await server.close();
  }
});

test('a graph asking for the embedding stage without an endpoint is refused; the setting is part of the artifact key', async () => {
  assert.deepEqual(graphSettings({}), { tau: 0.8, openie: 'rules' }, 'the default graph: trigram stand-in, key unchanged');
  const stage = graphSettings({ equivalence: 'stage' });
  assert.equal(stage.equivalence, 'stage');
  assert.throws(() => graphSettings({ equivalence: 'glove' }), /equivalence must be "trigrams" or "stage"/);
  assert.equal(dualgGraphKind.usesModels?.({ equivalence: 'stage' }), true);
  const router = createModelRouter({ defaults: { model: 'chat' } }, { env: {}, cacheMode: 'off' });
  const dir = ownScratch('kf-dualg-eq-');
  try {
    await assert.rejects(
      dualgGraphKind.build({ args: { indexDir: dir, models: router }, settings: stage, dir, log: () => {} } as unknown as Parameters<
        typeof dualgGraphKind.build
      >[0]),
      (e: Error & { code?: string }) => e.code === 'models_required' && /embedding endpoint/.test(e.message),
    );
  } finally {
    await router.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
