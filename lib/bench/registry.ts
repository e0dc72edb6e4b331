/**
 * The benchmark registry: one entry per benchmark (lib/bench/benchmarks/*.ts,
 * declared with lib/bench/spec.ts), and the one door to every loader.
 * `defaultPaths(name)` says where the files live under ../shared/bench
 * (benchDir()), `loadBenchmark(name, paths)` loads them, `benchmarkSpec(name)`
 * tells everything else (answer convention, scorer, recall level, buckets).
 * Loaders only ever see explicit paths, so a held-back file in the same format
 * (`*.holdout.json`) is loaded by passing its path (or `split: 'holdout'`).
 * A new benchmark: a loader, an entry file, one line in BENCHMARKS and in names.ts.
 */
import type { BenchmarkData } from './types';
import { type BenchmarkName, assertBenchmarkName, isBenchmarkName } from './names';
import type { MmlongbenchPaths } from './mmlongbench';
import type { TextMultihopPaths } from './text-multihop';
import type { MmqaPaths } from './mmqa';
import type { M3docvqaPaths } from './m3docvqa';
import type { MultihopRagPaths } from './multihop-rag';
import type { WebqaPaths } from './webqa';
import type { ScienceqaPaths } from './scienceqa';
import type { DemoPaths } from './demo';
import type { OwnPaths } from './own';
import type { AnswerConvention, BenchmarkSpec, LoadOptions } from './spec';
import { DEMO } from './benchmarks/demo';
import { OWN } from './benchmarks/own';
import { M3DOCVQA } from './benchmarks/m3docvqa';
import { MMLONGBENCH_DOC } from './benchmarks/mmlongbench-doc';
import { MMQA } from './benchmarks/mmqa';
import { MULTIHOP_RAG } from './benchmarks/multihop-rag';
import { SCIENCEQA } from './benchmarks/scienceqa';
import { HOTPOTQA, MUSIQUE, TWO_WIKI } from './benchmarks/text-multihop';
import { WEBQA } from './benchmarks/webqa';

export type { LoadOptions } from './spec';

export interface BenchPathsByName {
  'mmlongbench-doc': MmlongbenchPaths;
  m3docvqa: M3docvqaPaths;
  mmqa: MmqaPaths;
  'multihop-rag': MultihopRagPaths;
  '2wiki': TextMultihopPaths;
  musique: TextMultihopPaths;
  hotpotqa: TextMultihopPaths;
  webqa: WebqaPaths;
  scienceqa: ScienceqaPaths;
  demo: DemoPaths;
  own: OwnPaths;
}

export type BenchPaths = BenchPathsByName[BenchmarkName];

/** Every benchmark's entry, by name (the type makes a missing entry a compile error). */
export const BENCHMARKS: { readonly [N in BenchmarkName]: BenchmarkSpec<BenchPathsByName[N]> } = {
  'mmlongbench-doc': MMLONGBENCH_DOC,
  m3docvqa: M3DOCVQA,
  mmqa: MMQA,
  'multihop-rag': MULTIHOP_RAG,
  '2wiki': TWO_WIKI,
  musique: MUSIQUE,
  hotpotqa: HOTPOTQA,
  webqa: WEBQA,
  scienceqa: SCIENCEQA,
  demo: DEMO,
  own: OWN,
};

/** The entry of a benchmark; undefined for a name the registry does not know (a question from elsewhere). */
export function benchmarkSpec(name: string | undefined): BenchmarkSpec | undefined {
  return name !== undefined && isBenchmarkName(name) ? (BENCHMARKS[name] as unknown as BenchmarkSpec) : undefined;
}

/** The answer convention a benchmark's questions follow ('generic' for unknown names). */
export function conventionOf(name: string | undefined): AnswerConvention {
  return benchmarkSpec(name)?.convention ?? 'generic';
}

/**
 * Where each benchmark's files are by default. `split: 'holdout'` swaps `.dev.`
 * for `.holdout.` in file names (the held-back part ships in the same format).
 * Optional parts (PDF folders, corpora absent here) are set only when they exist.
 */
export function defaultPaths<N extends BenchmarkName>(name: N, opts: { split?: 'dev' | 'holdout' } = {}): BenchPathsByName[N] {
  return BENCHMARKS[assertBenchmarkName(name) as N].defaultPaths(opts.split);
}

/** Load a benchmark from explicit paths (default: defaultPaths(name)). */
export function loadBenchmark<N extends BenchmarkName>(name: N, paths?: Partial<BenchPathsByName[N]>, opts: LoadOptions = {}): BenchmarkData {
  const spec = BENCHMARKS[assertBenchmarkName(name) as N];
  const p = { ...spec.defaultPaths(), ...(paths ?? {}) } as BenchPathsByName[N];
  return spec.load(p, opts);
}

/** Loader paths from the command line's --questions / --corpus (each benchmark names its files differently). */
export function pathsFromFlags(name: BenchmarkName, files: { questions?: string; corpus?: string }): Record<string, string> {
  const spec = BENCHMARKS[name] as unknown as BenchmarkSpec;
  const paths: Record<string, string> = {};
  if (files.questions) paths[spec.questionsKey] = files.questions;
  if (files.corpus) paths[spec.corpusKey ?? 'corpus'] = files.corpus;
  return paths;
}

/** Load a benchmark with the files given on the command line (each benchmark's registry entry names its files). */
export function loadBench(name: BenchmarkName, corpus?: string, questions?: string): BenchmarkData {
  return loadBenchmark(name, pathsFromFlags(name, { questions, corpus }) as Partial<BenchPathsByName[typeof name]>);
}
