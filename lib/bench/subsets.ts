/**
 * Question subsets: the KnowForge paper's fixed id lists (M3DocVQA smoke 30 /
 * mid 300, MultiHop-RAG smoke 31 / mid 299, in ../shared/bench/knowforge-subsets)
 * and a seeded stratified sampler for new ones.
 */
import type { Question } from './types';
import { questionFieldValues } from './fields';
import { BENCHMARKS, benchmarkSpec } from './registry';
import { RecordReader, readJsonFile } from './read';
import { benchDir } from '../util/paths';
import { makeRng } from '../util/rng';
import { KfError } from '../util/errors';

export type PaperSubsetName = 'smoke' | 'mid';
export type PaperSubsetBench = 'm3docvqa' | 'multihop-rag';

export interface PaperSubsets {
  m3docvqa: Record<PaperSubsetName, string[]>;
  'multihop-rag': Record<PaperSubsetName, string[]>;
}

/** Read an id list: a JSON list of ids, or an object with `ids` (what `kf subset` writes). */
export function readIdList(file: string, what = 'id list'): string[] {
  const r: RecordReader = new RecordReader(file, what);
  const raw = readJsonFile(file, what);
  const list = Array.isArray(raw) ? raw : r.list(r.object(raw, 'top level'), 'ids', 'top level');
  return list.map((x, i) => {
    if (typeof x !== 'string' && typeof x !== 'number') r.fail(`entry ${i}`, '(id)', 'must be a string id');
    return String(x);
  });
}

/** The paper's lists. M3DocVQA ids are MMQA qids; MultiHop-RAG ids are md5(query)[:16]. */
export function loadPaperSubsets(dir = benchDir('knowforge-subsets')): PaperSubsets {
  const mhrFile = `${dir}/mhr_sets.json`;
  const r: RecordReader = new RecordReader(mhrFile, 'MultiHop-RAG subsets');
  const mhr = r.object(readJsonFile(mhrFile, 'MultiHop-RAG subsets'), 'top level');
  return {
    m3docvqa: { smoke: readIdList(`${dir}/m3d_smoke_qids.json`, 'M3DocVQA smoke ids'), mid: readIdList(`${dir}/m3d_mid_qids.json`, 'M3DocVQA mid ids') },
    'multihop-rag': { smoke: r.strList(mhr, 'smoke', 'top level'), mid: r.strList(mhr, 'mid', 'top level') },
  };
}

export function paperSubset(bench: string, name: string, dir?: string): string[] {
  if (!benchmarkSpec(bench)?.paperSubsets) {
    const have = Object.values(BENCHMARKS)
      .filter((b) => b.paperSubsets)
      .map((b) => b.name);
    throw new KfError(
      'subset_unknown',
      `the paper has no fixed subsets for ${bench}`,
      `paper subsets exist for ${have.join(' and ')}; use the stratified sampler (--n/--by) instead`,
    );
  }
  if (name !== 'smoke' && name !== 'mid') throw new KfError('subset_unknown', `unknown paper subset "${name}"`, 'use smoke or mid');
  return loadPaperSubsets(dir)[bench as PaperSubsetBench][name];
}

/** The questions of an id list, in the list's order; ids absent from `questions` are reported (held-back ids). */
export function selectSubset(questions: Question[], ids: string[]): { questions: Question[]; missing: string[] } {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const out: Question[] = [];
  const missing: string[] = [];
  for (const id of ids) {
    const q = byId.get(id);
    if (q) out.push(q);
    else missing.push(id);
  }
  return { questions: out, missing };
}

export interface StratifiedOptions {
  n: number;
  /** A field of questionFieldValues (named or dotted path); omit for a plain seeded sample. */
  by?: string;
  seed: string | number;
}

export interface StratifiedSample {
  ids: string[];
  /** Stratum key -> questions available and taken. */
  strata: Record<string, { size: number; taken: number }>;
}

/**
 * Seeded stratified sample of n questions. A question's stratum is the
 * combination of its field values (sorted, joined by '+'), so each question is
 * in exactly one stratum. Allocation is proportional with largest remainders
 * (ties by stratum name); each stratum is sampled by its own forked rng, so
 * changing one stratum leaves the others' picks unchanged. Ids come back in
 * the input order.
 */
export function stratifiedSample(questions: Question[], opts: StratifiedOptions): StratifiedSample {
  if (!Number.isInteger(opts.n) || opts.n < 1)
    throw new KfError('subset_bad_n', `subset size must be a positive integer, got ${opts.n}`, 'pass --n N with N >= 1');
  const groups = new Map<string, Question[]>();
  for (const q of questions) {
    const key = opts.by ? [...questionFieldValues(q, opts.by)].sort().join('+') : 'all';
    const g = groups.get(key);
    if (g) g.push(q);
    else groups.set(key, [q]);
  }
  const total = questions.length;
  const n = Math.min(opts.n, total);
  const keys = [...groups.keys()].sort();
  const quota = new Map<string, number>();
  const rema: { key: string; rem: number }[] = [];
  let given = 0;
  for (const k of keys) {
    const exact = (groups.get(k)!.length * n) / Math.max(1, total);
    const base = Math.floor(exact);
    quota.set(k, base);
    given += base;
    rema.push({ key: k, rem: exact - base });
  }
  rema.sort((a, b) => b.rem - a.rem || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (let i = 0; given < n && i < rema.length; i++, given++) quota.set(rema[i].key, quota.get(rema[i].key)! + 1);
  const rng = makeRng(opts.seed);
  const picked = new Set<string>();
  const strata: StratifiedSample['strata'] = {};
  for (const k of keys) {
    const g = groups.get(k)!;
    const take = quota.get(k)!;
    for (const q of rng.fork(k).sample(g, take)) picked.add(q.id);
    strata[k] = { size: g.length, taken: take };
  }
  return { ids: questions.filter((q) => picked.has(q.id)).map((q) => q.id), strata };
}
