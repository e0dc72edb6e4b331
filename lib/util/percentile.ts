/** The one percentile of the harness: linear interpolation between order statistics (numpy's default). */

/** The q-quantile (q in [0, 1]) of xs; null for no values. */
export function percentile(xs: readonly number[], q: number): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
