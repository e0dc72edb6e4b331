/**
 * Benchmark answer conventions. Benchmarks differ only in this last layer (the
 * guardrail appended to the question, the format checker) and in one rule
 * paragraph of the agent prompts; tools and pipeline are identical.
 */
import type { Convention } from '../pipeline/types';
import { conventionOf } from '../bench/registry';
import { loadPrompt } from '../util/prompts';

export const CONVENTIONS: readonly Convention[] = ['m3docvqa', 'mmlongbench', 'multihoprag', 'generic'];

/** The convention a benchmark is scored under (the demo world has unanswerable questions: generic). */
export function conventionFor(benchmark: string): Convention {
  // Each benchmark declares its convention in its registry entry (lib/bench/benchmarks/).
  return conventionOf(benchmark.toLowerCase());
}

/** Guardrail appended to every question sent to the synthesizer. */
export function guardrail(c: Convention): string {
  return loadPrompt(`guardrail-${c}`);
}

/** The benchmark-specific rule paragraph of the agent/synthesizer prompts ('' where the benchmark has none). */
export function ruleParagraph(c: Convention): string {
  return c === 'm3docvqa' || c === 'multihoprag' ? loadPrompt(`rule-${c}`) : '';
}

/** The canonical refusal value of a convention (M3DocVQA never refuses: null). */
export function refusalValue(c: Convention): string | null {
  if (c === 'm3docvqa') return null;
  if (c === 'multihoprag') return 'Insufficient information';
  return 'Not answerable';
}
