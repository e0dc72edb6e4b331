/**
 * Fusion of the lexical (BM25) and dense rankings into one.
 *
 * Two methods, selectable per search:
 * - 'rrf': weighted Reciprocal Rank Fusion, sum_r w_r / (k + rank_r(d)); a
 *   document absent from a list contributes nothing for it.
 * - 'weighted' (default): weighted sum of per-query min-max normalised scores,
 *   sum_r w_r * (s_r(d) - min_r) / (max_r - min_r), over the union of the
 *   candidates. The engine gives EVERY candidate both scores exactly (BM25 from
 *   the forward index, cosine from the stored vector), so no score is imputed.
 *
 * Why weights matter (the measured trap): a weak dense retriever fused by plain
 * RRF with equal weights halves BM25's recall on entity-centric multi-hop sets,
 * because RRF throws away HOW MUCH better BM25's top hit is and lets the dense
 * list's confident-looking noise in at equal rank. Respecting each retriever's
 * reliability means (1) score-based fusion, which keeps BM25's large margins on
 * rare entity names, and (2) a dense weight set from the retriever's measured reliability: the
 * offline encoders get a small weight, neural embedders an equal one (see
 * defaultFusionWeights and scripts/retrieval-quality.ts). The optional
 * 'adaptive' switch adds per-query confidence: each retriever's weight is scaled
 * by how peaked its own score distribution is for this query (top score vs. the
 * mean and spread of its top 10), so a retriever that cannot separate anything
 * for this query gets less say.
 */
import type { FusionMethod } from './types';
import { KfError } from '../util/errors';

export interface FusionWeights {
  bm25: number;
  dense: number;
}

/**
 * Default weights for a neural embedder (an OpenAI-compatible model): on
 * public benchmarks such dense retrievers are about as reliable as BM25.
 */
export const DEFAULT_FUSION_WEIGHTS: FusionWeights = { bm25: 0.5, dense: 0.5 };

/**
 * Default weights for the offline encoders (corpus-fitted, GloVe-SIF, hashing).
 * Measured through `kf eval retrieval` on the 2Wiki/MuSiQue/HotpotQA dev sets
 * (R@1/2/3/5/8 and all-found@2/3/5/8, indexes built by kf index build): the
 * offline dense retriever alone reaches 55-99% of BM25's R@8, and where BM25
 * is right by a small margin it is usually the dense side that is wrong. With
 * dense 0.03 hybrid equals or beats BM25 on every metric of all three sets;
 * 0.04-0.05 gain 2Wiki R@1/R@2 and HotpotQA R@3 but lose one MuSiQue question's
 * share at R@8 (0.553 -> 0.547); 0.1 loses MuSiQue R@5 and R@1; plain RRF
 * with equal weights loses up to 5 points of R@2. So the offline default only
 * reorders near-ties: the dense side pays off with a neural embedder (equal
 * weights, below), and the offline gain comes from graph expansion
 * (all-found@8 +3 to +10 points).
 */
export const OFFLINE_FUSION_WEIGHTS: FusionWeights = { bm25: 0.97, dense: 0.03 };

/** Ids of the offline encoders of lib/index/embedders. */
export function isOfflineEmbedderId(id: string): boolean {
  return /^(corpus-fitted|glove-sif|hash-)/.test(id);
}

/** The default weights for an index built with this embedder. */
export function defaultFusionWeights(embedderId: string): FusionWeights {
  return isOfflineEmbedderId(embedderId) ? { ...OFFLINE_FUSION_WEIGHTS } : { ...DEFAULT_FUSION_WEIGHTS };
}
export const DEFAULT_RRF_K = 60;

export interface FusionOptions {
  method?: FusionMethod;
  weights?: FusionWeights;
  /** RRF constant (default 60). */
  rrfK?: number;
  /** Per-query confidence scaling of the weights (default false). */
  adaptive?: boolean;
}

/** One candidate with both retrievers' evidence; ranks are 1-based, Infinity when not in that list. */
export interface FusionCandidate {
  id: number;
  bm25: number;
  dense: number;
  bm25Rank: number;
  denseRank: number;
}

export function validateWeights(w: FusionWeights): FusionWeights {
  if (!(w.bm25 >= 0) || !(w.dense >= 0) || !Number.isFinite(w.bm25) || !Number.isFinite(w.dense) || w.bm25 + w.dense <= 0) {
    throw new KfError(
      'bad_option',
      `fusion weights must be finite, >= 0 and not both 0 (got bm25=${w.bm25}, dense=${w.dense})`,
      'use e.g. {bm25: 0.8, dense: 0.2}',
    );
  }
  return w;
}

/** Weighted RRF score of each candidate (same order as the input). */
export function rrfScores(cands: FusionCandidate[], weights: FusionWeights, k = DEFAULT_RRF_K): Float64Array {
  const out = new Float64Array(cands.length);
  for (let i = 0; i < cands.length; i++) {
    const c = cands[i];
    let s = 0;
    if (Number.isFinite(c.bm25Rank)) s += weights.bm25 / (k + c.bm25Rank);
    if (Number.isFinite(c.denseRank)) s += weights.dense / (k + c.denseRank);
    out[i] = s;
  }
  return out;
}

/** Min-max normalisation to [0, 1]; all-equal values map to 1 if positive (they all match), else 0. */
export function minMax(xs: ArrayLike<number>): Float64Array {
  let mn = Infinity,
    mx = -Infinity;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] < mn) mn = xs[i];
    if (xs[i] > mx) mx = xs[i];
  }
  const out = new Float64Array(xs.length);
  const span = mx - mn;
  for (let i = 0; i < xs.length; i++) out[i] = span > 0 ? (xs[i] - mn) / span : mx > 0 ? 1 : 0;
  return out;
}

/**
 * How peaked a score list is: (top - mean(top10)) / std(top10), 0 for fewer
 * than 2 values or a flat list. Used by adaptive fusion.
 */
export function peakedness(xs: ArrayLike<number>): number {
  const top = Array.from(xs)
    .sort((a, b) => b - a)
    .slice(0, 10);
  if (top.length < 2) return 0;
  const mu = top.reduce((a, b) => a + b, 0) / top.length;
  const sd = Math.sqrt(top.reduce((a, b) => a + (b - mu) * (b - mu), 0) / top.length);
  return sd > 0 ? (top[0] - mu) / sd : 0;
}

/** Effective weights for this query (the adaptive switch), normalised to sum 1. */
export function queryWeights(cands: FusionCandidate[], opts: FusionOptions): FusionWeights {
  const w = validateWeights(opts.weights ?? DEFAULT_FUSION_WEIGHTS);
  let b = w.bm25,
    d = w.dense;
  if (opts.adaptive) {
    const pb = peakedness(cands.filter((c) => Number.isFinite(c.bm25Rank)).map((c) => c.bm25));
    const pd = peakedness(cands.filter((c) => Number.isFinite(c.denseRank)).map((c) => c.dense));
    if (pb + pd > 0) {
      b *= (2 * pb) / (pb + pd);
      d *= (2 * pd) / (pb + pd);
    }
  }
  const s = b + d;
  return s > 0 ? { bm25: b / s, dense: d / s } : { bm25: 0.5, dense: 0.5 };
}

/** Weighted sum of min-max normalised scores (same order as the input). */
export function weightedScores(cands: FusionCandidate[], weights: FusionWeights): Float64Array {
  const b = minMax(cands.map((c) => c.bm25));
  const d = minMax(cands.map((c) => c.dense));
  const out = new Float64Array(cands.length);
  for (let i = 0; i < cands.length; i++) out[i] = weights.bm25 * b[i] + weights.dense * d[i];
  return out;
}

/** Fuse and rank: candidates best first, with their fused score; ties by id (slot) for determinism. */
export function fuse(cands: FusionCandidate[], opts: FusionOptions = {}): { cand: FusionCandidate; fused: number }[] {
  if (!cands.length) return [];
  const method = opts.method ?? 'weighted';
  const w = queryWeights(cands, opts);
  let scores: Float64Array;
  if (method === 'rrf') scores = rrfScores(cands, w, opts.rrfK ?? DEFAULT_RRF_K);
  else if (method === 'weighted') scores = weightedScores(cands, w);
  else throw new KfError('bad_option', `unknown fusion method "${String(method)}"`, 'use rrf or weighted');
  return cands.map((cand, i) => ({ cand, fused: scores[i] })).sort((x, y) => y.fused - x.fused || x.cand.id - y.cand.id);
}
