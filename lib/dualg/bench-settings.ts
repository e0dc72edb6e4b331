/**
 * Per-benchmark DualG settings chosen by k-fold cross-validation, the standard model-selection procedure: choose
 * among the defaults and their one-setting alternatives by cross-validation on the benchmark's dev questions
 * (`kf kfold`, lib/dualg/kfold.ts), refit on all of them, and quote the cross-validated (held-out) figure, never the
 * in-sample one. A benchmark is listed only where the folds chose consistently; every other index -- an unknown
 * corpus, an index built without a benchmark -- runs the defaults (HEURISTIC_DEFAULTS, SEARCHER_DEFAULTS).
 * The benchmark is the one the index was built for (its manifest's `benchmark`, as `kf eval retrieval --bench`
 * records it); retriever setting `benchSettings = false` turns this off, and an explicit setting always wins. The
 * setting in force is named in the searcher's identity (`system.settings` and its label), so a row run with a
 * benchmark's choice is never mistaken for the defaults.
 */
import * as fs from 'node:fs';
import { readIndexManifest } from '../index/open';

export interface BenchChoice {
  benchmark: string;
  /** The settings the folds chose, as retriever settings (index.settings). */
  settings: Record<string, unknown>;
  /** Where the choice comes from: the command and its figures (experiments/dualg/README.md, the k-fold section). */
  evidence: string;
}

/** What the folds chose (experiments/dualg/README.md, "The heuristic under k-fold"); absent benchmarks run the defaults. */
export const BENCH_CHOICES: Record<string, BenchChoice> = {
  musique: {
    benchmark: 'musique',
    settings: { partialLink: 0.5 },
    evidence: 'kf kfold --bench musique, seeds 1, 2, 3: partialLink 0.5 chosen in 15 of 15 folds; held-out R@5 .750, all-found@8 .600 (defaults .717, .550)',
  },
};

/** The benchmark an index was built for, from its manifest (undefined without one). */
export function indexBenchmark(indexDir: string | undefined): string | undefined {
  if (!indexDir || !fs.existsSync(indexDir)) return undefined;
  return readIndexManifest(indexDir)?.benchmark ?? undefined;
}

/** The benchmark's k-fold choice for this index, unless `benchSettings = false` or the benchmark has none. */
export function benchChoice(indexDir: string | undefined, raw: Record<string, unknown>): BenchChoice | undefined {
  if (raw.benchSettings === false) return undefined;
  const bench = indexBenchmark(indexDir);
  return bench ? BENCH_CHOICES[bench] : undefined;
}

/** The part of a choice that no explicit setting overrides (`heuristic` key by key); undefined when nothing is left. */
function applied(raw: Record<string, unknown>, choice: BenchChoice): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(choice.settings)) {
    if (k !== 'heuristic') {
      if (raw[k] === undefined) out[k] = v;
      continue;
    }
    const mine = (raw.heuristic ?? {}) as Record<string, unknown>;
    const left = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([h]) => mine[h] === undefined));
    if (Object.keys(left).length) out.heuristic = left;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The settings a retriever runs with (an explicit setting wins) and the benchmark choice in force, if any. */
export function withChoice(raw: Record<string, unknown>, choice: BenchChoice | undefined): { settings: Record<string, unknown>; inForce?: BenchChoice } {
  const left = choice ? applied(raw, choice) : undefined;
  if (!choice || !left) return { settings: raw };
  const heuristic = { ...((left.heuristic as object) ?? {}), ...((raw.heuristic as object) ?? {}) };
  return {
    settings: { ...left, ...raw, ...(Object.keys(heuristic).length ? { heuristic } : {}) },
    inForce: { ...choice, settings: left },
  };
}

/** One line for the identity: which settings ranked ("defaults", or the benchmark's k-fold choice in force). */
export function choiceLabel(choice: BenchChoice | undefined): string {
  if (!choice) return 'defaults';
  const values = Object.entries(choice.settings).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
  return `${choice.benchmark} k-fold choice (${values.join(', ')})`;
}
