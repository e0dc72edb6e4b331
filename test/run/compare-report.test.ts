import { test } from 'node:test';
import { kfInProcess } from '../_shared/cli-in-process';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runExperiment } from '../../lib/run/runner';
import { compareRuns } from '../../lib/run/compare';
import { writeRunReport } from '../../lib/report/run-report';
import { joinRuns, listRuns, loadRun, metricValues, summarizeByBucket, summarizeRun } from '../../lib/run/results';
import { parseCsv } from '../../lib/report/table';
import { KfError } from '../../lib/util/errors';
import { experiment, fakePipeline, fakeRouter, makeQuestions, tmpDir, writeBench } from './helpers';

/** Four runs over the same 30 questions: A and B differ by seed; C is offline; D covers only 10 questions. */
async function fixture() {
  const dir = tmpDir('kf-cmp-');
  const files = writeBench(dir, makeQuestions(30));
  const results = path.join(dir, 'results');
  const run = (runId: string, extra: Record<string, unknown>, backend: 'scripted' | 'offline' = 'scripted', failIds?: Set<string>) =>
    runExperiment({
      experiment: experiment(files, extra),
      runId,
      resultsDir: results,
      router: fakeRouter(backend, backend === 'offline' ? 'offline' : 'fake-model'),
      pipeline: fakePipeline({ failIds }),
    });
  await run('A', { seed: 7 });
  await run('B', { seed: 8 }, 'scripted', new Set(['q004']));
  await run('C', { seed: 8 }, 'offline');
  await run('D', { seed: 8, limits: { maxQuestions: 10 } });
  const load = (id: string) => loadRun(id, { resultsDir: results });
  return { dir, results, load };
}

let fx: Awaited<ReturnType<typeof fixture>> | undefined;
const getFx = async () => (fx ??= await fixture());

const SHAPE = ['n', 'meanA', 'meanB', 'diff', 'won', 'lost', 'tied', 'signTestP', 'bootstrapCI', 'se'];

test('compare: paired statistics on the intersection, in the documented shape', async () => {
  const { load } = await getFx();
  const a = load('A');
  const b = load('B');
  const r = compareRuns(a, b, { metric: 'f1' });
  assert.deepEqual(Object.keys(r).slice(0, SHAPE.length), SHAPE);
  assert.equal(r.n, 30);
  assert.equal(r.won + r.lost + r.tied, 30);
  assert.ok(r.signTestP > 0 && r.signTestP <= 1);
  assert.ok(r.bootstrapCI[0] <= r.diff && r.diff <= r.bootstrapCI[1]);
  assert.ok(r.se > 0);
  assert.deepEqual(r.warnings, []);
  assert.equal(r.errorsB, 1, 'the failed question of B is counted');
  // Means by hand (B's failed question scores 0).
  const f1 = (run: typeof a) => run.records.map((x) => (x.error ? 0 : x.scores.f1));
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  assert.ok(Math.abs(r.meanA - mean(f1(a))) < 1e-12);
  assert.ok(Math.abs(r.meanB - mean(f1(b))) < 1e-12);
  // Seeded: the same call gives the same interval.
  assert.deepEqual(compareRuns(a, b, { metric: 'f1' }).bootstrapCI, r.bootstrapCI);
  // Failed questions dropped instead of zeroed.
  assert.equal(compareRuns(a, b, { metric: 'f1', errors: 'drop' }).n, 29);
  // A margin turns small differences into ties.
  const m = compareRuns(a, b, { metric: 'f1', margin: 0.99 });
  assert.ok(m.tied >= r.tied);
});

test('compare: only paired questions count (dropped reported); buckets; retrieval metrics; unknown metric', async () => {
  const { load } = await getFx();
  const a = load('A');
  const d = load('D');
  const r = compareRuns(a, d, { metric: 'em', by: 'modality' });
  assert.equal(r.n, 10);
  assert.equal(r.droppedA, 20);
  assert.equal(r.droppedB, 0);
  assert.deepEqual(Object.keys(r.byBucket!), ['image', 'table', 'text']);
  assert.equal(
    Object.values(r.byBucket!).reduce((s, x) => s + x.n, 0),
    10,
  );
  for (const k of SHAPE) assert.ok(k in r.byBucket!.text);
  assert.deepEqual(r.warnings, [], 'same backend, models and benchmark; both runs completed');
  const rec = compareRuns(a, load('B'), { metric: 'R@1' });
  assert.equal(rec.n, 29, 'retrieval metrics exist only for answered questions');
  assert.throws(
    () => compareRuns(a, d, { metric: 'f11' }),
    (e: unknown) => e instanceof KfError && e.code === 'metric_missing' && /did you mean "f1"/.test(e.hint),
  );
});

test('compare: different backends or models give a WARNING, never a silent mix', async () => {
  const { load } = await getFx();
  const r = compareRuns(load('A'), load('C'), { metric: 'f1' });
  assert.ok(
    r.warnings.some((w) => /backends differ: A is scripted, C is offline \(offline results are not model results\)/.test(w)),
    r.warnings.join('\n'),
  );
  assert.ok(r.warnings.some((w) => /model ids differ/.test(w)));
  assert.equal(r.backendB, 'offline');
});

test('results: summaries, joins, buckets', async () => {
  const { load, results } = await getFx();
  const b = load('B');
  const s = summarizeRun(b);
  assert.equal(s.n, 30);
  assert.equal(s.errors, 1);
  assert.deepEqual(s.errorCodes, { pipeline_failed: 1 });
  assert.equal(s.backend, 'scripted');
  assert.deepEqual(s.models, ['fake-model']);
  const f1 = metricValues(b, 'f1');
  assert.equal(f1.values.size, 30);
  assert.ok(Math.abs(s.scores.f1 - [...f1.values.values()].reduce((x, y) => x + y, 0) / 30) < 1e-12, 'summary mean counts failures as 0');
  assert.equal(s.usage.calls, 29);
  assert.ok(s.retrieval['R@8'] !== undefined && s.retrievalN === 29);
  assert.ok(s.counters.reads !== undefined && s.zeroShare.reads !== undefined);
  const byMod = summarizeByBucket(b, 'modality');
  assert.deepEqual(Object.keys(byMod), ['image', 'table', 'text']);
  assert.equal(byMod.text.n + byMod.table.n + byMod.image.n, 30);
  const byPool = summarizeByBucket(b, 'pool');
  assert.deepEqual(Object.keys(byPool).sort(), ['(none)', 'untrimmed']);
  const j = joinRuns([load('A'), b, load('D')], 'f1');
  assert.equal(j.ids.length, 10);
  assert.deepEqual(j.dropped, [20, 20, 0]);
  const listed = listRuns(results)
    .map((r) => r.runId)
    .sort();
  assert.deepEqual(listed, ['A', 'B', 'C', 'D']);
});

test('report: runs / paired / usage / by-bucket tables as CSV + Markdown, backend in the caption', async () => {
  const { load, dir } = await getFx();
  const out = path.join(dir, 'report');
  const res = writeRunReport([load('A'), load('B'), load('C')], { out, by: ['modality'] });
  for (const name of ['runs', 'paired', 'usage', 'by-modality', 'retrieval-by-modality']) {
    assert.ok(fs.existsSync(path.join(out, `${name}.csv`)) && fs.existsSync(path.join(out, `${name}.md`)), name);
  }
  assert.equal(res.backend, 'mixed');
  const md = fs.readFileSync(path.join(out, 'runs.md'), 'utf8');
  assert.match(md, /backend: mixed/);
  assert.match(md, /offline parts are not model results/);
  const rows = parseCsv(fs.readFileSync(path.join(out, 'runs.csv'), 'utf8'));
  assert.deepEqual(
    rows.map((r) => r.run),
    ['A', 'B', 'C'],
  );
  for (const col of ['em', 'f1', 'refused', 'R@1', 'R@3', 'R@8', 'R@all', 'docFound', 'answerVisible', 'callsPerQ', 'p50s', 'vsRef'])
    assert.ok(col in rows[0], col);
  const cmp = compareRuns(load('B'), load('A'), { metric: 'f1' });
  assert.equal(rows[1].vsRef, `${cmp.won}:${cmp.lost}`);
  assert.equal(rows[0].vsRef, 'ref');
  assert.ok(Math.abs(Number(rows[0].f1) - 100 * summarizeRun(load('A')).scores.f1) < 1e-9);
  const paired = parseCsv(fs.readFileSync(path.join(out, 'paired.csv'), 'utf8'));
  assert.equal(paired.length, 2);
  assert.equal(Number(paired[0].won), cmp.won);
  const manifest = JSON.parse(fs.readFileSync(res.manifest, 'utf8'));
  assert.equal(manifest.backend, 'mixed');
  assert.ok(manifest.files.some((f: { path: string }) => f.path === 'runs.csv'));
  // A single offline run: labelled offline.
  const off = writeRunReport([load('C')], { out: path.join(dir, 'report-off') });
  assert.equal(off.backend, 'offline');
  assert.match(fs.readFileSync(path.join(dir, 'report-off', 'runs.md'), 'utf8'), /backend: offline.*\n[\s\S]*offline backend: not model results/);
});

const cli = kfInProcess;

test('kf compare --json prints the statistics object with warnings; kf report and kf runs work', async () => {
  const { results, dir } = await getFx();
  const r = await cli(['compare', 'A', 'C', '--metric', 'f1', '--json', '--results', results]);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.deepEqual(Object.keys(j).slice(0, SHAPE.length), SHAPE);
  assert.equal(j.bootstrapCI.length, 2);
  assert.ok(j.warnings.some((w: string) => /backends differ/.test(w)));
  assert.match(r.err, /^WARNING: backends differ/m);
  const plain = await cli(['compare', 'A', 'D', '--metric', 'f1', '--by', 'hops', '--results', results]);
  assert.equal(plain.code, 0, plain.err);
  assert.match(plain.out, /hops=1-hop/);
  assert.match(plain.err, /20 question\(s\) are in only one run and were dropped/);
  const bad = await cli(['compare', 'A', 'Z', '--results', results]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /no run "Z"/);
  const rep = await cli(['report', 'A', 'B', '--by', 'modality', '--out', path.join(dir, 'cli-report'), '--results', results]);
  assert.equal(rep.code, 0, rep.err);
  assert.ok(fs.existsSync(path.join(dir, 'cli-report', 'by-modality.md')));
  const ls = await cli(['runs', '--results', results]);
  assert.equal(ls.code, 0);
  assert.match(ls.out, /^A\s+completed/m);
});
