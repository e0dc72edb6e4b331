import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runExperiment } from '../../lib/run/runner';
import { readRecords } from '../../lib/run/records';
import { readRunManifest } from '../../lib/run/manifest';
import { getPipeline, listPipelines } from '../../lib/run/registry';
import { KfError } from '../../lib/util/errors';
import { gitInfo } from '../../lib/util/git';
import type { Retriever } from '../../lib/index/types';
import { experiment, fakePipeline, fakeRouter, makeQuestions, registerFake, tmpDir, writeBench } from './helpers';
import { nonEmpty } from '../_shared/non-empty';

function setup(n: number) {
  const dir = tmpDir();
  const files = writeBench(dir, makeQuestions(n));
  return { dir, files, results: path.join(dir, 'results') };
}

test('a run writes one record per question, traces and a manifest', async () => {
  const { files, results } = setup(12);
  registerFake('fake');
  const exp = experiment(files, { limits: { maxErrors: 3 } });
  const router = fakeRouter();
  const out = await runExperiment({ experiment: exp, runId: 'r1', resultsDir: results, router });
  assert.equal(out.status, 'completed');
  assert.equal(out.recordedNow, 12);
  const { records, badLines, duplicates } = readRecords(path.join(results, 'r1', 'records.jsonl'));
  assert.equal(badLines, 0);
  assert.deepEqual(duplicates, []);
  assert.deepEqual(
    records.map((r) => r.id).sort(),
    makeQuestions(12).map((q) => q.id),
  );
  const r = records.find((x) => x.id === 'q003')!;
  assert.equal(r.runId, 'r1');
  assert.equal(r.configHash, exp.hash);
  assert.equal(r.pipeline, 'fake');
  assert.equal(r.seed, '7/q003');
  assert.equal(r.question, 'What is item 3?');
  assert.equal(r.gold, 'answer 3');
  assert.equal(r.backend, 'scripted');
  assert.deepEqual(r.models, ['fake-model']);
  assert.ok(r.prediction!.includes('FINAL ANSWER:'));
  // Real scorer: em/f1 agree with the final answer.
  assert.equal(r.scores.em, r.finalAnswer === 'answer 3' ? 1 : 0);
  assert.ok('f1' in r.scores && 'refused' in r.scores);
  // Retrieval metrics from the log (gold doc d3 is the second hit).
  assert.equal(r.retrieval!['R@3'], 1);
  assert.equal(r.retrieval!['R@all'], 1);
  assert.equal(r.retrievalStats!.firstSearchDocs.length, 3);
  // Usage of exactly this question's calls (the model wrapper attributes them).
  assert.equal(r.usage.calls, 1);
  assert.equal(r.usage.promptTokens, 10);
  assert.equal(r.error, null);
  assert.deepEqual(r.buckets.modality, ['text']);
  assert.deepEqual(r.buckets.hops, ['2-hop']);
  assert.equal(typeof r.timings.totalMs, 'number');
  // Trace file holds the pipeline's events and the model call.
  const trace = JSON.parse(fs.readFileSync(path.join(results, 'r1', r.trace!), 'utf8'));
  assert.equal(trace.id, 'q003');
  assert.ok(trace.events.some((e: { kind: string }) => e.kind === 'note'));
  assert.ok(trace.events.some((e: { kind: string; stage?: string }) => e.kind === 'model-call' && e.stage === 'synth'));
  // Manifest.
  const m = readRunManifest(path.join(results, 'r1'))!;
  assert.equal(m.status, 'completed');
  assert.equal(m.runId, 'r1');
  assert.equal(m.configHash, exp.hash);
  assert.equal(m.seed, 7);
  assert.equal(m.config.limits.maxErrors, 3);
  assert.equal(m.backend, 'scripted');
  assert.equal(m.stamp.git.commit, gitInfo().commit);
  assert.deepEqual(
    m.models.map((x) => [x.stage, x.backend, x.model]),
    [
      ['synth', 'scripted', 'fake-model'],
      ['checker', 'scripted', 'fake-model'],
    ],
  );
  assert.deepEqual(m.counts, {
    selected: 12,
    recorded: 12,
    errors: 0,
    errorsByKind: { model_output: 0, transport: 0, timeout: 0, other: 0 },
    remaining: 0,
    outsideSelection: 0,
    cutReplies: 0,
  });
  assert.equal(m.usage.calls, 12);
  assert.equal(m.ledger!.byStage.synth.calls, 12);
  assert.equal(m.sessions.length, 1);
  assert.equal(m.pipeline.name, 'fake');
  assert.equal(m.benchmark.questionsLoaded, 12);
  assert.ok(m.resume.includes('--run-id r1'));
  assert.ok(m.endedAt && m.timing.p50Ms !== null);
  assert.equal(router.closed, false, 'an injected router is not closed by the runner');
  assert.ok(!fs.existsSync(path.join(results, 'r1', '.lock')), 'the lock is released');
});

test('concurrency: at most N questions in flight, and the results do not depend on N', async () => {
  const { files, results } = setup(24);
  let inFlight = 0;
  let peak = 0;
  const opts = {
    delayMs: 15,
    onEnter: () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
    },
    onLeave: () => {
      inFlight--;
    },
  };
  const exp4 = experiment(files, { concurrency: 4 });
  await runExperiment({ experiment: exp4, runId: 'c4', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline(opts) });
  assert.equal(peak, 4);
  peak = 0;
  const exp1 = experiment(files, { concurrency: 1 });
  await runExperiment({ experiment: exp1, runId: 'c1', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline(opts) });
  assert.equal(peak, 1);
  const by = (id: string) => new Map(readRecords(path.join(results, id, 'records.jsonl')).records.map((r) => [r.id, r.finalAnswer]));
  assert.deepEqual([...by('c4').entries()].sort(), [...by('c1').entries()].sort(), 'per-question seeds make answers independent of scheduling');
});

test('failures are recorded and the run goes on; max errors stops it', async () => {
  const { files, results } = setup(20);
  const failIds = new Set(['q002', 'q005']);
  const exp = experiment(files, { concurrency: 2 });
  const out = await runExperiment({ experiment: exp, runId: 'e1', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline({ failIds }) });
  assert.equal(out.status, 'completed');
  const recs = readRecords(path.join(results, 'e1', 'records.jsonl')).records;
  assert.equal(recs.length, 20);
  const bad = recs.filter((r) => r.error);
  assert.deepEqual(bad.map((r) => r.id).sort(), ['q002', 'q005']);
  assert.equal(bad[0].error!.code, 'pipeline_failed');
  assert.match(bad[0].error!.message, /boom on q00[25]/);
  assert.equal(bad[0].prediction, null);
  assert.deepEqual(bad[0].scores, {});
  assert.equal(out.counts.errors, 2);

  const many = new Set(
    makeQuestions(20)
      .map((q) => q.id)
      .filter((id) => id >= 'q004'),
  );
  const exp2 = experiment(files, { concurrency: 1, limits: { maxErrors: 3 } });
  const out2 = await runExperiment({ experiment: exp2, runId: 'e2', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline({ failIds: many }) });
  assert.equal(out2.status, 'max-errors');
  assert.equal(out2.errorsNow, 3);
  assert.equal(out2.counts.recorded, 7, '4 answered, then 3 failures, then stop');
  assert.equal(readRunManifest(path.join(results, 'e2'))!.status, 'max-errors');
});

test('a question over the time limit is recorded as a timeout, others go on', async () => {
  const { files, results } = setup(6);
  const exp = experiment(files, { concurrency: 3, limits: { timeoutMs: 60 } });
  const out = await runExperiment({
    experiment: exp,
    runId: 't1',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline({ hangIds: new Set(['q001']) }),
  });
  const recs = readRecords(path.join(results, 't1', 'records.jsonl')).records;
  assert.equal(out.status, 'completed');
  assert.equal(recs.length, 6);
  const t = recs.find((r) => r.id === 'q001')!;
  assert.equal(t.error!.code, 'timeout');
  assert.match(t.error!.message, /60 ms/);
});

test('resume: a rerun skips recorded ids, drops a cut line, extends a limited run, never duplicates', async () => {
  const { files, results } = setup(15);
  const exp5 = experiment(files, {}, ['limits.maxQuestions=5']);
  const a = await runExperiment({ experiment: exp5, runId: 'res', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline() });
  assert.equal(a.recordedNow, 5);
  const recFile = path.join(results, 'res', 'records.jsonl');
  fs.appendFileSync(recFile, '{"v":1,"id":"q005","runId":"res","conf'); // a crash mid-line
  const exp = experiment(files);
  assert.equal(exp.hash, exp5.hash, 'a limit does not change the config hash');
  const b = await runExperiment({ experiment: exp, runId: 'res', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline() });
  assert.equal(b.resumedWith, 5);
  assert.equal(b.recordedNow, 10);
  assert.equal(b.status, 'completed');
  const { records, badLines, duplicates } = readRecords(recFile);
  assert.equal(badLines, 0, 'the cut line was compacted away');
  assert.deepEqual(duplicates, []);
  assert.equal(records.length, 15);
  const m = readRunManifest(path.join(results, 'res'))!;
  assert.equal(m.sessions.length, 2);
  assert.equal(m.sessions[1].resumedWith, 5);
  assert.equal(m.usage.calls, 15, 'usage sums every session');
  const c = await runExperiment({ experiment: exp, runId: 'res', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline() });
  assert.equal(c.recordedNow, 0);
  assert.equal(readRecords(recFile).records.length, 15);
});

test('resume refuses a changed config, names the change', async () => {
  const { files, results } = setup(3);
  await runExperiment({ experiment: experiment(files), runId: 'cfg', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline() });
  await assert.rejects(
    runExperiment({ experiment: experiment(files, { seed: 8 }), runId: 'cfg', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline() }),
    (e: unknown) => e instanceof KfError && e.code === 'run_config_changed' && /changed: seed/.test(e.message) && /--run-id/.test(e.hint),
  );
});

test('--retry-errors answers failed questions again and replaces their records', async () => {
  const { files, results } = setup(6);
  const exp = experiment(files);
  await runExperiment({ experiment: exp, runId: 'retry', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline({ failIds: new Set(['q001']) }) });
  const out = await runExperiment({ experiment: exp, runId: 'retry', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline(), retryErrors: true });
  assert.equal(out.recordedNow, 1);
  const recs = readRecords(path.join(results, 'retry', 'records.jsonl'));
  assert.equal(recs.records.length, 6);
  assert.deepEqual(recs.duplicates, []);
  assert.equal(recs.records.filter((r) => r.error).length, 0);
});

test('stop signal: in-flight questions finish, the run is interrupted, a rerun completes it', async () => {
  const { files, results } = setup(30);
  const stop = new AbortController();
  let seen = 0;
  const progress = {
    start() {},
    log() {},
    finish() {},
    tick() {
      if (++seen === 5) stop.abort();
    },
  };
  const exp = experiment(files, { concurrency: 2 });
  const a = await runExperiment({
    experiment: exp,
    runId: 'int',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline({ delayMs: 5 }),
    stopSignal: stop.signal,
    progress,
  });
  assert.equal(a.status, 'interrupted');
  assert.ok(a.recordedNow >= 5 && a.recordedNow <= 6, `recorded ${a.recordedNow}`);
  assert.equal(readRunManifest(path.join(results, 'int'))!.status, 'interrupted');
  const b = await runExperiment({ experiment: exp, runId: 'int', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline({ delayMs: 5 }) });
  assert.equal(b.status, 'completed');
  assert.equal(a.recordedNow + b.recordedNow, 30);
});

test('abort signal: in-flight questions are not recorded (they rerun on resume)', async () => {
  const { files, results } = setup(4);
  const abort = new AbortController();
  const exp = experiment(files, { concurrency: 4 });
  setTimeout(() => abort.abort(), 30);
  const a = await runExperiment({
    experiment: exp,
    runId: 'ab',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline({ hangIds: new Set(['q000', 'q001', 'q002', 'q003']) }),
    abortSignal: abort.signal,
  });
  assert.equal(a.status, 'interrupted');
  assert.equal(a.recordedNow, 0);
});

test('offline backend: labelled offline in the manifest and in every record', async () => {
  const { files, results } = setup(4);
  const out = await runExperiment({
    experiment: experiment(files),
    runId: 'off',
    resultsDir: results,
    router: fakeRouter('offline', 'offline'),
    pipeline: fakePipeline(),
  });
  assert.equal(out.manifest.backend, 'offline');
  assert.match(out.manifest.backendNote!, /offline backend: not model results/);
  for (const r of readRecords(path.join(results, 'off', 'records.jsonl')).records) assert.equal(r.backend, 'offline');
});

test('one writer per run: a second process on the same run id is refused; a stale lock is taken over', async () => {
  const { files, results } = setup(2);
  const dir = path.join(results, 'lk');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.lock'), JSON.stringify({ pid: process.ppid, hostname: require('node:os').hostname(), startedAt: 'x' }));
  await assert.rejects(
    runExperiment({ experiment: experiment(files), runId: 'lk', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline() }),
    (e: unknown) => e instanceof KfError && e.code === 'run_locked',
  );
  fs.writeFileSync(path.join(dir, '.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, hostname: require('node:os').hostname(), startedAt: 'x' }));
  const lines: string[] = [];
  const out = await runExperiment({
    experiment: experiment(files),
    runId: 'lk',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline(),
    log: (l) => lines.push(l),
  });
  assert.equal(out.status, 'completed');
  assert.ok(lines.some((l) => /taking over the lock/.test(l)));
});

test('index seam: the injected provider is used per question; index.search settings are forced', async () => {
  const { files, results } = setup(3);
  const seen: { q: string; mode?: string }[] = [];
  const retriever: Retriever = {
    async search(query, o) {
      seen.push({ q: query, mode: o?.mode });
      return {
        query,
        hits: [{ fragmentId: 'd1#0', docId: 'd1', kind: 'text', rank: 1, score: 1, scores: {}, via: 'dense', text: 't', section: [], media: [] }],
        timings: { embedMs: 0, bm25Ms: 0, hnswMs: 0, fusionMs: 0, expansionMs: 0, contextMs: 0, roundMs: 0 },
      };
    },
  };
  const asked: string[] = [];
  const exp = experiment(files, { index: { search: { mode: 'dense' } } });
  await runExperiment({
    experiment: exp,
    runId: 'ix',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline(),
    retrieverFor: async (q) => {
      asked.push(q.id);
      return retriever;
    },
  });
  assert.deepEqual(asked.sort(), ['q000', 'q001', 'q002']);
  assert.equal(seen.length, 3);
  assert.ok(nonEmpty(seen).every((s) => s.mode === 'dense'));
  const recs = readRecords(path.join(results, 'ix', 'records.jsonl')).records;
  assert.ok(nonEmpty(recs).every((r) => r.timings.searches === 1 && r.retrievalStats!.firstSearchDocs[0] === 'd1'));
});

test('registry: fakes register, unknown names get a did-you-mean, families load lazily', () => {
  registerFake('fake-reg');
  assert.equal(getPipeline('fake-reg').name, 'fake-reg');
  assert.ok(listPipelines().some((p) => p.name === 'fake-reg' && p.family === 'test'));
  assert.throws(
    () => getPipeline('fake-rg'),
    (e: unknown) => e instanceof KfError && e.code === 'pipeline_unknown' && /did you mean "fake-reg"/.test(e.hint),
  );
});

test('traces: one traces.jsonl, or none', async () => {
  const { files, results } = setup(3);
  await runExperiment({
    experiment: experiment(files, { output: { traces: 'jsonl' } }),
    runId: 'tj',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline(),
  });
  const recs = readRecords(path.join(results, 'tj', 'records.jsonl')).records;
  assert.deepEqual(recs.map((r) => r.trace).sort(), ['traces.jsonl#q000', 'traces.jsonl#q001', 'traces.jsonl#q002']);
  const lines = fs
    .readFileSync(path.join(results, 'tj', 'traces.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.id).sort(), ['q000', 'q001', 'q002']);
  assert.ok(nonEmpty(lines).every((l) => l.events.some((e: { kind: string }) => e.kind === 'model-call')));
  assert.ok(!fs.existsSync(path.join(results, 'tj', 'traces')));
  await runExperiment({
    experiment: experiment(files, { output: { traces: 'off' } }),
    runId: 'toff',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline(),
  });
  assert.ok(nonEmpty(readRecords(path.join(results, 'toff', 'records.jsonl')).records).every((r) => r.trace === null));
  assert.deepEqual(fs.readdirSync(path.join(results, 'toff')).sort(), ['manifest.json', 'records.jsonl']);
});
