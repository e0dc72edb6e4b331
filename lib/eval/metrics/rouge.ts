/**
 * ROUGE-L (WebQA answers in DualG-MRAG): longest common subsequence of tokens,
 * F-measure of LCS precision and recall. Tokenisation as Google's rouge-score
 * package without stemming: lowercase, every non-alphanumeric run is a
 * separator. beta = 1 (rouge-score's F1); pass beta 1.2 for the
 * pycocoevalcap variant.
 */

export function rougeTokens(s: string): string[] {
  return (s ?? '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
}

export function lcsLength(a: readonly string[], b: readonly string[]): number {
  if (!a.length || !b.length) return 0;
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    prev = cur;
  }
  return prev[b.length];
}

export function rougeL(prediction: string, reference: string, opts: { beta?: number } = {}): { precision: number; recall: number; f: number } {
  const p = rougeTokens(prediction);
  const r = rougeTokens(reference);
  const lcs = lcsLength(p, r);
  if (!lcs) return { precision: 0, recall: 0, f: 0 };
  const precision = lcs / p.length;
  const recall = lcs / r.length;
  const b2 = (opts.beta ?? 1) ** 2;
  return { precision, recall, f: ((1 + b2) * precision * recall) / (recall + b2 * precision) };
}

/** Best ROUGE-L F over several references (WebQA may list more than one answer). */
export function rougeLMax(prediction: string, references: readonly string[], opts: { beta?: number } = {}): number {
  let best = 0;
  for (const r of references) best = Math.max(best, rougeL(prediction, r, opts).f);
  return best;
}
