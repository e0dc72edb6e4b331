/**
 * Broken model output is an error, never a score (issue 19 item 1), over real
 * HTTP against the scripted OpenAI-compatible server on the tiny demo world:
 * every reply empty -> every question fails as model_output, nothing is scored
 * (in particular no empty answer counts as a refusal), the run fails on
 * limits.maxErrorShare, and --retry-errors asks only the failed questions again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { experimentFromObject } from '../../lib/run/config';
import { runExperiment } from '../../lib/run/runner';
import { loadRun, outcomeLine, summarizeRun } from '../../lib/run/results';
import { ownScratch, tinyDemoIndexDir, tinyDemoWorld } from '../_shared/scratch';
import { nonEmpty } from '../_shared/non-empty';
import { OFFLINE_BUILD_STAGES } from './helpers';

/**
 * This file's model id: a request from elsewhere (another test process whose client still retries against a port
 * the OS has since handed to this file's server) names another model and is not counted.
 */
const MODEL = `m-${process.pid}`;
const ownChatRequests = (server: ScriptedServer) => server.chatRequests().filter((r) => r.model === MODEL);

async function experimentOn(server: ScriptedServer, pipeline: string, extra: Record<string, unknown> = {}) {
  const world = await tinyDemoWorld();
  return experimentFromObject({
    name: `model-output-${pipeline}`,
    seed: 1,
    concurrency: 4,
    benchmark: { name: 'demo', paths: { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') } },
    pipeline: { name: pipeline },
    index: { dir: tinyDemoIndexDir(), build: 'ensure', embedder: 'fitted' },
    models: { defaults: { baseUrl: server.url, model: MODEL, maxAttempts: 1 }, stages: OFFLINE_BUILD_STAGES },
    limits: { maxQuestions: 6 },
    ...extra,
  });
}

test(
  'every reply empty: 100% failed as model output, no question scored, the run fails; --retry-errors re-asks only those',
  { timeout: 5 * 60_000 },
  async () => {
    const server = await ScriptedServer.start();
    const tmp = ownScratch('kf-model-output-');
    try {
      server.on({ model: MODEL, reply: { text: '' } });
      const exp = await experimentOn(server, 'S4');
      const results = path.join(tmp, 'results');
      const first = await runExperiment({ experiment: exp, resultsDir: results, runId: 'empty', log: () => undefined });
      assert.equal(first.status, 'max-errors', 'a run whose every question failed is not "completed"');
      assert.match(first.manifest.statusDetail ?? '', /6 of 6 records failed \(100%\), more than limits\.maxErrorShare=0\.2/);
      assert.deepEqual(first.counts.errorsByKind, { model_output: 6, transport: 0, timeout: 0, other: 0 });
      const run = loadRun(first.dir);
      for (const r of nonEmpty(run.records, 'records')) {
        assert.equal(r.error?.kind, 'model_output', r.id);
        assert.equal(r.error?.stage, 'synth');
        assert.equal(r.error?.received, '', 'what was received is recorded (here: nothing)');
        assert.deepEqual(r.scores, {}, 'a failed question carries no score');
        assert.equal(r.finalAnswer, null, 'no empty final answer is stored (it would read as a refusal)');
      }
      const s = summarizeRun(run);
      assert.equal(s.answered, 0);
      assert.equal(s.refused, 0);
      assert.equal(outcomeLine(s), '0 answered, 0 refused, 6 failed (model output 6)');
      for (const [k, v] of Object.entries(s.scores)) assert.equal(v, 0, `${k}: nothing scores`);

      // The endpoint is fixed: only the failed questions are asked again.
      server.reset();
      server.on({
        model: MODEL,
        reply: (req) => (req.body.response_format ? { text: '{"final": "Kraenmox"}' } : { text: 'From [1].\nFINAL ANSWER: Kraenmox' }),
      });
      const again = await runExperiment({ experiment: exp, resultsDir: results, runId: 'empty', retryErrors: true, log: () => undefined });
      assert.equal(again.status, 'completed');
      assert.equal(again.recordedNow, 6);
      assert.equal(ownChatRequests(server).length, 12, 'one synthesizer and one checker call per retried question');
      const after = summarizeRun(loadRun(again.dir));
      assert.equal(outcomeLine(after), '6 answered, 0 refused, 0 failed');
      const third = await runExperiment({ experiment: exp, resultsDir: results, runId: 'empty', retryErrors: true, log: () => undefined });
      assert.equal(third.recordedNow, 0, 'nothing failed, so --retry-errors asks nothing');
    } finally {
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
);

test(
  'a synthesizer reply cut at the token limit and an empty checker value are model_output errors; a locator sending two broken replies stops its loop and M5 fails only where the answer cannot be written',
  { timeout: 5 * 60_000 },
  async () => {
    const server = await ScriptedServer.start();
    const tmp = ownScratch('kf-model-output-');
    try {
      // S4: synthesizer cut off before its final line (finish_reason length) on every question.
      server.on({ model: MODEL, reply: { text: 'The evidence in [1] shows that the answer is', finishReason: 'length' } });
      const cut = await runExperiment({
        experiment: await experimentOn(server, 'S4', { limits: { maxQuestions: 2 } }),
        resultsDir: tmp,
        runId: 'cut',
        log: () => undefined,
      });
      for (const r of nonEmpty(loadRun(cut.dir).records)) {
        assert.equal(r.error?.kind, 'model_output');
        assert.match(r.error!.message, /cut at the token limit/);
        assert.match(r.error!.received!, /the answer is/);
      }
      // S4: an empty FINAL ANSWER value that the checker leaves empty.
      server.reset();
      server.on({ model: MODEL, reply: (req) => (req.body.response_format ? { text: '{"final": ""}' } : { text: 'Nothing found.\nFINAL ANSWER: ' }) });
      const blank = await runExperiment({
        experiment: await experimentOn(server, 'S4', { limits: { maxQuestions: 2 } }),
        resultsDir: tmp,
        runId: 'blank',
        log: () => undefined,
      });
      for (const r of nonEmpty(loadRun(blank.dir).records)) {
        assert.equal(r.error?.kind, 'model_output');
        assert.equal(r.error?.stage, 'checker');
      }
      // M5: the locator answers with unreadable JSON twice in a row.
      server.reset();
      server.on({ model: MODEL, reply: { text: 'nope {' } }); // not JSON and not repairable (a cut object would be repaired)
      const m5 = await runExperiment({
        experiment: await experimentOn(server, 'M5', { limits: { maxQuestions: 2 } }),
        resultsDir: tmp,
        runId: 'm5',
        log: () => undefined,
      });
      // Two malformed replies stop the Locator's loop (the paper's and the runner's rule) and the synthesizer answers
      // from what it has; here it too replies garbage, so the question fails at the checker, never at the locator.
      for (const r of nonEmpty(loadRun(m5.dir).records)) {
        assert.equal(r.error?.kind, 'model_output', JSON.stringify(r.error));
        assert.equal(r.error?.stage, 'checker');
        assert.doesNotMatch(r.error!.message, /two malformed replies/);
      }
    } finally {
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  },
);
