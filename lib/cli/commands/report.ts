/**
 * `kf report <run...>`: result tables (CSV + Markdown) over runs, in the
 * paper's shapes: runs, paired statistics vs a reference, usage, per bucket.
 */
import * as path from 'node:path';
import { bool, isNumber, list, str, type CommandSpec } from '../command';
import { loadRun } from '../../run/results';
import { KfError } from '../../util/errors';
import { writeRunReport } from '../../report/run-report';
import { headlineTable } from '../headline';

export const command: CommandSpec = {
  name: 'report',
  group: 'report',
  summary: 'Tables over runs (CSV + Markdown): metrics, recall, usage, time, flips vs a reference, per bucket',
  positionals: [{ name: 'runs', description: 'run ids (in results/) or run folders', required: true, variadic: true }],
  options: {
    out: { type: 'string', description: 'output folder (default <run>/report for one run, results/report-<hash> for several)' },
    by: {
      type: 'string',
      multiple: true,
      description: 'bucket field for per-bucket tables (modality, hops, type, format, page, source, answerable, pool, ...)',
    },
    ref: { type: 'string', description: 'reference run for "vs ref" flips and the paired table (default: the first run)' },
    metric: { type: 'string', description: 'metric for flips and bucket tables (default: the main answer metric)' },
    margin: { type: 'string', description: 'flip margin', default: '0', validate: isNumber },
    results: { type: 'string', description: 'folder holding run folders (default results/)' },
    json: { type: 'boolean', description: 'print the written files as JSON' },
  },
  examples: ['kf report demo-S4-full-1c0d9e1b demo-M5-full-8f2f69e0 --by modality --by hops'],
  async run(args) {
    const resultsDir = str(args, 'results');
    const runs = args.positionals.map((r) => loadRun(r, { resultsDir }));
    const twice = runs.find((r, i) => runs.findIndex((x) => x.dir === r.dir) !== i);
    if (twice) throw new KfError('same_run', `run ${twice.runId} (${twice.dir}) is named twice`, 'name each run once', { concerns: twice.dir });
    const refArg = str(args, 'ref');
    const ref = refArg ? loadRun(refArg, { resultsDir }) : undefined;
    for (const r of runs) {
      if (r.badLines)
        console.error(
          `WARNING: run ${r.runId}: ${r.badLines} unreadable line(s) in ${path.join(r.dir, 'records.jsonl')} were skipped (a resume with kf run keeps a copy and answers those questions again)`,
        );
    }
    const out = str(args, 'out');
    const res = writeRunReport(runs, {
      out: out ? path.resolve(out) : undefined,
      by: list(args, 'by'),
      ref: ref?.runId,
      metric: str(args, 'metric'),
      margin: Number(str(args, 'margin') ?? 0),
      resultsDir,
    });
    if (bool(args, 'json')) {
      console.log(JSON.stringify(res));
      return;
    }
    console.log(`report of ${runs.length} run(s) (backend: ${res.backend}${res.backend === 'offline' ? ', not model results' : ''}) -> ${res.dir}`);
    for (const [name, p] of Object.entries(res.tables)) console.log(`  ${name.padEnd(24)} ${p.md}`);
    console.log('');
    for (const line of headlineTable(runs)) console.log(line);
  },
};
