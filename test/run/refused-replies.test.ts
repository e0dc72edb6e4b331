/**
 * Issue 34, D1 and D2, over real HTTP (the fault server of the test tree, test/run/fault-server.helper.ts),
 * for S4, M5 and DualG (row DG-heuristic): a reply its stage refuses is never scored, never replayed.
 *
 *   run 1  (the endpoint is faulty)  even questions: the synthesizer's reply is cut inside its FINAL ANSWER
 *          line (finish reason length); questions 1, 5, 9: the checker's JSON reply is cut; questions 3, 7, 11:
 *          the first reply of the locator (M5) or of the pattern parser (DG) is garbage, every time for DG.
 *          No cut reply is scored: each such question is a model_output error, reason "length", no score,
 *          counted in the summary; the finish reason is in the trace.
 *   run 2  (the endpoint recovered) --retry-errors on the same run: it asks the model again for exactly the
 *          failed steps (the refused synthesizer and checker replies; the accepted steps before them are
 *          answered from the cache) and completes with 0 errors.
 *   run 3  (a new run id, the same cache): no rejected reply is replayed: the DualG pattern is asked again
 *          (no rule fallback now), everything else comes from the cache.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatFinalValue } from '../../lib/answer/final-answer';
import { ModelCache } from '../../lib/models/cache';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { runExperiment } from '../../lib/run/runner';
import { listRuns, loadRun, outcomeLine, summarizeRun } from '../../lib/run/results';
import { nonEmpty } from '../_shared/non-empty';
import { ownScratch } from '../_shared/scratch';
import { demoExperiment, demoWorld100, STAGE_MODELS } from './demo-model.helper';
import { faultScript, type Fault } from './fault-server.helper';

const N = 12;

/** The final line a competent model's answer ends with, after the checker (lists as JSON). */
const goldFinal = (a: unknown) => formatFinalValue(Array.isArray(a) ? a.map(String) : String(a));
const TIMEOUT_MS = 5000;

function faultsFor(pipeline: string): (i: number) => Fault[] {
  return (i) => {
    if (i % 2 === 0) return [{ kind: 'cutFinal', mode: 'persistent', role: STAGE_MODELS.synth }];
    if (i % 4 === 1) return [{ kind: 'truncated', mode: 'persistent', role: STAGE_MODELS.checker }];
    if (pipeline === 'M5') return [{ kind: 'garbage', mode: 'transient', role: STAGE_MODELS.locator }];
    if (pipeline === 'DG-heuristic') return [{ kind: 'garbage', mode: 'persistent', role: STAGE_MODELS.pattern }];
    return [];
  };
}

for (const pipeline of ['S4', 'M5', 'DG-heuristic']) {
  test(
    `refused replies (${pipeline}): a cut reply is never scored; --retry-errors asks exactly the failed steps again; no rejected reply is replayed`,
    { timeout: 5 * 60_000 },
    async (t) => {
      const { world, questions } = await demoWorld100();
      const server = await ScriptedServer.start();
      const tmp = ownScratch('kf-refused-');
      try {
        const cacheFile = path.join(tmp, 'models.sqlite');
        const exp = demoExperiment({
          name: `refused-${pipeline}`,
          pipeline,
          // DualG's paper generator asks no format checker unless the row does: ask for it, so the checker's cut reply is tested too.
          ...(pipeline === 'DG-heuristic' ? { settings: { checker: true } } : {}),
          worldDir: world.dir,
          endpoint: { baseUrl: server.url, timeoutMs: TIMEOUT_MS, maxAttempts: 2, backoffBaseMs: 1, backoffMaxMs: 2 },
          limits: { maxErrorShare: 1, maxErrors: N, maxQuestions: N },
          cacheFile,
        });
        const faults = faultsFor(pipeline);
        const script = faultScript(questions, faults);
        server.on({ reply: (r) => script.reply(r) });

        // Run 1: the faulty endpoint.
        const first = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'r', log: () => undefined });
        const recs = loadRun(first.dir).records;
        assert.equal(recs.length, N);
        const index = new Map(questions.map((q, i) => [q.id, i]));
        const cut = recs.filter((r) => index.get(r.id)! % 2 === 0 || index.get(r.id)! % 4 === 1);
        for (const r of nonEmpty(cut, 'questions with a cut reply')) {
          assert.equal(r.error?.kind, 'model_output', `${r.id}: ${JSON.stringify(r.error)}`);
          assert.equal(r.error?.reason, 'length', `${r.id}: the reason is the finish reason`);
          assert.deepEqual(r.scores, {}, `${r.id}: a cut reply is never scored`);
          assert.equal(r.finalAnswer, null);
          const trace = JSON.parse(fs.readFileSync(path.join(first.dir, r.trace!), 'utf8')) as { events: { kind: string; finishReason?: string }[] };
          assert.ok(
            trace.events.some((e) => e.kind === 'model-call' && e.finishReason === 'length'),
            `${r.id}: the trace records the finish reason of the cut reply`,
          );
        }
        for (const r of nonEmpty(recs.filter((x) => !cut.includes(x)))) {
          assert.equal(r.error, null, `${r.id}: ${JSON.stringify(r.error)}`);
          assert.equal(r.finalAnswer, goldFinal(questions[index.get(r.id)!].answer));
          assert.ok(Object.keys(r.scores).length > 0);
        }
        const s1 = summarizeRun(loadRun(first.dir));
        assert.equal(s1.cutReplies, cut.length, 'the summary counts the cut replies');
        assert.match(outcomeLine(s1), new RegExp(`; ${cut.length} cut by the token limit \\(not scored\\)`));
        assert.equal(first.manifest.counts.cutReplies, cut.length, "the manifest's counts carry the cut replies too");
        assert.equal(listRuns(tmp).find((x) => x.runId === 'r')?.cutReplies, cut.length, 'kf runs lists them beside the errors');
        if (pipeline === 'DG-heuristic') {
          const fell = recs.filter((r) => index.get(r.id)! % 4 === 3);
          for (const r of nonEmpty(fell)) assert.equal(r.counters.patternFallbacks, 1, `${r.id}: the rule parser stood in, recorded`);
        }
        if (pipeline === 'M5')
          for (const r of recs.filter((x) => index.get(x.id)! % 4 === 3)) assert.ok(r.counters.badJson >= 1, `${r.id}: the garbage reply is counted`);
        const cache = ModelCache.open(cacheFile);
        const rejected = cache.stats().rejected;
        cache.close();
        assert.ok(rejected >= cut.length, `${rejected} rejected replies in the cache, ${cut.length} cut`);

        // Run 2: the endpoint recovered; --retry-errors re-asks exactly the failed steps.
        script.recover();
        script.resetCounts();
        script.asked.clear();
        const synthCut = cut.filter((r) => index.get(r.id)! % 2 === 0).length;
        const retry = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'r', retryErrors: true, log: () => undefined });
        assert.equal(retry.status, 'completed');
        assert.equal(retry.counts.errors, 0, 'the run completes with 0 errors');
        assert.equal(retry.recordedNow, cut.length);
        assert.equal(script.count(STAGE_MODELS.synth), synthCut, 'the refused synthesizer replies were asked again, once each');
        assert.equal(script.count(STAGE_MODELS.checker), cut.length, 'the checker was asked for every failed question (refused or never asked)');
        const otherRoles = [...script.requests.values()].flatMap((m) => [...m.keys()]).filter((k) => k !== STAGE_MODELS.synth && k !== STAGE_MODELS.checker);
        assert.deepEqual(otherRoles, [], 'the accepted steps before the failure came from the cache');
        for (const id of script.asked)
          assert.ok(
            cut.some((r) => r.id === id),
            `${id} had not failed, yet the retry asked about it (${JSON.stringify([...(script.requests.get(id) ?? [])])})`,
          );

        // Run 3: a new run, the same cache: no rejected reply is replayed.
        script.resetCounts();
        script.asked.clear();
        const fresh = await runExperiment({ experiment: exp, resultsDir: tmp, runId: 'again', log: () => undefined });
        assert.equal(fresh.counts.errors, 0);
        const again = loadRun(fresh.dir).records;
        for (const r of again) assert.equal(r.finalAnswer, goldFinal(questions[index.get(r.id)!].answer), `${r.id}: no cut answer replayed`);
        if (pipeline === 'DG-heuristic') {
          assert.equal(script.count(STAGE_MODELS.pattern), N / 4, 'the rejected pattern replies were asked again (one per question)');
          for (const r of again) assert.equal(r.counters.patternFallbacks, 0, `${r.id}: the model's pattern now`);
        } else if (pipeline === 'M5') {
          assert.ok(script.count(STAGE_MODELS.locator) >= N / 4, 'the rejected locator replies were asked again');
          for (const id of script.asked) assert.equal(index.get(id)! % 4, 3, `${id}: only the questions with a rejected reply reach the endpoint`);
        } else assert.equal(script.asked.size, 0, 'S4: every accepted reply replayed from the cache, no request');
        t.diagnostic(
          `${pipeline}: run 1 ${outcomeLine(s1)}; cache rejected ${rejected}; retry asked synth ${synthCut}, checker ${cut.length}; new run asked ${script.asked.size} question(s)`,
        );
      } finally {
        await server.close();
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
}
