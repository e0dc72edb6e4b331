/**
 * "Did you mean ...?" for mistyped names (config keys, settings, commands,
 * retrievers): the closest candidate by Damerau-Levenshtein distance.
 */

/** Edit distance with adjacent transpositions (optimal string alignment): "nmae" is 1 from "name". */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  const d: number[][] = Array.from({ length: m + 1 }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[m][n];
}

/** The closest candidate when it is plausibly a typo (case-insensitive, distance <= max(1, len/3)). */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase().replace(/[_-]/g, '');
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase().replace(/[_-]/g, ''));
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}
