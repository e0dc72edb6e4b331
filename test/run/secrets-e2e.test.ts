/**
 * End to end over real HTTP: a run of S4 on the tiny demo world against the
 * scripted OpenAI-compatible server, with an API key in the environment. The key
 * reaches the server (Authorization header) and NOWHERE else: not in records,
 * traces, manifests, the model cache, reports or anything printed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { tinyDemoIndexDir, tinyDemoWorld } from '../_shared/scratch';
import { experimentFromObject } from '../../lib/run/config';
import { runExperiment } from '../../lib/run/runner';
import { loadRun } from '../../lib/run/results';
import { writeRunReport } from '../../lib/report/run-report';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

test('a real-HTTP run never writes the API key anywhere; records are labelled with the endpoint backend', { timeout: 5 * 60_000 }, async () => {
  const secret = `sk-test-${Math.random().toString(36).slice(2)}-SECRET`;
  process.env.KF_E2E_SECRET_KEY = secret;
  const server = await ScriptedServer.start();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-secret-'));
  const printed: string[] = [];
  try {
    server.on({ model: 'synth-m', reply: { text: 'The answer is in [1].\nFINAL ANSWER: Kraenmox' } });
    server.on({ model: 'checker-m', reply: { text: '{"final": "Kraenmox"}' } });
    const world = await tinyDemoWorld();
    const exp = experimentFromObject({
      name: 'secret-e2e',
      seed: 1,
      concurrency: 2,
      benchmark: { name: 'demo', paths: { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') } },
      pipeline: { name: 'S4' },
      index: { dir: tinyDemoIndexDir(), build: 'ensure', embedder: 'fitted' },
      models: {
        defaults: { baseUrl: server.url, model: 'synth-m', apiKeyEnv: 'KF_E2E_SECRET_KEY' },
        stages: { checker: { model: 'checker-m' } },
        cache: { mode: 'read-write', file: path.join(tmp, 'models.sqlite') },
      },
      limits: { maxQuestions: 4 },
    });
    const outcome = await runExperiment({ experiment: exp, resultsDir: path.join(tmp, 'results'), log: (l) => printed.push(l) });
    assert.equal(outcome.status, 'completed');
    const run = loadRun(outcome.dir);
    assert.equal(run.records.length, 4);
    for (const r of run.records) {
      assert.equal(r.backend, 'openai', 'records say which backend answered');
      assert.equal(r.finalAnswer, 'Kraenmox');
      assert.equal(r.usage.calls, 2, 'one synthesizer and one checker call per question');
    }
    writeRunReport([run], { out: path.join(tmp, 'report') });
    // The key reached the server...
    assert.ok(server.requests.length >= 8, `every question called the server (${server.requests.length} requests)`);
    assert.ok(server.requests.every((r) => r.headers.authorization === `Bearer ${secret}`));
    // ...and nowhere else.
    const files = filesUnder(tmp);
    assert.ok(
      files.some((f) => f.endsWith('models.sqlite')),
      'the cache was written',
    );
    for (const f of files) {
      const bytes = fs.readFileSync(f);
      assert.ok(!bytes.includes(Buffer.from(secret)), `the key appears in ${path.relative(tmp, f)}`);
    }
    assert.ok(!printed.join('\n').includes(secret), 'the key appears in printed progress');
  } finally {
    delete process.env.KF_E2E_SECRET_KEY;
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
