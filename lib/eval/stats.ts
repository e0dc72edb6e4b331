/**
 * Paired statistics between two configurations scored on the same questions
 * (spec "Statistics"): per-question flips won:lost:tied at a margin, the
 * two-sided exact sign test on the flips, the 95% paired bootstrap interval of
 * the mean difference (2,000 resamples, seeded), and the paired standard error.
 */
import { makeRng } from '../util/rng';
import { signTestP } from './binomial';

export { signTestP, binomCdfHalf } from './binomial';

export interface PairedOptions {
  /** A question is won by A when a - b > margin, lost when b - a > margin, else tied (default 0). */
  margin?: number;
  /** Bootstrap seed (default 'kf-bootstrap'). */
  seed?: string | number;
  /** Bootstrap resamples (default 2000). */
  resamples?: number;
  /** Interval level (default 0.95). */
  level?: number;
}

export interface PairedComparison {
  /** Questions scored by both. */
  n: number;
  meanA: number;
  meanB: number;
  /** meanA - meanB. */
  diff: number;
  won: number;
  lost: number;
  tied: number;
  /** Two-sided exact sign test on won vs lost (ties dropped). */
  signTestP: number;
  /** Percentile bootstrap interval of the mean paired difference. */
  bootstrapCI: [number, number];
  /** Paired standard error: sd(a - b, ddof 1) / sqrt(n) (NaN when n < 2). */
  se: number;
  /** Ids scored by only one side (not compared). */
  onlyA: number;
  onlyB: number;
}

export function mean(xs: readonly number[]): number {
  if (!xs.length) return NaN;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Sample standard deviation (ddof = 1). */
export function sampleSd(xs: readonly number[]): number {
  if (xs.length < 2) return NaN;
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) * (x - m);
  return Math.sqrt(ss / (xs.length - 1));
}

export function pairedStandardError(diffs: readonly number[]): number {
  return diffs.length < 2 ? NaN : sampleSd(diffs) / Math.sqrt(diffs.length);
}

/** numpy.percentile's default (linear interpolation between order statistics) on a sorted array. */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Percentile bootstrap interval of the mean of paired differences: resample
 * the n differences with replacement `resamples` times (makeRng(seed)), take
 * the (1-level)/2 and (1+level)/2 quantiles of the resampled means.
 */
export function pairedBootstrapCI(diffs: readonly number[], opts: { seed?: string | number; resamples?: number; level?: number } = {}): [number, number] {
  const n = diffs.length;
  if (!n) return [NaN, NaN];
  const B = opts.resamples ?? 2000;
  const level = opts.level ?? 0.95;
  const rng = makeRng(opts.seed ?? 'kf-bootstrap');
  const means = new Float64Array(B);
  for (let b = 0; b < B; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += diffs[Math.floor(rng.next() * n)];
    means[b] = s / n;
  }
  means.sort();
  const sorted = Array.from(means);
  return [quantileSorted(sorted, (1 - level) / 2), quantileSorted(sorted, (1 + level) / 2)];
}

/** Flip counts of paired scores at a margin. */
export function flips(a: readonly number[], b: readonly number[], margin = 0): { won: number; lost: number; tied: number } {
  let won = 0;
  let lost = 0;
  let tied = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    if (d > margin) won++;
    else if (-d > margin) lost++;
    else tied++;
  }
  return { won, lost, tied };
}

/**
 * Compare two configurations' per-question scores (id -> score). Only ids
 * present in both are paired; they are taken in sorted id order so the
 * bootstrap does not depend on map insertion order.
 */
export function comparePaired(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>, opts: PairedOptions = {}): PairedComparison {
  const ids = [...a.keys()].filter((id) => b.has(id)).sort();
  const xa = ids.map((id) => a.get(id)!);
  const xb = ids.map((id) => b.get(id)!);
  for (let i = 0; i < ids.length; i++) {
    if (!Number.isFinite(xa[i]) || !Number.isFinite(xb[i])) throw new Error(`comparePaired: score of ${ids[i]} is not a finite number (${xa[i]} vs ${xb[i]})`);
  }
  const diffs = xa.map((v, i) => v - xb[i]);
  const f = flips(xa, xb, opts.margin ?? 0);
  return {
    n: ids.length,
    meanA: mean(xa),
    meanB: mean(xb),
    diff: mean(diffs),
    ...f,
    signTestP: signTestP(f.won, f.lost),
    bootstrapCI: pairedBootstrapCI(diffs, opts),
    se: pairedStandardError(diffs),
    onlyA: a.size - ids.length,
    onlyB: [...b.keys()].filter((id) => !a.has(id)).length,
  };
}

/**
 * comparePaired within each bucket. `bucketsOf` gives a question's buckets
 * (several for multi-valued fields: the question counts in each). Each bucket
 * bootstraps with its own seed `${seed}/${bucket}`.
 */
export function comparePairedByBucket(
  a: ReadonlyMap<string, number>,
  b: ReadonlyMap<string, number>,
  bucketsOf: (id: string) => readonly string[],
  opts: PairedOptions = {},
): Record<string, PairedComparison> {
  const groups = new Map<string, string[]>();
  for (const id of a.keys()) {
    if (!b.has(id)) continue;
    for (const k of bucketsOf(id)) {
      const g = groups.get(k);
      if (g) g.push(id);
      else groups.set(k, [id]);
    }
  }
  const out: Record<string, PairedComparison> = {};
  for (const k of [...groups.keys()].sort()) {
    const ids = groups.get(k)!;
    const pick = (m: ReadonlyMap<string, number>) => new Map(ids.map((id) => [id, m.get(id)!]));
    out[k] = comparePaired(pick(a), pick(b), { ...opts, seed: `${opts.seed ?? 'kf-bootstrap'}/${k}` });
  }
  return out;
}
