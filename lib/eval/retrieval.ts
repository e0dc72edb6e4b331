/**
 * Model-free retrieval recall (spec "Retrieval recall"), from a question's
 * RetrievalLog (lib/eval/retrieval-log.ts):
 * - R@k: |gold ∩ documents of the first k hits of the FIRST search| / |gold|;
 * - allFound@k: 1 when every gold document is among them;
 * - R@all: the same over the hits of EVERY search (locator, bridge, ...);
 * - docFound: 1 when every gold document was found by some search;
 * - answerVisible: the gold answer string appears in the final pool text
 *   (case-insensitive, whitespace-collapsed; every element of a list answer;
 *   any alternative answer counts); only for questions with an answer.
 * A hit's document is its `docId` (media fragments carry their parent's id).
 * Page level (MMLongBench-Doc): the units are (document, page) pairs of the
 * gold pages instead of documents. Questions without gold units are excluded
 * (null). With `alsoPages` (your own data over PDFs), a document-level question
 * that gives gold pages is scored at both levels: the page-level keys carry the
 * prefix `page:` (page:R@1, page:R@all, page:docFound, ...).
 */
import { benchmarkSpec } from '../bench/registry';
import type { Question } from '../bench/types';
import type { RetrievalLog } from './retrieval-log';
import { goldList } from './metrics/normalize';
import { RECALL_KS, recallAtK } from './recall';

export interface RetrievalOptions {
  /** Cut-offs for R@k / allFound@k (default RECALL_KS: KnowForge's 1, 3, 8 and DualG-MRAG's 2, 5). */
  ks?: readonly number[];
  /** Default: 'page' for mmlongbench-doc, else 'document'. */
  level?: 'document' | 'page';
  /**
   * What k counts: the first k hits (default; a search returns fragments, several
   * may share a document), or the first k distinct units in rank order
   * (document rankers such as DualG-MRAG's).
   */
  kOver?: 'hits' | 'units';
  /** At document level, also the page-level keys (prefixed PAGE_PREFIX) for questions with gold pages. */
  alsoPages?: boolean;
}

/** The prefix of page-level recall keys scored beside the document level. */
export const PAGE_PREFIX = 'page:';

type HitLike = { docId: string; page?: number };

function unitOf(level: 'document' | 'page', h: HitLike): string | undefined {
  if (level === 'document') return h.docId;
  return h.page === undefined ? undefined : `${h.docId}#p${h.page}`;
}

/** The gold units of a question at a level (empty = excluded). */
export function goldUnits(q: Question, level: 'document' | 'page'): string[] {
  if (level === 'document') return [...new Set(q.goldDocs)];
  const doc = q.doc ?? q.goldDocs[0];
  if (q.goldPages?.length && doc !== undefined) return [...new Set(q.goldPages.map((p) => `${doc}#p${p}`))];
  // Benchmarks with per-evidence pages in several documents.
  return [...new Set(q.evidence.filter((e) => e.page !== undefined).map((e) => `${e.doc}#p${e.page}`))];
}

function collapse(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Gold answer visible in the pool text; undefined when the question has no answer to look for. */
export function answerVisible(q: Question, poolText: string | undefined): number | undefined {
  if (poolText === undefined || q.answer === null || q.format === 'unanswerable') return undefined;
  const pool = collapse(poolText);
  const candidates: string[][] = [goldList(q.answer)];
  if (!Array.isArray(q.answer)) for (const a of q.altAnswers ?? []) candidates.push([a]);
  for (const c of candidates) {
    const parts = c.map(collapse).filter(Boolean);
    if (parts.length && parts.every((p) => pool.includes(p))) return 1;
  }
  return 0;
}

export function retrievalScores(q: Question, log: RetrievalLog, opts: RetrievalOptions = {}): Record<string, number> | null {
  const level = opts.level ?? benchmarkSpec(q.benchmark)?.recallLevel ?? 'document';
  const gold = goldUnits(q, level);
  if (!gold.length) return null;
  const goldSet = new Set(gold);
  const out: Record<string, number> = {};
  const first = log.firstSearch ?? [];
  const ranked = first.map((h) => unitOf(level, h));
  const distinct = [...new Set(ranked.filter((u): u is string => u !== undefined))];
  Object.assign(out, recallAtK(opts.kOver === 'units' ? distinct : ranked, gold, opts.ks ?? RECALL_KS));
  const all = new Set<string>();
  for (const h of first) {
    const u = unitOf(level, h);
    if (u !== undefined && goldSet.has(u)) all.add(u);
  }
  for (const s of log.searches ?? []) {
    for (const h of s.hits) {
      const u = unitOf(level, h);
      if (u !== undefined && goldSet.has(u)) all.add(u);
    }
  }
  out['R@all'] = all.size / gold.length;
  out.docFound = all.size === gold.length ? 1 : 0;
  const vis = answerVisible(q, log.poolText);
  if (vis !== undefined) out.answerVisible = vis;
  if (log.poolTrimmed !== undefined) out.poolTrimmed = log.poolTrimmed ? 1 : 0;
  if (opts.alsoPages && level === 'document' && q.goldPages?.length) Object.assign(out, pageScores(q, log, opts));
  return out;
}

/** Page-level recall of a document-level question, keys prefixed (answer visibility and pool trimming are the document level's). */
function pageScores(q: Question, log: RetrievalLog, opts: RetrievalOptions): Record<string, number> {
  const page = retrievalScores(q, log, { ...opts, level: 'page', alsoPages: false }) ?? {};
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(page)) if (k !== 'answerVisible' && k !== 'poolTrimmed') out[`${PAGE_PREFIX}${k}`] = v;
  return out;
}

/** Mean of every key over the questions that have it (excluded questions are null), with per-key counts. */
export function aggregateScores(rows: readonly (Record<string, number> | null | undefined)[]): {
  n: number;
  mean: Record<string, number>;
  count: Record<string, number>;
} {
  const sum: Record<string, number> = {};
  const count: Record<string, number> = {};
  let n = 0;
  for (const r of rows) {
    if (!r) continue;
    n++;
    for (const [k, v] of Object.entries(r)) {
      if (typeof v !== 'number' || Number.isNaN(v)) continue;
      sum[k] = (sum[k] ?? 0) + v;
      count[k] = (count[k] ?? 0) + 1;
    }
  }
  const mean: Record<string, number> = {};
  for (const k of Object.keys(sum)) mean[k] = sum[k] / count[k];
  return { n, mean, count };
}
