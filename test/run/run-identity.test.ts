/**
 * Run identity (issue 32, item 1): the model of every stage is part of what a run is. Over real HTTP (the
 * scripted OpenAI-compatible server): a model-backed run gets its own default id beside the offline one, a
 * resume with another model or backend is refused naming what differs, and the manifest never says
 * "offline" over model answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { runExperiment } from '../../lib/run/runner';
import { readRecords } from '../../lib/run/records';
import { defaultRunId } from '../../lib/run/run-id';
import { configuredRoutes, identityDiff, runIdentity } from '../../lib/run/run-identity';
import { KfError } from '../../lib/util/errors';
import { experiment, makeQuestions, registerFake, tmpDir, writeBench } from './helpers';
import { nonEmpty } from '../_shared/non-empty';

const quiet = () => undefined;

function setup(n: number) {
  const dir = tmpDir('kf-identity-');
  const files = writeBench(dir, makeQuestions(n));
  return { files, results: path.join(dir, 'results') };
}

/** The fake pipeline's experiment (no models table: the endpoint comes from the environment, as in the README's recipe). */
function exp(files: ReturnType<typeof setup>['files']) {
  return experiment(files);
}

const ENV_KEYS = ['OPENAI_BASE_URL', 'KF_MODEL', 'OPENAI_API_KEY', 'KF_MAX_ATTEMPTS'] as const;

/** Run `fn` with the endpoint in the environment (or none), restoring it after. */
async function withEndpoint<T>(baseUrl: string | undefined, model: string, fn: () => Promise<T> | T): Promise<T> {
  const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  for (const k of ENV_KEYS) delete process.env[k];
  if (baseUrl) Object.assign(process.env, { OPENAI_BASE_URL: baseUrl, KF_MODEL: model, OPENAI_API_KEY: 'sk-test', KF_MAX_ATTEMPTS: '1' });
  try {
    return await fn();
  } finally {
    for (const k of ENV_KEYS)
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  }
}

test('a model-backed run is a new run beside the offline one; a resume with another model or backend is refused', async () => {
  registerFake('fake');
  const { files, results } = setup(4);
  const server = await ScriptedServer.start();
  try {
    server.on({ reply: { text: 'FINAL ANSWER: answer 1' } });
    const e = exp(files);
    const idOffline = await withEndpoint(undefined, '', () => defaultRunId(e, configuredRoutes(e.config)));
    const idA = await withEndpoint(server.url, 'model-a', () => defaultRunId(e, configuredRoutes(e.config)));
    const idB = await withEndpoint(server.url, 'model-b', () => defaultRunId(e, configuredRoutes(e.config)));
    assert.equal(idOffline, defaultRunId(e), 'an all-offline run keeps its plain id (offline records stay as they were)');
    assert.match(idA, /-openai-[0-9a-f]{6}$/);
    assert.notEqual(idA, idB, 'another model is another run');

    const off = await withEndpoint(undefined, '', () => runExperiment({ experiment: e, resultsDir: results, log: quiet }));
    assert.equal(off.runId, idOffline);
    assert.equal(off.manifest.backend, 'offline');
    assert.equal(server.requests.length, 0);

    const a = await withEndpoint(server.url, 'model-a', () => runExperiment({ experiment: e, resultsDir: results, log: quiet }));
    assert.equal(a.runId, idA, 'the runner names a model run as kf run does');
    assert.equal(a.recordedNow, 4, 'nothing of the offline run is reused');
    assert.equal(a.manifest.backend, 'openai');
    assert.equal(a.manifest.identity?.stages.synth, 'openai:model-a');
    const recs = readRecords(path.join(a.dir, 'records.jsonl')).records;
    for (const r of nonEmpty(recs, 'model records')) assert.equal(r.backend, 'openai', `${r.id} was answered by the model`);
    assert.ok(server.requests.filter((r) => r.kind === 'chat').length >= 4);

    // The same run id with another model: refused, naming the stage and both models.
    await withEndpoint(server.url, 'model-b', () =>
      assert.rejects(
        runExperiment({ experiment: e, resultsDir: results, runId: idA, log: quiet }),
        (err: unknown) =>
          err instanceof KfError &&
          err.code === 'run_identity_changed' &&
          /model openai:model-a -> openai:model-b \(stages [a-z, ]*synth/.test(err.message) &&
          /new run/.test(err.hint),
      ),
    );
    // And the offline run resumed with an endpoint: refused too (no model answer lands in an offline run).
    const before = server.requests.length;
    await withEndpoint(server.url, 'model-a', () =>
      assert.rejects(
        runExperiment({ experiment: e, resultsDir: results, runId: idOffline, log: quiet }),
        (err: unknown) =>
          err instanceof KfError && err.code === 'run_identity_changed' && /model offline -> openai:model-a \(stages [a-z, ]*reader/.test(err.message),
      ),
    );
    assert.equal(server.requests.length, before, 'a refused resume calls no model');
    const offRecs = readRecords(path.join(off.dir, 'records.jsonl')).records;
    assert.ok(nonEmpty(offRecs, 'offline records').every((r) => r.backend === 'offline'));
  } finally {
    await server.close();
  }
});

test('identity differences name the prompt pack, the embedder and the index build', () => {
  const { files } = setup(1);
  const e = exp(files);
  const routes = [{ stage: 'synth', backend: 'offline' as const, model: 'offline' }];
  const a = { ...runIdentity(e.config, routes, { name: 'own', sha256: 'a'.repeat(64) }), embedder: 'fitted', index: 'ix#build-000001' };
  const b = { ...runIdentity(e.config, routes, { name: 'knowforge-bench', sha256: 'b'.repeat(64) }), embedder: 'openai:bge', index: 'ix#build-000002' };
  assert.deepEqual(identityDiff(a, b), [
    `prompt pack: own@${'a'.repeat(12)} -> knowforge-bench@${'b'.repeat(12)}`,
    'embedder: fitted -> openai:bge',
    'index build: ix#build-000001 -> ix#build-000002',
  ]);
  assert.deepEqual(identityDiff(a, { ...a }), []);
});
