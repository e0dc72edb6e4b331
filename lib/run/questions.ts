/**
 * Which questions a run answers: load the benchmark from the config's files,
 * then subset (full / the paper's smoke+mid lists / an id-list file), then an
 * optional seeded stratified sample, then `limits.maxQuestions` (the first N).
 */
import * as fs from 'node:fs';
import type { BenchmarkData, Question } from '../bench/types';
import { defaultPaths, loadBenchmark, type LoadOptions } from '../bench/registry';
import { paperSubset, readIdList, selectSubset, stratifiedSample } from '../bench/subsets';
import { KfError } from '../util/errors';
import type { ExperimentConfig } from './config';
import { expandPath } from './config';

/** Absolute paths of the benchmark's files: the loader's defaults (by split), replaced by the config's explicit paths. */
export function benchmarkFiles(config: ExperimentConfig): Record<string, string> {
  const b = config.benchmark;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(defaultPaths(b.name, { split: b.split }) as unknown as Record<string, string | undefined>)) if (v) out[k] = v;
  for (const [k, v] of Object.entries(b.paths)) out[k] = expandPath(v);
  return out;
}

export function loadConfiguredBenchmark(config: ExperimentConfig): { data: BenchmarkData; files: Record<string, string> } {
  const files = benchmarkFiles(config);
  const data = loadBenchmark(config.benchmark.name, files as never, config.benchmark.options as LoadOptions);
  return { data, files };
}

export interface Selection {
  questions: Question[];
  /** Ids of the subset list that the loaded benchmark does not have (held-back ids). */
  missingIds: string[];
  sample?: { n: number; by?: string; seed: string | number; strata: Record<string, { size: number; taken: number }> };
}

/** The ids of a subset reference, or undefined for the full set. */
export function subsetIds(benchmark: string, subset: string): string[] | undefined {
  if (subset === 'full' || subset === 'all') return undefined;
  if (subset === 'smoke' || subset === 'mid') return paperSubset(benchmark, subset);
  const file = expandPath(subset);
  if (!fs.existsSync(file)) {
    throw new KfError(
      'subset_missing',
      `subset "${subset}" is neither full/smoke/mid nor an existing id-list file (${file})`,
      'pass --set full|smoke|mid or the path of a JSON id list',
      { concerns: subset },
    );
  }
  return readIdList(file, 'subset id list');
}

export function selectQuestions(data: BenchmarkData, config: ExperimentConfig): Selection {
  const ids = subsetIds(config.benchmark.name, config.benchmark.subset);
  let questions = data.questions;
  let missingIds: string[] = [];
  if (ids) {
    const s = selectSubset(data.questions, ids);
    questions = s.questions;
    missingIds = s.missing;
    if (!questions.length) {
      throw new KfError(
        'subset_empty',
        `none of the ${ids.length} ids of subset "${config.benchmark.subset}" is in the loaded ${config.benchmark.name} questions`,
        'check that the subset belongs to this benchmark and split',
      );
    }
  }
  let sample: Selection['sample'];
  if (config.benchmark.sample) {
    const { n, by } = config.benchmark.sample;
    const seed = config.benchmark.sample.seed ?? config.seed;
    const s = stratifiedSample(questions, { n, by, seed });
    const keep = new Set(s.ids);
    questions = questions.filter((q) => keep.has(q.id));
    sample = { n, by, seed, strata: s.strata };
  }
  const max = config.limits.maxQuestions;
  if (max !== undefined) questions = questions.slice(0, max);
  return { questions, missingIds, sample };
}
