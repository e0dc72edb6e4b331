/**
 * What every retriever returns (issue 9, "Ranked evidence"): ranked fragments,
 * ranked documents and, for graph retrievers, the explanation paths behind the
 * ranking. Evaluation (lib/eval/retrieval.ts), the evidence pool and reports
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

/** One step of an explanation path: `from -relation-> to`, with where it was read. */
export interface PathStep {
  from: string;
  relation: string;
  to: string;
  /** Flow or edge weight of this step (path decoding), when the retriever has one. */
  weight?: number;
  /** The passage / table / image the step was read from. */
  source?: { docId?: string; fragmentId?: string; asset?: string; snippet?: string };
}

/** A decoded reasoning path (DualG-MRAG path decoding) from a seed entity to a target. */
export interface EvidencePath {
  score: number;
  steps: PathStep[];
  /** Documents the path passes through, in order. */
  docs: string[];
}

export interface RankedEvidence {
  query: string;
  /** Which retriever produced it: 'bm25' | 'dense' | 'hybrid' | 'hybrid+graph' | 'dualg' | 'ppr' | any registered name. */
  retriever: string;
  /** Fragments in rank order (rank 1 first). */
  hits: SearchHit[];
  /** Documents in rank order; when a retriever ranks only fragments, derived from them (`docScoresFromHits`). */
  docs: DocScore[];
  /** Explanation paths (graph retrievers); absent otherwise. */
  paths?: EvidencePath[];
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
