/**
 * The benchmark registry: one entry per benchmark (lib/bench/benchmarks/*.ts,
 * declared with lib/bench/spec.ts), and the one door to every loader.
 * `defaultPaths(name)` says where the files live under ../shared/bench
 * (benchDir()), `loadBenchmark(name, paths)` loads them, `benchmarkSpec(name)`
 * tells everything else (answer convention, scorer, recall level, buckets).
 * Loaders only ever see explicit paths, so a held-back file in the same format
 * (`*.holdout.json`) is loaded by passing its path (or `split: 'holdout'`).
 * A new benchmark: a loader, an entry file, one line in BENCHMARKS and in names.ts; a plug-in's
 * benchmark instead comes in its manifest (Plugin.benchmarks), registered by registerBenchmark.
 */
import type { BenchmarkData } from './types';
import { type BenchmarkName, addBenchmarkName, assertBenchmarkName, isBenchmarkName } from './names';
import { KfError } from '../util/errors';
import { Registry } from '../util/registry';
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

/** The benchmarks the loaded plug-ins declare (lib/pipeline/plugins.ts registers them). */
const PLUGGED = new Registry<BenchmarkSpec>('benchmark', 'bench');

/** Add a plug-in's benchmark; a name already known (a built-in's, another plug-in's) is refused (`bench_exists`). */
export function registerBenchmark(spec: BenchmarkSpec): void {
  if (PLUGGED.get(spec.name) === spec) return;
  if (isBenchmarkName(spec.name) && !PLUGGED.has(spec.name))
    throw new KfError('bench_exists', `benchmark ${spec.name} is already registered`, "give the plug-in's benchmark another name", { concerns: spec.name });
  PLUGGED.add(spec.name, spec, { hint: "give the plug-in's benchmark another name" });
  addBenchmarkName(spec.name);
}

/** The entry of a benchmark; undefined for a name the registry does not know (a question from elsewhere). */
export function benchmarkSpec(name: string | undefined): BenchmarkSpec | undefined {
  if (name === undefined || !isBenchmarkName(name)) return undefined;
  return (BENCHMARKS[name] as unknown as BenchmarkSpec | undefined) ?? PLUGGED.get(name);
}

/** The entry of a known benchmark name (a plug-in's included). */
function specOf(name: string): BenchmarkSpec {
  return benchmarkSpec(assertBenchmarkName(name))!;
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
  return specOf(name).defaultPaths(opts.split) as unknown as BenchPathsByName[N];
}

/** Load a benchmark from explicit paths (default: defaultPaths(name)). */
export function loadBenchmark<N extends BenchmarkName>(name: N, paths?: Partial<BenchPathsByName[N]>, opts: LoadOptions = {}): BenchmarkData {
  const spec = specOf(name);
  const p = { ...spec.defaultPaths(), ...(paths ?? {}) };
  return spec.load(p, opts);
}

/** Loader paths from the command line's --questions / --corpus (each benchmark names its files differently). */
export function pathsFromFlags(name: BenchmarkName, files: { questions?: string; corpus?: string }): Record<string, string> {
  const spec = specOf(name);
  const paths: Record<string, string> = {};
  if (files.questions) paths[spec.questionsKey] = files.questions;
  if (files.corpus) paths[spec.corpusKey ?? 'corpus'] = files.corpus;
  return paths;
}

/** Load a benchmark with the files given on the command line (each benchmark's registry entry names its files). */
export function loadBench(name: BenchmarkName, corpus?: string, questions?: string): BenchmarkData {
  return loadBenchmark(name, pathsFromFlags(name, { questions, corpus }) as Partial<BenchPathsByName[typeof name]>);
}
