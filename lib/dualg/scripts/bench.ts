/**
 * DualG speed bench (issue 11 "Speed") as a script: the same code as `kf bench dualg`
 * (lib/dualg/bench.ts), kept for the commands recorded in the issue.
 *
 *   node --import tsx lib/dualg/scripts/bench.ts --bench 2wiki [--index DIR] [--retriever dualg|ppr|dualg-gnn|gnn-untrained] [--repeat 3]
 *   node --import tsx lib/dualg/scripts/bench.ts --preset scale [--queries 200] [--cache .kf-cache/bench-dualg]
 * With --bench the index is the newest .kf-cache/indexes/<bench>-* (built by `kf eval retrieval --bench <b> --offline`)
 * or --index, and every question is searched --repeat times (unless --queries); prints the report as one JSON line.
 */
import { scriptArgs } from '../../util/script-args';
import { demoBenchCorpus, indexBenchCorpus } from '../bench-corpus';
import { benchDualg, BENCH_SCORERS, type BenchScorer } from '../bench';
import { isPresetName } from '../../demo';

async function main(): Promise<void> {
  const { values } = scriptArgs(__filename, {
    options: {
      bench: { type: 'string' },
      preset: { type: 'string' },
      index: { type: 'string' },
      retriever: { type: 'string', default: 'dualg' },
      repeat: { type: 'string', default: '3' },
      queries: { type: 'string' },
      cache: { type: 'string' },
    },
  });
  const scorers = values.retriever!.split(',') as BenchScorer[];
  for (const s of scorers) if (!(BENCH_SCORERS as readonly string[]).includes(s)) throw new Error(`--retriever must be among ${BENCH_SCORERS.join(', ')}`);
  const progress = (l: string) => process.stderr.write(`${l}\n`);
  const preset = values.preset;
  if (preset !== undefined && !isPresetName(preset)) throw new Error(`--preset must be tiny, default or scale`);
  const corpus = preset ? await demoBenchCorpus(preset, { cacheDir: values.cache, progress }) : await indexBenchCorpus(values.bench ?? '2wiki', values.index);
  const queries = values.queries ? Number(values.queries) : corpus.questions.length * Number(values.repeat);
  console.log(JSON.stringify(await benchDualg(corpus, { queries, scorers, cacheDir: values.cache, progress })));
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
