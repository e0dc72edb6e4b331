/**
 * Paired comparison of two runs on one metric (what `kf compare` prints):
 * only questions both runs answered-or-failed count (the intersection of ids;
 * the rest is reported as dropped), flips won:lost:tied at a margin, the
 * two-sided exact sign test, a seeded 95% paired bootstrap interval (2,000
 * resamples) and the paired standard error (lib/eval/stats.ts), overall and
 * per bucket. Runs answered by different backends or models are compared
 * only with a WARNING: offline numbers are never model results.
 */
import { comparePaired, comparePairedByBucket, type PairedComparison } from '../eval/stats';
import { KfError } from '../util/errors';
import { assertBucketField, bucketsOf, metricValues, summarizeRun, type ErrorPolicy, type LoadedRun } from './results';
import { recordsFileOf } from './records';

export interface CompareOptions {
  metric: string;
  /** A question is won by A when a - b > margin (default 0). */
  margin?: number;
  /** Bucket field for per-bucket comparisons. */
  by?: string;
  seed?: string | number;
  resamples?: number;
  /** Failed questions: score 0 (default) or leave them out. */
  errors?: ErrorPolicy;
}

/** The statistics of a paired comparison (the JSON `kf compare` prints): PairedComparison without the one-sided counts. */
export type PairedStats = Omit<PairedComparison, 'onlyA' | 'onlyB'>;

export interface CompareResult extends PairedStats {
  metric: string;
  runA: string;
  runB: string;
  margin: number;
  resamples: number;
  seed: string | number;
  errorPolicy: ErrorPolicy;
  /** Questions with a value in only one run (not compared). */
  droppedA: number;
  droppedB: number;
  /** Failed questions in each run (scored 0, or dropped under errors=drop). */
  errorsA: number;
  errorsB: number;
  backendA: string;
  backendB: string;
  warnings: string[];
  by?: string;
  byBucket?: Record<string, PairedStats>;
}

function stats(p: PairedComparison): PairedStats {
  return {
    n: p.n,
    meanA: p.meanA,
    meanB: p.meanB,
    diff: p.diff,
    won: p.won,
    lost: p.lost,
    tied: p.tied,
    signTestP: p.signTestP,
    bootstrapCI: p.bootstrapCI,
    se: p.se,
  };
}

/** Why two runs' numbers are not directly comparable (empty when they are). */
export function comparabilityWarnings(a: LoadedRun, b: LoadedRun): string[] {
  const sa = summarizeRun(a);
  const sb = summarizeRun(b);
  const w: string[] = [];
  if (sa.backend !== sb.backend) {
    w.push(
      `backends differ: ${a.runId} is ${sa.backend}, ${b.runId} is ${sb.backend}${[sa.backend, sb.backend].some((x) => x === 'offline' || x === 'mixed') ? ' (offline results are not model results)' : ''}`,
    );
  } else if (sa.backend === 'mixed') {
    w.push(`both runs mix backends (some stages offline): neither is a pure model result`);
  }
  const ma = sa.models.join(', ');
  const mb = sb.models.join(', ');
  if (ma !== mb) w.push(`model ids differ: ${a.runId} used [${ma || 'none'}], ${b.runId} used [${mb || 'none'}]`);
  if (sa.benchmark !== sb.benchmark) w.push(`benchmarks differ: ${a.runId} is ${sa.benchmark}, ${b.runId} is ${sb.benchmark}`);
  const ja = a.manifest?.config.scoring;
  const jb = b.manifest?.config.scoring;
  if (ja && jb && (ja.judge !== jb.judge || ja.refusalAsNotAnswerable !== jb.refusalAsNotAnswerable)) {
    w.push(`scoring differs: ${a.runId} judge=${ja.judge}, ${b.runId} judge=${jb.judge} (scores follow different protocols)`);
  }
  for (const r of [a, b]) {
    if (r.manifest && r.manifest.status !== 'completed')
      w.push(`run ${r.runId} is ${r.manifest.status} (${r.manifest.counts.remaining} question(s) not recorded)`);
    if (r.duplicates.length) w.push(`run ${r.runId} has ${r.duplicates.length} duplicate record(s); the first of each id was used`);
    if (r.badLines)
      w.push(
        `run ${r.runId}: ${r.badLines} unreadable line(s) in ${recordsFileOf(r.dir)} were skipped (a resume with kf run keeps a copy and answers those questions again)`,
      );
  }
  return w;
}

export function compareRuns(a: LoadedRun, b: LoadedRun, opts: CompareOptions): CompareResult {
  const errors = opts.errors ?? 'zero';
  const va = metricValues(a, opts.metric, errors);
  const vb = metricValues(b, opts.metric, errors);
  const margin = opts.margin ?? 0;
  if (!Number.isFinite(margin) || margin < 0) throw new KfError('bad_margin', `margin must be a number >= 0, got ${opts.margin}`, 'e.g. --margin 0.05');
  const seed = opts.seed ?? 'kf-bootstrap';
  const resamples = opts.resamples ?? 2000;
  const paired = comparePaired(va.values, vb.values, { margin, seed, resamples });
  if (!paired.n) {
    throw new KfError(
      'no_paired_questions',
      `runs ${a.runId} and ${b.runId} share no question with a "${opts.metric}" value (${va.values.size} and ${vb.values.size} values)`,
      'compare runs over the same questions (same benchmark and subset)',
    );
  }
  const result: CompareResult = {
    ...stats(paired),
    metric: opts.metric,
    runA: a.runId,
    runB: b.runId,
    margin,
    resamples,
    seed,
    errorPolicy: errors,
    droppedA: paired.onlyA,
    droppedB: paired.onlyB,
    errorsA: va.errors,
    errorsB: vb.errors,
    backendA: summarizeRun(a).backend,
    backendB: summarizeRun(b).backend,
    warnings: comparabilityWarnings(a, b),
  };
  if (opts.by) {
    assertBucketField([a, b], opts.by);
    const ofA = bucketsOf(a, opts.by);
    const ofB = bucketsOf(b, opts.by);
    const idsA = new Set(a.records.map((r) => r.id));
    const per = comparePairedByBucket(va.values, vb.values, (id) => (idsA.has(id) ? ofA(id) : ofB(id)), { margin, seed, resamples });
    result.by = opts.by;
    result.byBucket = Object.fromEntries(Object.entries(per).map(([k, p]) => [k, stats(p)]));
  }
  return result;
}

/** Round floats for printing (JSON keeps 6 significant decimals; p-values keep their exponent). */
export function roundForPrint<T>(x: T): T {
  return JSON.parse(
    JSON.stringify(x, (k, v) =>
      typeof v === 'number' && !Number.isInteger(v) ? (k === 'signTestP' ? Number(v.toPrecision(4)) : Math.round(v * 1e6) / 1e6) : v,
    ),
  ) as T;
}

/**
 * Human lines of a comparison in the tables' units: a score in [0, 1] (answer metrics, recall) is
 * printed x100 with one decimal, as in every written table and figure; the JSON keeps fractions.
 */
export function formatComparison(r: CompareResult): string[] {
  const stats = [r, ...Object.values(r.byBucket ?? {})];
  const unit = stats.every((s) => Math.abs(s.meanA) <= 1 && Math.abs(s.meanB) <= 1) ? 100 : 1;
  const f = (x: number) => (Number.isFinite(x) ? (unit * x).toFixed(unit === 100 ? 1 : 4) : String(x));
  const p = (x: number) => (x < 1e-4 ? x.toExponential(2) : x.toFixed(4));
  const line = (label: string, s: PairedStats) =>
    `${label.padEnd(18)} n=${String(s.n).padEnd(4)} ${f(s.meanA).padStart(6)} vs ${f(s.meanB).padStart(6)}  diff ${s.diff >= 0 ? '+' : ''}${f(s.diff)}  ` +
    `won:lost:tied ${s.won}:${s.lost}:${s.tied}  sign p=${p(s.signTestP)}  95% CI [${f(s.bootstrapCI[0])}, ${f(s.bootstrapCI[1])}]  se ${f(s.se)}`;
  const out = [
    `${r.metric}${unit === 100 ? ' (in %, x100 as in the tables)' : ''}: ${r.runA} (A, ${r.backendA}) vs ${r.runB} (B, ${r.backendB}); margin ${r.margin}, ${r.resamples} bootstrap resamples, seed ${r.seed}`,
    line('all', r),
  ];
  if (r.byBucket) for (const [k, s] of Object.entries(r.byBucket)) out.push(line(`${r.by}=${k}`, s));
  const notes: string[] = [];
  if (r.droppedA || r.droppedB) notes.push(`dropped ${r.droppedA} question(s) only in A and ${r.droppedB} only in B (not paired)`);
  if (r.errorsA || r.errorsB) notes.push(`failed questions: A ${r.errorsA}, B ${r.errorsB} (${r.errorPolicy === 'zero' ? 'scored 0' : 'left out'})`);
  if (notes.length) out.push(notes.join('; '));
  return out;
}
