/**
 * `kf bench dualg`: DualG-MRAG speed on a demo preset (the scale preset: 201K
 * fragments) or a benchmark's index: graph build time, search p50/p90 with
 * per-stage times, micro/macro share, peak RSS, load average. A benchmark, not
 * a test. Thin: the corpus in lib/dualg/bench-corpus.ts, the timing in
 * lib/dualg/bench.ts.
 */
import * as path from 'node:path';
import type { CommandSpec } from '../../pipeline/command';
import { bool, int, isPositiveInt, str } from '../../pipeline/command';
import { BENCHMARK_NAMES } from '../../bench/names';
import { PRESET_NAMES, type PresetName } from '../../demo';
import { demoBenchCorpus, indexBenchCorpus } from '../bench-corpus';
import { benchDualg, BENCH_SCORERS, formatDualgBench, type BenchScorer } from '../bench';
import { KfError } from '../../util/errors';
import { ensureWritableDir, writeJsonAtomic } from '../../util/fsx';
import { gitInfo } from '../../util/git';

const scorerList = (v: string) => {
  const bad = v.split(',').filter((s) => !(BENCH_SCORERS as readonly string[]).includes(s.trim()));
  return bad.length ? `unknown scorer(s) ${bad.join(', ')}; use a comma-separated list of ${BENCH_SCORERS.join(', ')}` : undefined;
};

export const command: CommandSpec = {
  name: 'bench dualg',
  group: 'dev',
  summary: 'Time DualG-MRAG searches (linking, matching, GNN/heuristic, paths, hybrid) and the graph build on a demo preset or a benchmark index',
  options: {
    preset: {
      type: 'string',
      choices: PRESET_NAMES,
      description: 'demo world preset (scale: 3,368 documents, 201K fragments; built from the world, no files)',
    },
    bench: { type: 'string', choices: BENCHMARK_NAMES, description: 'benchmark instead of a preset (its newest index under .kf-cache/indexes, or --index)' },
    index: { type: 'string', description: 'index folder of --bench' },
    queries: { type: 'string', default: '200', validate: isPositiveInt, description: 'timed searches per scorer (questions in a seeded order, cycled)' },
    scorers: {
      type: 'string',
      default: 'dualg,gnn-untrained',
      validate: scorerList,
      description: `comma-separated: ${BENCH_SCORERS.join(', ')} (gnn-untrained: default-size GNN, initial weights, latency only)`,
    },
    seed: { type: 'string', default: 'kf-bench', description: 'seed of the query order' },
    cache: { type: 'string', description: 'keep the demo engine and the graph here and reuse them (build times are then the recorded ones)' },
    out: { type: 'string', description: 'also write the JSON report to this file' },
    json: { type: 'boolean', description: 'print the report as JSON' },
  },
  examples: [
    'kf bench dualg --preset scale --queries 200 --cache .kf-cache/bench-dualg',
    'kf bench dualg --bench 2wiki --queries 183 --scorers dualg,dualg-gnn',
    'kf bench dualg --preset tiny --queries 20 --json',
  ],
  async run(args) {
    const preset = str(args, 'preset');
    const bench = str(args, 'bench');
    if (!!preset === !!bench) throw new KfError('bad_option', 'give exactly one of --preset and --bench', 'e.g. --preset scale, or --bench 2wiki');
    if (preset && str(args, 'index'))
      throw new KfError('bad_option', '--index goes with --bench, not --preset', 'drop --index, or use --bench <name> --index <dir>');
    const outFile = str(args, 'out');
    if (outFile) ensureWritableDir(path.dirname(path.resolve(outFile)), 'folder of --out');
    const progress = (l: string) => process.stderr.write(`${l}\n`);
    const cacheDir = str(args, 'cache');
    const corpus = preset ? await demoBenchCorpus(preset as PresetName, { cacheDir, progress }) : await indexBenchCorpus(bench!, str(args, 'index'));
    const report = await benchDualg(corpus, {
      queries: int(args, 'queries'),
      scorers: str(args, 'scorers')!
        .split(',')
        .map((s) => s.trim() as BenchScorer),
      seed: str(args, 'seed'),
      cacheDir,
      progress,
    });
    const withMeta = { ...report, git: gitInfo() };
    if (outFile) writeJsonAtomic(outFile, withMeta);
    console.log(bool(args, 'json') ? JSON.stringify(withMeta) : formatDualgBench(report));
  },
};
