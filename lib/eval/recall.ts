/**
 * Recall at a cut-off, the one implementation (issue 16): R@k = |gold ∩ the first k ranked
 * units| / |gold|, allFound@k = 1 when every gold unit is among them. Retrieval evaluation,
 * the notebooks, DualG training and k-fold selection all score with it.
 */

/**
 * The default cut-offs of a recall report: KnowForge reports 1, 3 and 8, DualG-MRAG 2 and 5,
 * so a report over both carries all five. Callers with a protocol of their own pass theirs.
 */
export const RECALL_KS: readonly number[] = [1, 2, 3, 5, 8];

/**
 * R@k and allFound@k of a ranked list of units (a hit without a unit is `undefined`: it takes
 * a rank and finds nothing) against the gold units. Empty gold: no figure (undefined).
 */
export function recallAtK(
  ranked: readonly (string | undefined)[],
  gold: readonly string[],
  ks: readonly number[] = RECALL_KS,
): Record<string, number> | undefined {
  if (!gold.length) return undefined;
  const goldSet = new Set(gold);
  const out: Record<string, number> = {};
  for (const k of ks) {
    const found = new Set(ranked.slice(0, k).filter((u): u is string => u !== undefined && goldSet.has(u)));
    out[`R@${k}`] = found.size / goldSet.size;
    out[`allFound@${k}`] = found.size === goldSet.size ? 1 : 0;
  }
  return out;
}
