/**
 * The primary ranking of a search: one list (bm25 or dense mode), or both lists
 * fused (fusion.ts) after completing every candidate's missing score exactly
 * (a BM25-only candidate gets its cosine, a dense-only one its BM25 score: no
 * imputed zeros). O(candidates * (dim + query terms)) per search.
 */
import type { FusionMethod, RetrievalMode } from './types';
import type { Bm25Index, Bm25Query } from './bm25';
import type { DenseIndex } from './dense';
import type { ScoredList } from './dense-stage';
import type { Ranked } from './graph-expansion';
import { fuse, type FusionCandidate, type FusionWeights } from './fusion';

export interface RankContext {
  qv?: Float32Array;
  bq?: Bm25Query;
  fusion: FusionMethod;
  weights: FusionWeights;
  rrfK: number;
  adaptive: boolean;
  dense: DenseIndex;
  bm25: Bm25Index;
}

export function rankLists(mode: RetrievalMode, lex: ScoredList, den: ScoredList, x: RankContext): Ranked[] {
  if (mode === 'bm25') return Array.from(lex.slots, (s, i) => ({ slot: s, score: lex.scores[i], bm25: lex.scores[i], via: 'bm25' as const }));
  if (mode === 'dense') return Array.from(den.slots, (s, i) => ({ slot: s, score: den.scores[i], dense: den.scores[i], via: 'dense' as const }));
  const byId = new Map<number, FusionCandidate>();
  lex.slots.forEach((s, i) => byId.set(s, { id: s, bm25: lex.scores[i], dense: NaN, bm25Rank: i + 1, denseRank: Infinity }));
  den.slots.forEach((s, i) => {
    const c = byId.get(s);
    if (c) {
      c.dense = den.scores[i];
      c.denseRank = i + 1;
    } else byId.set(s, { id: s, bm25: NaN, dense: den.scores[i], bm25Rank: Infinity, denseRank: i + 1 });
  });
  for (const c of byId.values()) {
    if (Number.isNaN(c.dense)) c.dense = x.qv ? x.dense.dot(x.qv, c.id) : 0;
    if (Number.isNaN(c.bm25)) c.bm25 = x.bq ? x.bm25.scoreSlot(x.bq, c.id) : 0;
  }
  const fused = fuse([...byId.values()], { method: x.fusion, weights: x.weights, rrfK: x.rrfK, adaptive: x.adaptive });
  return fused.map(({ cand, fused: f }) => ({ slot: cand.id, score: f, bm25: cand.bm25, dense: cand.dense, fused: f, via: 'hybrid' as const }));
}
