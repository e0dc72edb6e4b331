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
import { filesUnder, tinyDemoIndexDir, tinyDemoWorld } from '../_shared/scratch';
import { experimentFromObject } from '../../lib/run/config';
import { runExperiment } from '../../lib/run/runner';
import { listRuns, loadRun } from '../../lib/run/results';
import { kfInProcess } from '../_shared/cli-in-process';
import { errorMessage, isKfError } from '../../lib/util/errors';
import { writeRunReport } from '../../lib/report/run-report';
import { OFFLINE_BUILD_STAGES } from './helpers';

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
        stages: { ...OFFLINE_BUILD_STAGES, checker: { model: 'checker-m' } },
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

/** Every file under `dir` that contains one of `secrets` (as bytes). */
function leaks(dir: string, secrets: string[]): string[] {
  return filesUnder(dir).filter((f) => {
    const bytes = fs.readFileSync(f);
    return secrets.some((s) => bytes.includes(Buffer.from(s)));
  });
}

test(
  'a canary key echoed by the model and URL credentials (userinfo, ?token=) appear nowhere under results/, the cache or CLI output',
  { timeout: 5 * 60_000 },
  async () => {
    const tag = Math.random().toString(36).slice(2);
    const key = `sk-canary-${tag}-KEY`;
    const pass = `canary-pass-${tag}`;
    const token = `canary-token-${tag}`;
    const canaries = [key, pass, token];
    process.env.KF_E2E_CANARY_KEY = key;
    const server = await ScriptedServer.start();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-canary-'));
    const printed: string[] = [];
    try {
      // The model echoes the key it was sent (a reply that quotes the Authorization header).
      server.on({
        model: 'synth-m',
        reply: (req) => ({ text: `You sent ${req.headers.authorization}.\nFINAL ANSWER: Kraenmox` }),
      });
      server.on({ model: 'checker-m', reply: { text: '{"final": "Kraenmox"}' } });
      const world = await tinyDemoWorld();
      const experimentOn = (baseUrl: string, name: string, cacheFile = 'models.sqlite') =>
        experimentFromObject({
          name,
          seed: 1,
          concurrency: 2,
          benchmark: { name: 'demo', paths: { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') } },
          pipeline: { name: 'S4' },
          index: { dir: tinyDemoIndexDir(), build: 'ensure', embedder: 'fitted' },
          models: {
            defaults: { baseUrl, model: 'synth-m', apiKeyEnv: 'KF_E2E_CANARY_KEY', maxAttempts: 2, backoffBaseMs: 1, backoffMaxMs: 2 },
            stages: { ...OFFLINE_BUILD_STAGES, checker: { model: 'checker-m' } },
            cache: { mode: 'read-write', file: path.join(tmp, 'cache', cacheFile) },
          },
          limits: { maxQuestions: 3, maxErrorShare: 1 },
        });
      const results = path.join(tmp, 'results');
      const echoed = await runExperiment({ experiment: await experimentOn(server.url, 'canary-echo'), resultsDir: results, log: (l) => printed.push(l) });
      const recs = loadRun(echoed.dir).records;
      assert.equal(recs.length, 3);
      for (const r of recs) {
        assert.equal(r.finalAnswer, 'Kraenmox');
        assert.match(r.prediction ?? '', /You sent Bearer \[REDACTED\]\./, 'the echoed key is stored redacted');
      }
      // A second run answered from the cache: the cached reply was stored redacted, so it stays redacted.
      const again = await runExperiment({ experiment: await experimentOn(server.url, 'canary-echo-2'), resultsDir: results, log: (l) => printed.push(l) });
      assert.ok(
        loadRun(again.dir).records.every((r) => r.usage.cacheHits === 2 && /\[REDACTED\]/.test(r.prediction ?? '')),
        'answered from the cache',
      );

      // Credentials in the base URL. A user:password part is refused when the config loads (fetch cannot send it),
      // with the URL printed redacted; a query-string token is used, and however the calls end, nothing leaks.
      const u = new URL(server.url);
      const credUrl = `http://kfuser:${pass}@${u.host}/v1?token=${token}`;
      await assert.rejects(
        (async () => runExperiment({ experiment: await experimentOn(credUrl, 'canary-url'), resultsDir: results, log: (l) => printed.push(l) }))(),
        (e) => {
          printed.push(errorMessage(e), String((e as Error).stack));
          return isKfError(e) && /user:password/.test(e.message) && /\[REDACTED\]@/.test(e.message);
        },
      );
      const tokenUrl = `${server.url}?token=${token}`;
      const tokenRun = await runExperiment({
        experiment: await experimentOn(tokenUrl, 'canary-token', 'token-run.sqlite'),
        resultsDir: results,
        log: (l) => printed.push(l),
      });
      // The token travels as the query of every call, after the API path (not glued before it). Its own cache
      // file, so the calls really reach the server (the cache key ignores the URL).
      assert.equal(tokenRun.counts.errors, 0, 'a base URL with ?token= works');
      assert.ok(
        server.requests.some((r) => r.path.endsWith('/chat/completions') && r.query === `token=${token}`),
        'the query string reached the server on the API path',
      );
      writeRunReport(
        listRuns(results).map((d) => loadRun(d.dir)),
        { out: path.join(tmp, 'report') },
      );
      // The CLI: kf models with the credentials in OPENAI_BASE_URL and the key set.
      const saved = { ...process.env };
      Object.assign(process.env, { OPENAI_BASE_URL: credUrl, OPENAI_API_KEY: key, KF_MODEL: 'synth-m' });
      try {
        for (const argv of [['models'], ['models', '--json'], ['models', '--check']]) {
          const r = await kfInProcess(argv);
          printed.push(r.out, r.err);
        }
      } finally {
        for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
        Object.assign(process.env, saved);
      }
      assert.match(printed.join('\n'), /\[REDACTED\]/, 'kf models printed the base URL, redacted');
      assert.ok(
        server.requests.some((r) => r.headers.authorization === `Bearer ${key}`),
        'the key was really sent',
      );
      assert.deepEqual(leaks(tmp, canaries), [], 'no file under results/, the cache or the report holds a canary');
      for (const c of canaries) {
        const line = printed
          .join('\n')
          .split('\n')
          .find((l) => l.includes(c));
        assert.equal(line, undefined, `the printed output holds ${c}`);
      }
    } finally {
      delete process.env.KF_E2E_CANARY_KEY;
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
);
