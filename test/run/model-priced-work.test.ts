/**
 * No model-priced work nobody asked for (issue 32, item 2), over real HTTP (the scripted
 * OpenAI-compatible server, the endpoint in the environment as in the README's recipe):
 * a run refuses to build its index with model calls, `kf prepare` builds it (estimate first),
 * the run then makes no index-building call; a closed-book configuration opens no index; a
 * wrong key fails the build at the first call with one clear error, nothing half-offline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { runExperiment } from '../../lib/run/runner';
import { prepareExperiment } from '../../lib/run/prepare';
import { registerPipeline } from '../../lib/run/registry';
import { estimateBuild, confirmEstimate } from '../../lib/index/build-estimate';
import { KfError } from '../../lib/util/errors';
import { experiment, fakePipeline, fakeRouter, makeQuestions, registerFake, tmpDir, writeBench } from './helpers';
import { withEnv } from '../_shared/env';

const quiet = () => undefined;
const ENV = { OPENAI_API_KEY: 'sk-test', KF_MODEL: 'answer-m', KF_EXTRACTION_MODEL: 'extract-m', KF_RELATIONS_MODEL: 'rel-m', KF_MAX_ATTEMPTS: '1' };

function world() {
  const dir = tmpDir('kf-priced-');
  const files = writeBench(dir, makeQuestions(3));
  for (const d of ['d0', 'd1', 'd2'])
    fs.writeFileSync(path.join(files.corpus, `${d}.md`), `# ${d}\n\nThe city of ${d}-ville had 4000 inhabitants in 2015. Its mayor is Ada ${d}.\n`);
  const indexDir = path.join(dir, 'index');
  const exp = experiment(files, { index: { dir: indexDir, build: 'ensure', embedder: 'hash' } });
  return { dir, files, indexDir, exp, results: path.join(dir, 'results') };
}

const indexCalls = (s: ScriptedServer) => s.requests.filter((r) => r.model === 'extract-m' || r.model === 'rel-m');

test('a run never builds its index with model calls; kf prepare does (estimate first), then the run makes none', async () => {
  registerFake('fake');
  const w = world();
  const server = await ScriptedServer.start();
  try {
    server.on({ model: 'extract-m', reply: { text: '{"points": []}' } });
    server.on({ reply: { text: 'FINAL ANSWER: answer 1' } });
    await withEnv({ ...ENV, OPENAI_BASE_URL: server.url }, async () => {
      await assert.rejects(
        runExperiment({ experiment: w.exp, resultsDir: w.results, log: quiet }),
        (e: unknown) =>
          e instanceof KfError && e.code === 'index_build_needs_models' && /extraction: openai:extract-m/.test(e.message) && /kf prepare/.test(e.hint),
      );
      assert.equal(server.requests.length, 0, 'the refused run called no model');

      const lines: string[] = [];
      const err = console.error;
      console.error = (l: string) => void lines.push(String(l));
      try {
        await prepareExperiment(w.exp, { log: quiet });
      } finally {
        console.error = err;
      }
      assert.match(lines.join('\n'), /estimate: about \d+ model calls/, 'the estimate is printed before the build');
      const built = indexCalls(server).length;
      assert.ok(built > 0, 'prepare built the index with the extraction model');

      const out = await runExperiment({ experiment: w.exp, resultsDir: w.results, log: quiet });
      assert.equal(out.status, 'completed');
      assert.equal(indexCalls(server).length, built, 'the run made no index-building call');
      assert.equal(out.manifest.index?.built, false);
    });
  } finally {
    await server.close();
  }
});

test('a closed-book configuration opens no index (and builds none)', async () => {
  const w = world();
  registerPipeline('fake-closed', () => ({ ...fakePipeline({ name: 'fake-closed' }), needsIndex: false }), {
    family: 'test',
    replace: true,
    description: 'closed book',
  });
  const exp = experiment(w.files, { pipeline: { name: 'fake-closed' }, index: { dir: w.indexDir, build: 'ensure', embedder: 'hash' } });
  const out = await runExperiment({ experiment: exp, resultsDir: w.results, log: quiet, router: fakeRouter() });
  assert.equal(out.status, 'completed');
  assert.equal(fs.existsSync(w.indexDir), false, 'no index folder was made');
  assert.equal(out.manifest.index, undefined);
});

test('a wrong key fails the build at the first model call with one clear error; no index is written', async () => {
  const w = world();
  const server = await ScriptedServer.start();
  try {
    server.on({ reply: { status: 401, error: 'invalid api key' } });
    await withEnv({ ...ENV, OPENAI_BASE_URL: server.url }, async () => {
      await assert.rejects(
        prepareExperiment(w.exp, { log: quiet }),
        (e: unknown) => e instanceof KfError && e.code === 'model_call_failed' && /401/.test(e.message) && /OPENAI_API_KEY/.test(e.hint),
      );
    });
    assert.ok(server.requests.length >= 1 && server.requests.length <= 4, `stopped at the first calls (${server.requests.length} made)`);
    const current = path.join(w.indexDir, 'CURRENT');
    assert.equal(fs.existsSync(current), false, 'nothing was built half-offline');
  } finally {
    await server.close();
  }
});

test('a large estimate asks for --yes; a priced model shows dollars', () => {
  const passages = Array.from({ length: 80 }, (_, i) => ({ id: `p${i}`, title: `t${i}`, text: 'x'.repeat(2000) }));
  const models = { forStage: (stage: string) => ({ id: `${stage}-m`, backend: 'openai' as const, chat: async () => ({}) as never }) };
  const e = estimateBuild({ passages, models }, { 'extraction-m': { promptPer1M: 1, completionPer1M: 2 } });
  const ex = e.stages.find((s) => s.stage === 'extraction')!;
  assert.equal(ex.calls, 80);
  assert.ok(ex.costUsd! > 0);
  assert.throws(
    () => confirmEstimate(e, { yes: false, log: quiet, command: 'kf prepare x' }),
    (err: unknown) => err instanceof KfError && err.code === 'confirm_cost' && /--yes/.test(err.hint),
  );
  confirmEstimate(e, { yes: true, log: quiet, command: 'kf prepare x' });
});

test('a run with a wrong key stops at the first refused call with one clear error', async () => {
  registerFake('fake');
  const dir = tmpDir('kf-wrong-key-');
  const files = writeBench(dir, makeQuestions(12));
  const server = await ScriptedServer.start();
  try {
    server.on({ reply: { status: 401, error: 'invalid api key' } });
    const out = await withEnv({ ...ENV, OPENAI_BASE_URL: server.url }, () =>
      runExperiment({ experiment: experiment(files), resultsDir: path.join(dir, 'results'), log: quiet }),
    );
    assert.equal(out.status, 'max-errors');
    assert.match(out.manifest.statusDetail ?? '', /refused the setup .*401/);
    assert.ok(out.counts.recorded <= 4, `only the questions in flight were recorded (${out.counts.recorded})`);
    assert.ok(server.requests.length <= 4, `no call after the first refusals (${server.requests.length})`);
  } finally {
    await server.close();
  }
});

test('index.artifact = "auto": kf prepare prints the estimate before a build that calls a model; a run refuses it', async () => {
  registerFake('fake');
  const w = world();
  const exp = experiment(w.files, { index: { artifact: 'auto', build: 'ensure', embedder: 'hash' } });
  const server = await ScriptedServer.start();
  try {
    server.on({ model: 'extract-m', reply: { text: '{"points": []}' } });
    server.on({ reply: { text: 'FINAL ANSWER: answer 1' } });
    await withEnv({ ...ENV, OPENAI_BASE_URL: server.url, KF_ARTIFACTS: path.join(w.dir, 'artifacts') }, async () => {
      await assert.rejects(
        runExperiment({ experiment: exp, resultsDir: w.results, log: quiet }),
        (e: unknown) => e instanceof KfError && e.code === 'index_build_needs_models' && /kp-index artifact/.test(e.message),
      );
      assert.equal(server.requests.length, 0, 'the refused run called no model');
      const lines: string[] = [];
      const err = console.error;
      console.error = (l: string) => void lines.push(String(l));
      try {
        await prepareExperiment(exp, { log: (l) => lines.push(`log: ${l}`) });
      } finally {
        console.error = err;
      }
      const text = lines.join('\n');
      assert.match(text, /estimate: about \d+ model calls/, `the estimate is printed\n${text}`);
      assert.ok(
        text.indexOf('estimate: about') < text.indexOf('log: index: building the kp-index artifact'),
        `the estimate comes before the build starts\n${text}`,
      );
      assert.ok(indexCalls(server).length > 0, 'prepare built the artifact with the extraction model');
    });
  } finally {
    await server.close();
  }
});
