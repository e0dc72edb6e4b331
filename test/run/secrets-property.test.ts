/**
 * Issue 34, D3 and D4: redaction by value, whatever the key's length or the query parameter's name. A property
 * test over real HTTP: for seeded random cases (API key lengths from 1 to 40 characters, query parameter names
 * from the ones a fixed list missed and random ones, random values), a run of S4 against the scripted server
 * that ECHOES the key and the query value back -- in the reply text, in tool-call arguments, in an error body
 * -- and an embeddings call whose error body echoes both, then `kf models`. No canary may appear in any file
 * written (records, traces, manifest, reply cache) or in anything printed:
 *   - the echo markers ("echo-key: <k> ;") nowhere, as bytes, for every length;
 *   - a key or value of 8 characters or more nowhere, as bytes;
 *   - a shorter one nowhere as a token of its own (the redaction's rule for short secrets) in the text
 *     files, the cache's stored replies and the printed output (a 1-letter canary inside an ordinary word, or
 *     a byte of SQLite's binary pages, is not a leak of it).
 * Short canaries are letters (a digit would match every JSON number); long ones letters and digits.
 */
import { OFFLINE_BUILD_STAGES } from './helpers';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { MIN_SECRET_LENGTH } from '../../lib/model-api/redact';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { experimentFromObject } from '../../lib/run/config';
import { runExperiment } from '../../lib/run/runner';
import { loadRun } from '../../lib/run/results';
import { errorMessage } from '../../lib/util/errors';
import { makeRng } from '../../lib/util/rng';
import { kfInProcess } from '../_shared/cli-in-process';
import { nonEmpty } from '../_shared/non-empty';
import { filesUnder, ownScratch, tinyDemoIndexDir, tinyDemoWorld } from '../_shared/scratch';

const NAMES = [
  'subscription-key',
  'x-api-key',
  'client_secret',
  'access_key',
  'auth_token',
  'private_token',
  'pass',
  'secret_key',
  'id_token',
  'refresh_token',
  'ocp-apim-subscription-key',
];
const LENGTHS = [1, 2, 3, 5, 6, 7, 8, 13, 40];
const LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz';
const ALNUM = `${LETTERS}0123456789`;

const bounded = (s: string) => new RegExp(`(?<![A-Za-z0-9])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9])`);

/** Where a canary shows: [] when nowhere. */
function leaksOf(canary: string, markers: string[], tmp: string, printed: string): string[] {
  const out: string[] = [];
  const textFile = (f: string) => /\.(json|jsonl|md|csv|txt|html)$/.test(f);
  for (const f of filesUnder(tmp)) {
    const bytes = fs.readFileSync(f);
    for (const m of markers) if (bytes.includes(Buffer.from(m))) out.push(`${path.relative(tmp, f)}: marker ${m}`);
    if (canary.length >= MIN_SECRET_LENGTH && bytes.includes(Buffer.from(canary))) out.push(`${path.relative(tmp, f)}: raw`);
    if (textFile(f) && bounded(canary).test(bytes.toString('utf8'))) out.push(`${path.relative(tmp, f)}: token`);
    if (/\.sqlite$/.test(f)) {
      const db = new Database(f, { readonly: true });
      try {
        const rows = db.prepare('SELECT reply FROM replies').all() as { reply: string }[];
        if (rows.some((r) => bounded(canary).test(r.reply))) out.push(`${path.relative(tmp, f)}: a stored reply`);
      } finally {
        db.close();
      }
    }
  }
  for (const m of markers) if (printed.includes(m)) out.push(`printed: marker ${m}`);
  if (bounded(canary).test(printed)) out.push('printed: token');
  return out;
}

test(
  'redaction by value: no canary key (any length) or query value (any name) echoed by the server appears in any file or output',
  { timeout: 10 * 60_000 },
  async (t) => {
    const rng = makeRng('issue-34-canaries');
    const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[rng.int(0, alphabet.length - 1)]).join('');
    const world = await tinyDemoWorld();
    const names = [...NAMES, ...Array.from({ length: 3 }, () => `p${pick('abcdefghijkmnpqrstuvwxyz', rng.int(1, 6))}`)];
    const cases = LENGTHS.map((len, i) => ({
      key: pick(len < MIN_SECRET_LENGTH ? LETTERS : ALNUM, len),
      name: names[i % names.length],
      value: pick(ALNUM, 8 + rng.int(0, 12)),
    }));
    // Two more cases: a short query value and the remaining names.
    cases.push({ key: pick(ALNUM, 20), name: names[9], value: pick(LETTERS, 3) }, { key: pick(LETTERS, 4), name: names[10], value: pick(ALNUM, 9) });
    for (const n of names.slice(11)) cases.push({ key: pick(ALNUM, 10), name: n, value: pick(LETTERS, 2 + rng.int(0, 5)) });
    for (const [i, c] of cases.entries()) {
      const server = await ScriptedServer.start();
      const tmp = ownScratch('kf-prop-');
      const printed: string[] = [];
      const envName = `KF_PROP_KEY_${i}`;
      process.env[envName] = c.key;
      const markers = [`echo-key: ${c.key} ;`, `echo-query: ${c.value} ;`];
      try {
        // The server echoes what it was sent: the key from the Authorization header, the value from the query string.
        const echo = (req: { headers: Record<string, string>; query: string }) => {
          const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
          const value = new URLSearchParams(req.query).get(c.name) ?? '';
          return { key, value, text: `echo-key: ${key} ; echo-query: ${value} ; sent ${c.name}=${value} with Bearer ${key} .` };
        };
        let n = 0;
        server.on({
          model: 'synth-m',
          reply: (req) => {
            const e = echo(req);
            // The third question's synthesizer call fails with an error body that echoes both (every attempt).
            if (req.body.messages.some((m: { content: unknown }) => JSON.stringify(m.content).includes(third))) return { status: 500, error: e.text };
            n++;
            return {
              text: `${e.text}\nFINAL ANSWER: Kraenmox`,
              toolCalls: [{ name: 'note', arguments: JSON.stringify({ key: e.key, q: e.value, at: `?${c.name}=${e.value}` }) }],
            };
          },
        });
        server.on({ model: 'checker-m', reply: { text: '{"final": "Kraenmox"}' } });
        server.on({ kind: 'embeddings', reply: (req) => ({ status: 401, error: echo(req).text }) });
        const questions = JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as { question: string }[];
        const third = JSON.stringify(questions[2].question).slice(1, -1);
        const baseUrl = `${server.url}?${c.name}=${encodeURIComponent(c.value)}`;
        const exp = experimentFromObject({
          name: `prop-${i}`,
          seed: 1,
          concurrency: 2,
          benchmark: { name: 'demo', paths: { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') } },
          pipeline: { name: 'S4' },
          index: { dir: tinyDemoIndexDir(), build: 'ensure', embedder: 'fitted' },
          models: {
            defaults: { baseUrl, model: 'synth-m', apiKeyEnv: envName, maxAttempts: 2, backoffBaseMs: 1, backoffMaxMs: 2 },
            // The index is built offline (a run never builds one with model calls on its own).
            stages: { ...OFFLINE_BUILD_STAGES, checker: { model: 'checker-m' } },
            cache: { mode: 'read-write', file: path.join(tmp, 'cache', 'models.sqlite') },
          },
          limits: { maxQuestions: 3, maxErrorShare: 1 },
        });
        const outcome = await runExperiment({ experiment: exp, resultsDir: path.join(tmp, 'results'), log: (l) => printed.push(l) });
        const recs = loadRun(outcome.dir).records;
        assert.equal(recs.length, 3);
        assert.equal(recs.filter((r) => r.error).length, 1, 'the question whose calls failed with an echoing error body');
        assert.ok(n >= 2, 'the echoing replies were received');
        for (const r of nonEmpty(recs.filter((x) => !x.error))) assert.equal(r.finalAnswer, 'Kraenmox');
        // Embeddings: an error body that echoes the key and the query value.
        const router = createModelRouter(
          { defaults: { baseUrl, model: 'synth-m', apiKeyEnv: envName, maxAttempts: 1 }, stages: { embedding: { model: 'emb-m' } } },
          { cacheMode: 'off' },
        );
        await assert.rejects(router.embedder()!.embed(['a text to embed']), (e) => (printed.push(errorMessage(e), String((e as Error).stack)), true));
        await router.close();
        // kf models, with the credentials in the environment.
        const saved = { ...process.env };
        Object.assign(process.env, { OPENAI_BASE_URL: baseUrl, OPENAI_API_KEY: c.key, KF_MODEL: 'synth-m' });
        try {
          for (const argv of [['models'], ['models', '--json']]) {
            const r = await kfInProcess(argv);
            printed.push(r.out, r.err);
          }
        } finally {
          for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
          Object.assign(process.env, saved);
        }
        const all = printed.join('\n');
        // (The name itself may show partly redacted: an earlier case's 1-letter key is still a registered secret.)
        assert.match(all, /\?[^\s=]*=\*\*\*/, `kf models shows ?${c.name}=***`);
        assert.ok(
          server.requests.some((r) => r.headers.authorization === `Bearer ${c.key}`),
          'the key was really sent',
        );
        assert.ok(
          server.requests.some((r) => new URLSearchParams(r.query).get(c.name) === c.value),
          'the query value was really sent',
        );
        for (const canary of [c.key, c.value])
          assert.deepEqual(leaksOf(canary, markers, tmp, all), [], `case ${i} (key of ${c.key.length}, ${c.name}): ${canary}`);
        t.diagnostic(`case ${i}: key of ${c.key.length} chars, ?${c.name}= value of ${c.value.length}: no leak`);
      } finally {
        delete process.env[envName];
        await server.close();
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    }
  },
);
