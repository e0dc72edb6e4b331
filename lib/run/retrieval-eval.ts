/**
 * Model-free retrieval evaluation (spec "Retrieval recall"): every question is
 * searched once by one retriever (an engine mode or any registered retriever)
 * and scored by R@k from that first search and by all-found@k; document-level,
 * or page-level for MMLongBench-Doc. Retrievers are scored alike through the
 * RankedEvidence they return. `kf eval retrieval` is the command around it.
 */
import { RECALL_KS } from '../eval/recall';
import type { BenchmarkData, Question } from '../bench/types';
import { RETRIEVAL_MODES } from '../index/types';
import type { RankedEvidence } from '../pipeline/ranked-evidence';
import { goldUnits, retrievalScores } from '../eval/retrieval';

export const MODES = RETRIEVAL_MODES;
/** `kf eval retrieval`'s cut-offs: the recall module's defaults (both papers' k). */
export const DEFAULT_KS = [...RECALL_KS];

export interface RetrievalEvalRecord {
  id: string;
  question: string;
  gold: string[];
  excluded: boolean;
  scores: Record<string, number> | null;
  hits: { fragmentId: string; docId: string; page?: number; via: string; score: number }[];
}

export interface RetrievalEvalSummary {
  n: number;
  excluded: number;
  recall: Record<string, number>;
  allFound: Record<string, number>;
  bench: string;
  /** The engine mode or registered retriever that searched. */
  mode: string;
  level: 'document' | 'page';
  ks: number[];
  topk: number;
}

/** One question's search: its ranked evidence with at least `k` hits when the retriever has them. */
export type EvidenceSearch = (question: Question, k: number) => Promise<RankedEvidence>;

/** Search every question once and score R@k / allFound@k (records in question order). */
export async function evaluateRetrieval(
  search: EvidenceSearch,
  data: BenchmarkData,
  opts: { mode: string; ks: number[]; limit?: number; onRecord?: (r: RetrievalEvalRecord) => void },
): Promise<{ summary: RetrievalEvalSummary; records: RetrievalEvalRecord[] }> {
  const ks = opts.ks;
  const topk = Math.max(...ks);
  const level = data.recallLevel;
  const qs: Question[] = opts.limit ? data.questions.slice(0, opts.limit) : data.questions;
  const records: RetrievalEvalRecord[] = [];
  const sums: Record<string, number> = {};
  let n = 0;
  for (const q of qs) {
    const gold = goldUnits(q, level);
    let hits: RetrievalEvalRecord['hits'] = [];
    let scores: Record<string, number> | null = null;
    if (gold.length) {
      const res = await search(q, topk);
      hits = res.hits.map((h) => ({
        fragmentId: h.fragmentId,
        docId: h.docId,
        ...(h.page !== undefined ? { page: h.page } : {}),
        via: h.via,
        score: Math.round(h.score * 1e6) / 1e6,
      }));
      scores = retrievalScores(q, { firstSearch: res.hits, searches: [] }, { ks, level });
    }
    if (scores) {
      n++;
      for (const k of ks) {
        sums[`R@${k}`] = (sums[`R@${k}`] ?? 0) + scores[`R@${k}`];
        sums[`allFound@${k}`] = (sums[`allFound@${k}`] ?? 0) + scores[`allFound@${k}`];
      }
    }
    const rec: RetrievalEvalRecord = { id: q.id, question: q.question, gold, excluded: !scores, scores, hits };
    records.push(rec);
    opts.onRecord?.(rec);
  }
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const recall: Record<string, number> = {};
  const allFound: Record<string, number> = {};
  for (const k of ks) {
    recall[String(k)] = n ? round(sums[`R@${k}`] / n) : 0;
    allFound[String(k)] = n ? round(sums[`allFound@${k}`] / n) : 0;
  }
  return { summary: { n, excluded: qs.length - n, recall, allFound, bench: data.name, mode: opts.mode, level, ks, topk }, records };
}
