/**
 * Zero-LLM similarity edges between fragments: each fragment's k nearest
 * neighbours by the index's dense vectors, kept when the cosine reaches a
 * threshold (HippoRAG / KGP-style "synonymy" edges). Used for graph expansion
 * when no LLM typed the relations (offline backend), and by the retrieval
 * benchmark's hybrid+graph rows.
 */
import type { SearchEngine, RelationEdge } from './engine';
import { KfError } from '../util/errors';
import { dot } from '../util/vectors';

export interface SimilarityEdgeOptions {
  /** Neighbours looked at per fragment (default 5). */
  k?: number;
  /** Minimum cosine (default 0.5). */
  threshold?: number;
  /** Skip neighbours from the same document (default false: adjacent passages are often the next hop). */
  crossDocumentOnly?: boolean;
  /** Exact kNN instead of HNSW (default: exact up to 2,000 fragments, where it costs little). */
  exact?: boolean;
  /**
   * How the HNSW side finds neighbours (when not exact): 'graph' (default) reads
   * them from the graph the index already built (engine.graphNeighbours, no
   * query per fragment); 'search' queries the graph once per fragment, the
   * method before graph reuse, kept to measure the two against each other.
   */
  approx?: 'graph' | 'search';
  /** Told after every tenth of the fragments (long builds show they advance). */
  progress?: (done: number, total: number) => void;
}

/** Undirected edges, each pair once (from < to), weight = cosine, type 'similar'. Deterministic. */
export function similarityEdges(engine: SearchEngine, opts: SimilarityEdgeOptions = {}): RelationEdge[] {
  const k = opts.k ?? 5;
  const threshold = opts.threshold ?? 0.5;
  if (!Number.isInteger(k) || k < 1) throw new KfError('bad_option', `similarity edges: k must be a positive integer (got ${k})`, 'use e.g. 5');
  if (!(threshold >= -1 && threshold <= 1))
    throw new KfError('bad_option', `similarity edges: threshold must be a cosine in [-1, 1] (got ${threshold})`, 'use e.g. 0.5');
  const seen = new Map<string, RelationEdge>();
  const keep = (id: string, nid: string, w: number) => {
    if (nid === id || w < threshold) return;
    if (opts.crossDocumentOnly && engine.fragment(nid)!.docId === engine.fragment(id)!.docId) return;
    const [a, b] = id < nid ? [id, nid] : [nid, id];
    const key = `${a}\u0000${b}`;
    if (!seen.has(key)) seen.set(key, { from: a, to: b, type: 'similar', weight: w });
  };
  const ids = engine.fragmentIds();
  const exact = opts.exact ?? ids.length <= 2000;
  // Cost: 'graph' O(n * M * dim) (hnsw-links.ts); 'search' one graph query per fragment; exact O(n^2 * dim), only up to 2,000 fragments by default.
  if (!exact && (opts.approx ?? 'graph') === 'graph') engine.graphNeighbours(k, keep, opts.progress);
  else {
    const every = Math.max(1, Math.ceil(ids.length / 10));
    ids.forEach((id, i) => {
      const v = engine.vectorOf(id)!;
      const neigh = exact ? engine.exactDense(v, k + 1) : engine.approxDense(v, k + 1);
      for (const nid of neigh) if (nid !== id) keep(id, nid, dot(v, engine.vectorOf(nid)!));
      if (opts.progress && ((i + 1) % every === 0 || i + 1 === ids.length)) opts.progress(i + 1, ids.length);
    });
  }
  // O(E log E): each pair once, sorted for determinism.
  return [...seen.values()].sort((x, y) => (x.from < y.from ? -1 : x.from > y.from ? 1 : x.to < y.to ? -1 : x.to > y.to ? 1 : 0));
}
