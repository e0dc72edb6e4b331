/**
 * The chaos suite (issue 19 item 6): S4, M5 and DualG (its untrained heuristic
 * scorer, row DG-heuristic: the paper's DG row would need a trained GNN
 * checkpoint, so this suite labels what it runs) over 100 demo questions at
 * concurrency 8, against the scripted OpenAI-compatible server on 127.0.0.1,
 * which plays a competent model (it answers with the gold answer) and injects
 * one fault per question:
 *
 *   transient (the question's first request only; the retry layer must recover):
 *     429 with Retry-After 0, HTTP 500, a hang past the timeout, a stream cut mid-body
 *   persistent (every request of the question, every attempt):
 *     HTTP 500, a hang past the timeout, a stream cut mid-body, an HTML page as the body,
 *     empty content, JSON cut at the token limit, a tool call with unparseable arguments
 *
 * What must hold (precisely):
 * - every question ends as an answer or a classified error (model_output /
 *   transport / timeout), and records.jsonl has one whole JSON line per question;
 * - a question whose faults were all transient ends with the same answer and the
 *   same scores as in the fault-free run;
 * - a question with a persistent (unrecovered) fault is an error of the expected
 *   kind and carries no score at all: no injected fault turns into a score;
 * - a run cut short (abortSignal) and resumed asks the server only about the
 *   questions it had not recorded, and ends with 100 records.
 * Timeouts and backoffs are small; every request loop is bounded by maxAttempts
 * (4: a transient fault spends one, the rest absorb a slow reply on a loaded machine).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ScriptedServer, type RecordedRequest, type ScriptedReply } from '../../lib/models/testing/scripted-server';
import { runExperiment } from '../../lib/run/runner';
import { loadRun, outcomeLine, summarizeRun } from '../../lib/run/results';
import type { RunRecord } from '../../lib/run/records';
import { ownScratch } from '../_shared/scratch';
import { DEMO_QUESTIONS as N, demoExperiment, demoWorld100, goodReply, questionFinder, type Q } from './demo-model.helper';

const TIMEOUT_MS = 1000;
const HANG_MS = 3 * TIMEOUT_MS;

type Fault = 'none' | 't429' | 't500' | 'thang' | 'tcut' | 'p500' | 'phang' | 'pcut' | 'html' | 'empty' | 'truncated' | 'badargs';
const FAULTS: Fault[] = ['none', 't429', 't500', 'thang', 'tcut', 'p500', 'phang', 'pcut', 'html', 'empty', 'truncated', 'badargs'];
const TRANSIENT = new Set<Fault>(['none', 't429', 't500', 'thang', 'tcut']);
/** The error kind a persistent fault must end as. */
const EXPECTED_KIND: Partial<Record<Fault, string>> = {
  p500: 'transport',
  phang: 'timeout',
  pcut: 'transport',
  html: 'transport',
  empty: 'model_output',
  truncated: 'model_output',
  badargs: 'model_output',
};

function faultReply(f: Fault, good: ScriptedReply): ScriptedReply {
  switch (f) {
    case 't429':
      return { status: 429, headers: { 'retry-after': '0' } };
    case 't500':
    case 'p500':
      return { status: 500, error: 'injected' };
    case 'thang':
    case 'phang':
      return { ...good, delayMs: HANG_MS };
    case 'tcut':
    case 'pcut':
      return { ...good, cutBody: true };
    case 'html':
      return { rawBody: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } };
    case 'empty':
      return { text: '' };
    case 'truncated':
      return { text: (good.text ?? '').slice(0, Math.max(1, Math.floor((good.text ?? '').length / 3))), finishReason: 'length' };
    case 'badargs':
      return { text: '', toolCalls: [{ name: 'search_knowledge', arguments: '{"query": "unterminated' }] };
    default:
      return good;
  }
}

/** The server's behaviour for one run: which question a request is about (its text in the messages), and its fault. */
function chaosScript(questions: Q[], faultOf: (i: number) => Fault) {
  const questionOf = questionFinder(questions);
  const seen = new Map<string, number>();
  const asked = new Set<string>();
  return {
    asked,
    reply(req: RecordedRequest): ScriptedReply {
      const hit = questionOf(req);
      if (!hit) return { status: 400, error: 'the scripted model cannot tell which question this is' };
      asked.add(hit.q.id);
      const n = seen.get(hit.q.id) ?? 0;
      seen.set(hit.q.id, n + 1);
      const f = faultOf(hit.i);
      const good = goodReply(req, hit.q);
      if (TRANSIENT.has(f)) return n === 0 ? faultReply(f, good) : good;
      return faultReply(f, good);
    },
  };
}

function experiment(server: ScriptedServer, pipeline: string, worldDir: string) {
  return demoExperiment({
    name: `chaos-${pipeline}`,
    pipeline,
    worldDir,
    endpoint: { baseUrl: server.url, timeoutMs: TIMEOUT_MS, maxAttempts: 4, backoffBaseMs: 5, backoffMaxMs: 20 },
    limits: { maxErrorShare: 1, maxErrors: N },
  });
}

function readRecords(dir: string): RunRecord[] {
  const lines = fs.readFileSync(path.join(dir, 'records.jsonl'), 'utf8').split('\n');
  assert.equal(lines.pop(), '', 'records.jsonl ends with a newline (no torn last line)');
  return lines.map((l, i) => {
    try {
      return JSON.parse(l) as RunRecord;
    } catch {
      assert.fail(`records.jsonl line ${i + 1} is not whole JSON: ${l.slice(0, 80)}`);
    }
  });
}

for (const pipeline of ['S4', 'M5', 'DG-heuristic']) {
  test(`chaos: ${pipeline} over ${N} demo questions at concurrency 8, one injected fault per question`, { timeout: 10 * 60_000 }, async (t) => {
    const { world, questions } = await demoWorld100();
    const faultOf = (i: number) => FAULTS[i % FAULTS.length];
    const server = await ScriptedServer.start();
    const tmp = ownScratch('kf-chaos-');
    try {
      const exp = await experiment(server, pipeline, world.dir);
      // 1. The fault-free reference.
      const clean = chaosScript(questions, () => 'none');
      server.on({ reply: (r) => clean.reply(r) });
      const ref = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'clean', log: () => undefined });
      assert.equal(ref.status, 'completed');
      const refById = new Map(loadRun(ref.dir).records.map((r) => [r.id, r]));
      assert.equal(refById.size, N);
      for (const r of refById.values()) assert.equal(r.error, null, `fault-free ${r.id}: ${JSON.stringify(r.error)}`);

      // 2. The chaos run, cut short after a third of the questions were asked about, then resumed.
      server.reset();
      const chaos = chaosScript(questions, faultOf);
      server.on({ reply: (r) => chaos.reply(r) });
      const abort = new AbortController();
      const watch = setInterval(() => {
        if (chaos.asked.size >= N / 3) abort.abort(new Error('cut short by the chaos test'));
      }, 5);
      const cut = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'chaos', abortSignal: abort.signal, log: () => undefined });
      clearInterval(watch);
      assert.notEqual(cut.status, 'completed', 'the first part was cut short');
      const before = readRecords(cut.dir);
      assert.ok(before.length > 0 && before.length < N, `cut after ${before.length} records`);
      const recordedBefore = new Set(before.map((r) => r.id));

      server.reset();
      server.on({ reply: (r) => chaos.reply(r) });
      chaos.asked.clear();
      const resumed = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'chaos', log: () => undefined });
      assert.equal(resumed.recordedNow, N - before.length, 'the resume records only what was missing');
      for (const id of recordedBefore) assert.ok(!chaos.asked.has(id), `the resume asked about ${id} again`);

      // 3. The invariants.
      const records = readRecords(resumed.dir);
      assert.equal(records.length, N);
      assert.equal(new Set(records.map((r) => r.id)).size, N, 'one record per question');
      const index = new Map(questions.map((q, i) => [q.id, i]));
      const kinds: Record<string, number> = {};
      for (const r of records) {
        const f = faultOf(index.get(r.id)!);
        const ref = refById.get(r.id)!;
        if (TRANSIENT.has(f)) {
          assert.equal(r.error, null, `${r.id} (${f}, recovered): ${JSON.stringify(r.error)}`);
          assert.equal(r.finalAnswer, ref.finalAnswer, `${r.id} (${f}): same answer as without faults`);
          assert.deepEqual(r.scores, ref.scores, `${r.id} (${f}): same scores as without faults`);
        } else {
          assert.ok(r.error, `${r.id} (${f}) was answered from an injected fault: ${JSON.stringify(r.finalAnswer)}`);
          assert.equal(r.error.kind, EXPECTED_KIND[f], `${r.id} (${f}): ${r.error.message}`);
          assert.deepEqual(r.scores, {}, `${r.id} (${f}): a failed question carries no score`);
          assert.equal(r.finalAnswer, null, `${r.id} (${f}): no answer stored`);
          kinds[f] = (kinds[f] ?? 0) + 1;
        }
      }
      assert.deepEqual(Object.keys(kinds).sort(), Object.keys(EXPECTED_KIND).sort(), 'every persistent fault was injected');
      const failed = records.filter((r) => r.error).length;
      // The summary line counts the failures apart, by kind, and never as refusals.
      const byKind = (k: string) => Object.entries(kinds).reduce((n, [f, c]) => n + (EXPECTED_KIND[f as Fault] === k ? c : 0), 0);
      const s = summarizeRun(loadRun(resumed.dir));
      const refusedRef = summarizeRun(loadRun(ref.dir)).refused;
      assert.equal(s.answered, N - failed, 'answered (refusals included) = every question without an error');
      assert.ok(s.refused <= refusedRef, 'no fault became a refusal');
      assert.equal(
        outcomeLine(s),
        `${s.answered} answered, ${s.refused} refused, ${failed} failed (model output ${byKind('model_output')}, transport ${byKind('transport')}, timeout ${byKind('timeout')})`,
      );
      t.diagnostic(
        `${pipeline}: cut after ${before.length} records, resumed ${resumed.recordedNow}; ${outcomeLine(s)}; persistent faults ${JSON.stringify(kinds)}`,
      );
      assert.equal(resumed.counts.errors, failed, 'the manifest counts every failed question');
      assert.equal(resumed.counts.errorsByKind?.other, 0, 'no fault ended unclassified');
    } finally {
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}
