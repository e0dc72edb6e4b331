/**
 * What every retriever returns (issue 9, "Ranked evidence"): ranked fragments,
 * ranked documents and, in `extra`, what a method's retriever adds under its own
 * keys (DualG-MRAG: the explanation paths behind its ranking). Evaluation (lib/eval/retrieval.ts), the evidence pool and reports
 * treat a one-shot hybrid search, a KnowForge tool search and the DualG-MRAG
 * GNN alike through this one type.
 */
import type { SearchHit } from '../index/types';

/** A document with the retriever's score for it (higher is better). */
export interface DocScore {
  docId: string;
  score: number;
  /** Page-level benchmarks (MMLongBench-Doc): the pages that carried the score. */
  pages?: number[];
}

export interface RankedEvidence {
  query: string;
  /** Which retriever produced it: 'bm25' | 'dense' | 'hybrid' | 'hybrid+graph' | 'dualg' | 'ppr' | any registered name. */
  retriever: string;
  /** Fragments in rank order (rank 1 first). */
  hits: SearchHit[];
  /** Documents in rank order; when a retriever ranks only fragments, derived from them (`docScoresFromHits`). */
  docs: DocScore[];
  /**
   * What the retriever adds beyond the ranking, under its method's keys (DualG-MRAG: `paths`, its
   * decoded explanation paths). The contract does not read it; the method reads it with its own
   * type (its pipeline, its trace section) and passes on what others may show.
   */
  extra?: Readonly<Record<string, unknown>>;
  /** Milliseconds per named stage (bm25, hnsw, linking, matching, gnn, paths, ...) and `totalMs`. */
  timings: Record<string, number>;
  /**
   * Which variant of the retriever ranked, when it has variants (DualG-MRAG: the graph scorer, the GNN
   * checkpoint with its training data, preset and size, what an ablation removed); `label` names it in
   * tables and figures.
   */
  system?: { label: string; [fact: string]: unknown };
  /** Why the result is not what the retriever normally does (e.g. "no linkable entity: fell back to hybrid"). */
  notes?: string[];
}

/** Documents in order of first appearance among the hits, scored by their best hit. */
export function docScoresFromHits(hits: readonly SearchHit[]): DocScore[] {
  const byDoc = new Map<string, DocScore>();
  for (const h of hits) {
    const d = byDoc.get(h.docId);
    if (!d) byDoc.set(h.docId, { docId: h.docId, score: h.score, pages: h.page === undefined ? undefined : [h.page] });
    else {
      d.score = Math.max(d.score, h.score);
      if (h.page !== undefined && !d.pages?.includes(h.page)) (d.pages ??= []).push(h.page);
    }
  }
  return [...byDoc.values()];
}
