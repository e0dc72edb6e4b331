/**
 * MultiHop-RAG accuracy (the official rule as the KnowForge paper applies it):
 * a prediction is correct when it shares at least one lowercased
 * whitespace-separated token with the gold answer; for null questions (gold
 * "Insufficient information.") the prediction must START with "insufficient
 * information". Tokens keep their punctuation ("yes." is not "yes"), as the
 * official token split does; the format checker writes bare Yes/No.
 */

export const MHR_NULL_PREFIX = 'insufficient information';

export function isMhrNullGold(gold: string): boolean {
  return gold.trim().toLowerCase().startsWith(MHR_NULL_PREFIX);
}

export function multihopRagCorrect(finalAnswer: string, gold: string, opts: { nullQuestion?: boolean } = {}): number {
  const pred = (finalAnswer ?? '').trim().toLowerCase();
  const isNull = opts.nullQuestion ?? isMhrNullGold(gold);
  if (isNull) return pred.startsWith(MHR_NULL_PREFIX) ? 1 : 0;
  const goldTokens = new Set(gold.toLowerCase().split(/\s+/).filter(Boolean));
  return pred.split(/\s+/).some((t) => t && goldTokens.has(t)) ? 1 : 0;
}
