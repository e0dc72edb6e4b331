/**
 * The chaos suite (issue 19 item 6, issue 34): S4, M5 and DualG (its untrained heuristic
 * scorer, row DG-heuristic: the paper's DG row would need a trained GNN
 * checkpoint, so this suite labels what it runs) over 100 demo questions at
 * concurrency 8, against the fault server of the test tree
 * (fault-server.helper.ts: the scripted OpenAI-compatible server on 127.0.0.1
 * playing a competent model that answers with the gold answer), which injects
 * one fault per question:
 *
 *   transient (the question's first request only, or the first of one role; the harness must recover):
 *     429 with Retry-After 0, HTTP 500, a hang past the timeout, a stream cut mid-body,
 *     an empty synthesizer reply (D5: asked once more), a Locator tool call whose
 *     arguments need repair (D6: repaired, run, counted in the record's `repairs`)
 *   persistent (every request of the question, every attempt, until the endpoint recovers):
 *     HTTP 500, a hang past the timeout, a stream cut mid-body, an HTML page as the body,
 *     empty content, JSON cut at the token limit, a tool call with unparseable arguments,
 *     a synthesizer reply cut inside its FINAL ANSWER line (D2: finish reason length)
 *
 * What must hold (precisely):
 * - every question ends as an answer or a classified error (model_output /
 *   transport / timeout), and records.jsonl has one whole JSON line per question;
 * - a question whose faults were all transient ends with the same answer and the
 *   same scores as in the fault-free run;
 * - a question with a persistent (unrecovered) fault is an error of the expected
 *   kind and carries no score at all: no injected fault turns into a score; a cut
 *   reply's error says reason "length" and the summary counts it (D2);
 * - a run cut short (abortSignal) and resumed asks the server only about the
 *   questions it had not recorded, and ends with 100 records;
 * - D1: the chaos run writes a reply cache; once the endpoint recovers,
 *   --retry-errors asks the server again about every failed question (no
 *   refused reply is replayed from the cache) and about no other, and the run
 *   ends with 0 errors and the fault-free answers.
 * Timeouts and backoffs are small; every request loop is bounded by maxAttempts
 * (4: a transient fault spends one, the rest absorb a slow reply on a loaded machine).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { runExperiment } from '../../lib/run/runner';
import { loadRun, outcomeLine, summarizeRun } from '../../lib/run/results';
import type { RunRecord } from '../../lib/run/records';
import { ownScratch } from '../_shared/scratch';
import { DEMO_QUESTIONS as N, demoExperiment, demoWorld100, STAGE_MODELS } from './demo-model.helper';
import { faultScript, type Fault } from './fault-server.helper';

const TIMEOUT_MS = 1000;
const HANG_MS = 3 * TIMEOUT_MS;

type ChaosFault =
  'none' | 't429' | 't500' | 'thang' | 'tcut' | 'tempty' | 'repairargs' | 'p500' | 'phang' | 'pcut' | 'html' | 'empty' | 'truncated' | 'badargs' | 'cutfinal';
const FAULTS: ChaosFault[] = [
  'none',
  't429',
  't500',
  'thang',
  'tcut',
  'tempty',
  'repairargs',
  'p500',
  'phang',
  'pcut',
  'html',
  'empty',
  'truncated',
  'badargs',
  'cutfinal',
];
const TRANSIENT = new Set<ChaosFault>(['none', 't429', 't500', 'thang', 'tcut', 'tempty', 'repairargs']);
/** The error kind a persistent fault must end as. */
const EXPECTED_KIND: Partial<Record<ChaosFault, string>> = {
  p500: 'transport',
  phang: 'timeout',
  pcut: 'transport',
  html: 'transport',
  empty: 'model_output',
  truncated: 'model_output',
  badargs: 'model_output',
  cutfinal: 'model_output',
};

/** Each chaos fault as the fault server's plan (kind, transient or persistent, which role). */
const PLAN: Record<Exclude<ChaosFault, 'none'>, Fault> = {
  t429: { kind: 't429', mode: 'transient' },
  t500: { kind: 'http500', mode: 'transient' },
  thang: { kind: 'hang', mode: 'transient' },
  tcut: { kind: 'cutBody', mode: 'transient' },
  tempty: { kind: 'empty', mode: 'transient', role: STAGE_MODELS.synth },
  repairargs: { kind: 'repairArgs', mode: 'transient', role: STAGE_MODELS.locator },
  p500: { kind: 'http500', mode: 'persistent' },
  phang: { kind: 'hang', mode: 'persistent' },
  pcut: { kind: 'cutBody', mode: 'persistent' },
  html: { kind: 'html', mode: 'persistent' },
  empty: { kind: 'empty', mode: 'persistent' },
  truncated: { kind: 'truncated', mode: 'persistent' },
  badargs: { kind: 'badArgs', mode: 'persistent' },
  cutfinal: { kind: 'cutFinal', mode: 'persistent', role: STAGE_MODELS.synth },
};

function experiment(server: ScriptedServer, pipeline: string, worldDir: string, cacheFile?: string) {
  return demoExperiment({
    name: `chaos-${pipeline}`,
    pipeline,
    worldDir,
    endpoint: { baseUrl: server.url, timeoutMs: TIMEOUT_MS, maxAttempts: 4, backoffBaseMs: 5, backoffMaxMs: 20 },
    limits: { maxErrorShare: 1, maxErrors: N },
    ...(cacheFile ? { cacheFile } : {}),
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
    const plansOf = (i: number): Fault[] => (faultOf(i) === 'none' ? [] : [PLAN[faultOf(i) as Exclude<ChaosFault, 'none'>]]);
    const server = await ScriptedServer.start();
    const tmp = ownScratch('kf-chaos-');
    try {
      const exp = experiment(server, pipeline, world.dir);
      // The chaos run keeps a reply cache (D1: a refused reply must never come back from it).
      const cached = experiment(server, pipeline, world.dir, path.join(tmp, 'models.sqlite'));
      // 1. The fault-free reference.
      const clean = faultScript(questions, () => [], { hangMs: HANG_MS });
      server.on({ reply: (r) => clean.reply(r) });
      const ref = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'clean', log: () => undefined });
      assert.equal(ref.status, 'completed');
      const refById = new Map(loadRun(ref.dir).records.map((r) => [r.id, r]));
      assert.equal(refById.size, N);
      for (const r of refById.values()) assert.equal(r.error, null, `fault-free ${r.id}: ${JSON.stringify(r.error)}`);

      // 2. The chaos run, cut short after a third of the questions were asked about, then resumed.
      server.reset();
      const chaos = faultScript(questions, plansOf, { hangMs: HANG_MS });
      server.on({ reply: (r) => chaos.reply(r) });
      const abort = new AbortController();
      const watch = setInterval(() => {
        if (chaos.asked.size >= N / 3) abort.abort(new Error('cut short by the chaos test'));
      }, 5);
      const cut = await runExperiment({ experiment: cached, resultsDir: tmp, runId: 'chaos', abortSignal: abort.signal, log: () => undefined });
      clearInterval(watch);
      assert.notEqual(cut.status, 'completed', 'the first part was cut short');
      const before = readRecords(cut.dir);
      assert.ok(before.length > 0 && before.length < N, `cut after ${before.length} records`);
      const recordedBefore = new Set(before.map((r) => r.id));

      server.reset();
      server.on({ reply: (r) => chaos.reply(r) });
      chaos.asked.clear();
      const resumed = await runExperiment({ experiment: cached, resultsDir: tmp, runId: 'chaos', log: () => undefined });
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
      const byKind = (k: string) => Object.entries(kinds).reduce((n, [f, c]) => n + (EXPECTED_KIND[f as ChaosFault] === k ? c : 0), 0);
      const s = summarizeRun(loadRun(resumed.dir));
      const refusedRef = summarizeRun(loadRun(ref.dir)).refused;
      assert.equal(s.answered, N - failed, 'answered (refusals included) = every question without an error');
      assert.ok(s.refused <= refusedRef, 'no fault became a refusal');
      // D2: a reply cut by the token limit is an error with reason "length", counted apart in the summary.
      const cutFaults = records.filter((r) => ['truncated', 'cutfinal'].includes(faultOf(index.get(r.id)!)));
      for (const r of cutFaults) assert.equal(r.error?.reason, 'length', `${r.id} (${faultOf(index.get(r.id)!)}): ${JSON.stringify(r.error)}`);
      assert.equal(s.cutReplies, cutFaults.length, 'the summary counts the cut replies');
      // D6: repaired tool arguments are counted in the record and the summary (the Locator of M5 calls tools).
      const repaired = records.filter((r) => faultOf(index.get(r.id)!) === 'repairargs');
      if (pipeline === 'M5') for (const r of repaired) assert.ok((r.counters.repairs ?? 0) >= 1, `${r.id}: repaired arguments counted`);
      if (pipeline === 'M5') assert.ok(s.repairs >= repaired.length, `${s.repairs} repairs in the summary`);
      const notes = [s.cutReplies ? `${s.cutReplies} cut by the token limit (not scored)` : '', s.repairs ? `${s.repairs} repaired tool argument(s) used` : ''];
      const noted = notes.filter(Boolean).join(', ');
      assert.equal(
        outcomeLine(s),
        `${s.answered} answered, ${s.refused} refused, ${failed} failed (model output ${byKind('model_output')}, transport ${byKind('transport')}, timeout ${byKind('timeout')})${noted ? `; ${noted}` : ''}`,
      );
      t.diagnostic(
        `${pipeline}: cut after ${before.length} records, resumed ${resumed.recordedNow}; ${outcomeLine(s)}; persistent faults ${JSON.stringify(kinds)}`,
      );
      assert.equal(resumed.counts.errors, failed, 'the manifest counts every failed question');
      assert.equal(resumed.counts.errorsByKind?.other, 0, 'no fault ended unclassified');

      // 4. D1: the endpoint recovers; --retry-errors asks the server again about every failed question and no
      // other (a refused reply replayed from the cache would leave its question unasked), and ends with 0 errors.
      chaos.recover();
      chaos.asked.clear();
      const retried = await runExperiment({ experiment: cached, resultsDir: tmp, runId: 'chaos', retryErrors: true, log: () => undefined });
      assert.equal(retried.status, 'completed');
      assert.equal(retried.counts.errors, 0, 'the retry ends with 0 errors');
      assert.equal(retried.recordedNow, failed, 'only the failed questions were answered again');
      const failedIds = records.filter((r) => r.error).map((r) => r.id);
      assert.deepEqual([...chaos.asked].sort(), [...failedIds].sort(), 'the server was asked again about every failed question, and no other');
      for (const r of loadRun(retried.dir).records)
        assert.equal(r.finalAnswer, refById.get(r.id)!.finalAnswer, `${r.id}: the fault-free answer after the retry`);
      t.diagnostic(
        `${pipeline}: --retry-errors after recovery: ${retried.recordedNow} answered again, ${chaos.asked.size} asked, ${retried.counts.errors} errors`,
      );
    } finally {
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
}
