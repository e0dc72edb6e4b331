/**
 * Per-question document-ranking metrics for any scorer on the same graph and the
 * same seeds (trained GNN, untrained GNN, heuristic, PPR), so they can be compared
 * pairwise. A question no scorer can start from (no linked entity) scores 0 for all.
 */
import { recallAtK } from '../../eval/recall';

export interface QuestionMetrics {
  id: string;
  r2: number;
  r5: number;
  allFound2: number;
  allFound5: number;
  allFound8: number;
}

/** Document indices ranked by score (positive scores only, ties by index). */
export function rankDocs(scores: Float32Array | Map<number, number>): number[] {
  const entries: [number, number][] = scores instanceof Map ? [...scores.entries()] : Array.from(scores, (v, i) => [i, v] as [number, number]);
  return entries
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .map(([d]) => d);
}

/** `ranked` and `gold`: document indices, or document ids (the retriever's hits, retriever-compare.ts). */
export function questionMetrics(id: string, ranked: readonly (number | string)[], gold: readonly (number | string)[]): QuestionMetrics {
  // The recall module (lib/eval/recall.ts) over document indices or ids; no gold scores as nothing to find.
  const sc = recallAtK(ranked.map(String), gold.map(String), [2, 5, 8]);
  if (!sc) return { id, r2: 0, r5: 0, allFound2: 1, allFound5: 1, allFound8: 1 };
  return { id, r2: sc['R@2'], r5: sc['R@5'], allFound2: sc['allFound@2'], allFound5: sc['allFound@5'], allFound8: sc['allFound@8'] };
}

export function meanMetrics(rows: QuestionMetrics[]): Omit<QuestionMetrics, 'id'> & { n: number } {
  const m = (f: (r: QuestionMetrics) => number) => (rows.length ? rows.reduce((a, r) => a + f(r), 0) / rows.length : 0);
  return {
    n: rows.length,
    r2: m((r) => r.r2),
    r5: m((r) => r.r5),
    allFound2: m((r) => r.allFound2),
    allFound5: m((r) => r.allFound5),
    allFound8: m((r) => r.allFound8),
  };
}

export function zeroMetrics(id: string): QuestionMetrics {
  return { id, r2: 0, r5: 0, allFound2: 0, allFound5: 0, allFound8: 0 };
}
