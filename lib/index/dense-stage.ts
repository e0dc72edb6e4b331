/**
 * The dense stage of a search: HNSW candidates (exact search inside a small
 * docIds filter), widened by exact cosine over the lexical top candidates and the
 * reading-order neighbours of the best documents' hits.
 * Cost per search: one HNSW search (O(efSearch * M * log n * dim)) plus
 * O((depth + lexical + siblingDocs * siblingWindow) * dim) exact dot products and
 * a sort of those candidates. A docIds filter adds one O(n) pass over the mask
 * (listing the allowed slots) and then either an exact scan of those slots or an
 * over-fetched graph search, whichever costs fewer dot products (dense.ts
 * searchFiltered); no JS callback per graph candidate either way.
 */
import type { Fragment } from '../corpus/types';
import type { DenseIndex, DenseRanking } from './dense';
import { performance } from 'node:perf_hooks';

export type ScoredList = DenseRanking;

/** What the dense stage reads from the engine. */
export interface DenseStageData {
  dense: DenseIndex;
  fragAt(slot: number): Fragment | undefined;
  docSlots: ReadonlyMap<string, number[]>;
  widening: { siblingDocs: number; siblingWindow: number };
}

/** Dense candidates scored by exact cosine: exact over a small docIds filter, else HNSW widened (widenDense); wideningMs = time spent widening. */
export function denseCandidates(
  d: DenseStageData,
  qv: Float32Array,
  depth: number,
  mask: Uint8Array | null,
  lexical: Int32Array | null,
): { list: ScoredList; wideningMs: number } {
  let hnsw: ScoredList;
  if (mask) {
    const allowed: number[] = [];
    for (let s = 0; s < mask.length; s++) if (mask[s]) allowed.push(s);
    const r = d.dense.searchFiltered(qv, depth, mask, allowed);
    if (r.exact) return { list: r.ranking, wideningMs: 0 };
    hnsw = r.ranking;
  } else hnsw = d.dense.search(qv, depth);
  const t0 = performance.now();
  const list = widenDense(d, qv, hnsw, lexical, depth, mask);
  return { list, wideningMs: performance.now() - t0 };
}

/**
 * The dense stage's candidate generation beyond the HNSW beam. On corpora
 * where each document's fragments form a tight cluster (one entity per
 * document), a query that mixes two entities ("the population of the city
 * where the maker of the Kosse M36 is based") pulls HNSW's greedy descent
 * toward the wrong cluster: on the 200K demo world pure HNSW finds 0.89 of
 * the exact top-8 at efSearch 128. Two cheap, exact additions close the gap
 * (0.999 measured): the lexical top candidates (hybrid modes only; a dense-only
 * search stays purely dense) and the reading-order neighbours of the best
 * documents' hits. Every candidate is scored by its exact cosine, so the
 * result can only get closer to exact search.
 */
export function widenDense(
  d: DenseStageData,
  qv: Float32Array,
  hnsw: ScoredList,
  lexical: Int32Array | null,
  depth: number,
  mask: Uint8Array | null,
): ScoredList {
  const { siblingDocs, siblingWindow } = d.widening;
  if (siblingDocs <= 0 && !lexical) return hnsw;
  const score = new Map<number, number>();
  hnsw.slots.forEach((s, i) => score.set(s, hnsw.scores[i]));
  if (lexical) for (const s of lexical) if (!score.has(s)) score.set(s, d.dense.dot(qv, s));
  if (siblingDocs > 0 && siblingWindow > 0) {
    const best = [...score.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const docsSeen = new Set<string>();
    for (const [slot] of best) {
      if (docsSeen.size >= siblingDocs) break;
      const f = d.fragAt(slot);
      if (!f || docsSeen.has(f.docId)) continue;
      docsSeen.add(f.docId);
      const list = d.docSlots.get(f.docId) ?? [];
      const at = list.indexOf(slot);
      for (let i = Math.max(0, at - siblingWindow); i <= Math.min(list.length - 1, at + siblingWindow); i++) {
        const s = list[i];
        if (!score.has(s) && (!mask || mask[s])) score.set(s, d.dense.dot(qv, s));
      }
    }
  }
  const ranked = [...score.entries()]
    .filter(([s]) => d.dense.isLive(s))
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, depth);
  return { slots: Int32Array.from(ranked.map((r) => r[0])), scores: Float64Array.from(ranked.map((r) => r[1])) };
}
