/**
 * The benchmark names the harness knows. `Question.benchmark` carries one of
 * these; scoring (lib/eval/score.ts) and answer conventions key on it.
 */
import { KfError } from '../util/errors';

export const BENCHMARK_NAMES = [
  'mmlongbench-doc', // single-document long PDFs, page-level gold (KnowForge)
  'm3docvqa', // MMQA-dev questions over Wikipedia PDFs (KnowForge)
  'mmqa', // MMQA dev, image side: gold only in images, images as captions (DualG-MRAG)
  'multihop-rag', // news articles; inference/comparison/temporal/null (KnowForge)
  '2wiki', // 2WikiMultiHopQA (HippoRAG subset), no gold answers here
  'musique',
  'hotpotqa',
  'webqa', // DualG-MRAG
  'scienceqa', // DualG-MRAG
  'demo', // the generated demo world (lib/demo)
  'own', // your own documents and questions (lib/bench/own.ts)
] as const;

export type BenchmarkName = (typeof BENCHMARK_NAMES)[number];

/**
 * Add a plug-in's benchmark name (lib/bench/registry.ts registerBenchmark): appended to the one
 * BENCHMARK_NAMES list, so every check and choice list that reads it (the experiment schema,
 * --bench options) knows the name from the moment its manifest loads.
 */
export function addBenchmarkName(name: string): void {
  if (!isBenchmarkName(name)) (BENCHMARK_NAMES as unknown as string[]).push(name);
}

export function isBenchmarkName(s: string): s is BenchmarkName {
  return (BENCHMARK_NAMES as readonly string[]).includes(s);
}

export function assertBenchmarkName(s: string, where = 'benchmark'): BenchmarkName {
  if (!isBenchmarkName(s)) {
    throw new KfError('bench_unknown', `unknown ${where} "${s}"`, `use one of ${BENCHMARK_NAMES.join(', ')}`, { concerns: s });
  }
  return s;
}
