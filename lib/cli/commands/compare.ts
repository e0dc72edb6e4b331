/**
 * `kf compare <runA> <runB> --metric f1`: paired comparison of two runs
 * (flips, exact sign test, bootstrap CI, paired se), overall and per bucket.
 * Warnings (different backends or models) go to stderr and into the JSON.
 */
import * as path from 'node:path';
import { bool, isNumber, isPositiveInt, str, type CommandSpec } from '../command';
import { KfError } from '../../util/errors';
import { compareRuns, formatComparison, roundForPrint } from '../../run/compare';
import { loadRun, primaryMetric } from '../../run/results';

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
    else for (const line of formatComparison(r)) console.log(line);
  },
};
