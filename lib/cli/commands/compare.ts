/**
 * `kf compare <runA> <runB> --metric f1`: paired comparison of two runs
 * (flips, exact sign test, bootstrap CI, paired se), overall and per bucket.
 * Warnings (different backends or models) go to stderr and into the JSON.
 */
import * as path from 'node:path';
import { bool, isNumber, isPositiveInt, str, type CommandSpec } from '../command';
import { KfError } from '../../util/errors';
import { compareRuns, roundForPrint, type CompareResult, type PairedStats } from '../../run/compare';
import { loadRun, primaryMetric } from '../../run/results';

/**
 * Human lines of a comparison in the tables' units: a score in [0, 1] (answer metrics, recall) is
 * printed x100 with one decimal, as in every written table and figure; the JSON keeps fractions.
 */
export function comparisonLines(r: CompareResult): string[] {
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

export const command: CommandSpec = {
  name: 'compare',
  group: 'evaluate',
  summary: 'Paired comparison of two runs on one metric: flips, sign test, bootstrap CI, se (per bucket with --by)',
  positionals: [
    { name: 'runA', description: 'run id (in results/) or run folder', required: true },
    { name: 'runB', description: 'run id (in results/) or run folder', required: true },
  ],
  options: {
    metric: { type: 'string', description: 'score to compare: f1, em, acc, R@8, docFound, ... (default: the main answer metric of runA)' },
    margin: {
      type: 'string',
      description: 'a question is won/lost only when the scores differ by more than this',
      default: '0',
      validate: (v) => isNumber(v) ?? (Number(v) < 0 ? `expected a number >= 0, got "${v}"` : undefined),
    },
    by: {
      type: 'string',
      description: 'also compare per bucket of this question field (modality, hops, type, format, page, source, answerable, pool, or a dotted path)',
    },
    errors: { type: 'string', description: 'failed questions: score 0, or drop them', choices: ['zero', 'drop'], default: 'zero' },
    seed: { type: 'string', description: 'bootstrap seed', default: 'kf-bootstrap' },
    resamples: { type: 'string', description: 'bootstrap resamples', default: '2000', validate: isPositiveInt },
    results: { type: 'string', description: 'folder holding run folders (default results/)' },
    json: {
      type: 'boolean',
      description: 'print one JSON object ({"n","meanA","meanB","diff","won","lost","tied","signTestP","bootstrapCI","se",...,"warnings"})',
    },
  },
  examples: [
    'kf compare demo-M5-full-8f2f69e0 demo-S4-full-1c0d9e1b --by hops',
    'kf compare m3docvqa-M5-mid-3a2f1c0d m3docvqa-S4-mid-9e1b22aa --metric f1 --margin 0.05 --by modality --json',
  ],
  async run(args) {
    const resultsDir = str(args, 'results');
    const a = loadRun(args.positionals[0], { resultsDir });
    const b = loadRun(args.positionals[1], { resultsDir });
    if (a.dir === b.dir) throw new KfError('same_run', `both arguments name the run ${a.runId}`, 'compare two different runs');
    for (const r of [a, b]) {
      if (!r.records.length) {
        throw new KfError(
          'run_empty',
          `run ${r.runId} has no records (${path.join(r.dir, 'records.jsonl')} is missing or empty)`,
          r.manifest?.resume ? `run it first: ${r.manifest.resume}` : 'run it first (kf run)',
          { concerns: r.dir },
        );
      }
    }
    const metric = str(args, 'metric') ?? primaryMetric(a);
    if (!metric) throw new KfError('metric_missing', `run ${a.runId} has no answer metric to default to`, 'pass --metric (e.g. --metric R@8)');
    const r = compareRuns(a, b, {
      metric,
      margin: Number(str(args, 'margin') ?? 0),
      by: str(args, 'by'),
      seed: str(args, 'seed'),
      resamples: Number(str(args, 'resamples') ?? 2000),
      errors: (str(args, 'errors') as 'zero' | 'drop' | undefined) ?? 'zero',
    });
    for (const w of r.warnings) console.error(`WARNING: ${w}`);
    if (r.droppedA || r.droppedB)
      console.error(`note: ${r.droppedA + r.droppedB} question(s) are in only one run and were dropped (A ${r.droppedA}, B ${r.droppedB}); ${r.n} paired`);
    if (bool(args, 'json')) console.log(JSON.stringify(roundForPrint(r)));
    else for (const line of comparisonLines(r)) console.log(line);
  },
};
