/**
 * Exact match and token F1 with list answers (M3DocVQA / MMQA rules of the
 * KnowForge runner; also used for the text multi-hop sets and the demo world):
 * - a refusal counts as an empty prediction;
 * - `[...]` is a list; every element is normalised (normalize.ts), empties and
 *   duplicates dropped;
 * - EM = the normalised prediction set equals the gold set;
 * - F1 = token F1 under the best one-to-one alignment of prediction and gold
 *   elements (exhaustive up to 8 elements per side, greedy beyond), summed
 *   and divided by the larger list size (unmatched elements score 0), as in
 *   DROP/MMQA's bag alignment;
 * - alternative gold answers (MuSiQue aliases, ...) each form a one-element
 *   gold set; the best candidate counts.
 */
import { isRefusal } from './final-answer';
import { answerTokens, goldList, normalizeAnswer, parseAnswerList } from './normalize';

/** SQuAD token F1 between two token lists (multiset overlap; empty vs empty = 1). */
export function f1OfTokens(p: readonly string[], g: readonly string[]): number {
  if (!p.length || !g.length) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let common = 0;
  for (const t of p) {
    const c = counts.get(t) ?? 0;
    if (c > 0) {
      common++;
      counts.set(t, c - 1);
    }
  }
  if (!common) return 0;
  const precision = common / p.length;
  const recall = common / g.length;
  return (2 * precision * recall) / (precision + recall);
}

/** SQuAD token F1 between two answer strings (after normalisation). */
export function tokenF1(pred: string, gold: string): number {
  return f1OfTokens(answerTokens(pred), answerTokens(gold));
}

/** Normalised, deduplicated, non-empty elements. */
export function normalizedSet(items: readonly string[]): string[] {
  return [...new Set(items.map(normalizeAnswer).filter(Boolean))];
}

export function listExactMatch(pred: readonly string[], gold: readonly string[]): number {
  const p = normalizedSet(pred);
  const g = normalizedSet(gold);
  if (p.length !== g.length) return 0;
  const gs = new Set(g);
  return p.every((x) => gs.has(x)) ? 1 : 0;
}

/** Largest total weight of a one-to-one matching in a rows x cols score matrix. */
export function bestAlignmentSum(scores: number[][], exhaustiveUpTo = 8): number {
  const rows = scores.length;
  const cols = rows ? scores[0].length : 0;
  if (!rows || !cols) return 0;
  if (Math.max(rows, cols) <= exhaustiveUpTo) {
    // Exact: DP over the subsets of the larger side already used (<= 2^8 states).
    const transpose = cols < rows;
    const m = transpose ? scores[0].map((_, j) => scores.map((r) => r[j])) : scores;
    const small = m.length;
    const big = m[0].length;
    let dp = new Map<number, number>([[0, 0]]);
    for (let i = 0; i < small; i++) {
      const next = new Map<number, number>();
      for (const [mask, v] of dp) {
        for (let j = 0; j < big; j++) {
          if (mask & (1 << j)) continue;
          const nm = mask | (1 << j);
          const nv = v + m[i][j];
          if ((next.get(nm) ?? -1) < nv) next.set(nm, nv);
        }
      }
      dp = next;
    }
    let best = 0;
    for (const v of dp.values()) best = Math.max(best, v);
    return best;
  }
  // Greedy: repeatedly take the highest remaining pair (ties: first row, then first column).
  const pairs: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) pairs.push({ i, j, s: scores[i][j] });
  pairs.sort((a, b) => b.s - a.s || a.i - b.i || a.j - b.j);
  const usedR = new Set<number>();
  const usedC = new Set<number>();
  let total = 0;
  for (const p of pairs) {
    if (usedR.has(p.i) || usedC.has(p.j)) continue;
    usedR.add(p.i);
    usedC.add(p.j);
    total += p.s;
  }
  return total;
}

export function alignedListF1(pred: readonly string[], gold: readonly string[]): number {
  const p = normalizedSet(pred);
  const g = normalizedSet(gold);
  if (!p.length || !g.length) return p.length === g.length ? 1 : 0;
  const scores = p.map((x) => g.map((y) => tokenF1(x, y)));
  return bestAlignmentSum(scores) / Math.max(p.length, g.length);
}

/** The prediction elements a final answer value stands for (refusal -> none). */
export function predictionList(finalAnswer: string): string[] {
  if (isRefusal(finalAnswer)) return [];
  return parseAnswerList(finalAnswer);
}

/** EM and F1 of one final answer against the gold answer (and its alternatives). */
export function emF1(finalAnswer: string, answer: string | string[] | null, altAnswers: readonly string[] = []): { em: number; f1: number } {
  const pred = predictionList(finalAnswer);
  const candidates: string[][] = [goldList(answer)];
  if (!Array.isArray(answer)) for (const a of altAnswers) candidates.push([a]);
  let em = 0;
  let f1 = 0;
  for (const g of candidates) {
    if (!normalizedSet(g).length) continue;
    em = Math.max(em, listExactMatch(pred, g));
    f1 = Math.max(f1, alignedListF1(pred, g));
  }
  return { em, f1 };
}
