/**
 * The exact two-sided sign test, matching scipy.stats.binomtest(k, n, 0.5).pvalue.
 * With p = 1/2 the distribution is symmetric, so scipy's two-sided p-value
 * (sum of the probabilities no larger than P(X = k)) is min(1, 2 * P(X <= min(k, n-k))),
 * and 1 when k = n/2.
 *
 * P(X <= m) = sum_{i<=m} C(n, i) / 2^n is summed EXACTLY with BigInt up to
 * n = 20,000 (then converted to a double with one rounding), and beyond that
 * as the largest term P(X = m) (Loader's saddle-point form, as in R's dbinom)
 * times the geometric sum of the smaller terms (relative error ~1e-13). Tiny
 * p-values keep their digits: nothing is computed as 1 - cdf.
 */

const EXACT_MAX_N = 20000;

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** x * 2^e without overflow/underflow in the intermediate power. */
function ldexp(x: number, e: number): number {
  let v = x;
  let k = e;
  while (k > 1000) {
    v *= 2 ** 1000;
    k -= 1000;
  }
  while (k < -1000) {
    v *= 2 ** -1000;
    k += 1000;
  }
  return v * 2 ** k;
}

/** num / 2^pow as a double (num >= 0). */
function ratioToPow2(num: bigint, pow: number): number {
  const L = bitLength(num);
  if (L <= 64) return ldexp(Number(num), -pow);
  const shift = L - 64;
  // Keep a sticky bit so the final rounding to 53 bits is correct.
  let hi = num >> BigInt(shift);
  if (hi << BigInt(shift) !== num) hi |= 1n;
  return ldexp(Number(hi), shift - pow);
}

const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);

/** Stirling's error: ln(x!) - ln(sqrt(2 pi x) (x/e)^x) (Loader 2000), for integer x >= 1. */
function stirlerr(x: number): number {
  if (x <= 15) {
    let lf = 0;
    for (let i = 2; i <= x; i++) lf += Math.log(i);
    return lf - ((x + 0.5) * Math.log(x) - x + LN_SQRT_2PI);
  }
  const S0 = 1 / 12,
    S1 = 1 / 360,
    S2 = 1 / 1260,
    S3 = 1 / 1680,
    S4 = 1 / 1188;
  const xx = x * x;
  return (S0 - (S1 - (S2 - (S3 - S4 / xx) / xx) / xx) / xx) / x;
}

/** Deviance term x ln(x/np) + np - x, computed without cancellation (Loader 2000). */
function bd0(x: number, np: number): number {
  if (Math.abs(x - np) < 0.1 * (x + np)) {
    let v = (x - np) / (x + np);
    let s = (x - np) * v;
    let ej = 2 * x * v;
    v *= v;
    for (let j = 1; j < 1000; j++) {
      ej *= v;
      const s1 = s + ej / (2 * j + 1);
      if (s1 === s) return s1;
      s = s1;
    }
    return s;
  }
  return x * Math.log(x / np) + np - x;
}

/** ln P(X = m) for X ~ Binomial(n, 1/2), 0 < m < n, accurate to ~1e-15 relative in P (Loader's saddle-point form). */
function logPmfHalf(m: number, n: number): number {
  const lc = stirlerr(n) - stirlerr(m) - stirlerr(n - m) - bd0(m, n / 2) - bd0(n - m, n / 2);
  const lf = Math.log(2 * Math.PI) + Math.log(m) + Math.log1p(-m / n);
  return lc - 0.5 * lf;
}

/** Sum_{i=0}^{m} C(n, i) / 2^shiftPow, exactly, as a double. */
function exactLowerSum(m: number, n: number, shiftPow: number): number {
  let c = 1n;
  let s = 1n;
  const bn = BigInt(n);
  for (let i = 1; i <= m; i++) {
    const bi = BigInt(i);
    c = (c * (bn - bi + 1n)) / bi;
    s += c;
  }
  return ratioToPow2(s, shiftPow);
}

/** ln P(X <= m) for X ~ Binomial(n, 1/2), m < n/2: the largest term times the sum of the terms relative to it. */
function logLowerTail(m: number, n: number): number {
  if (m === 0) return -n * Math.LN2;
  // Terms relative to P(X = m): t_{i-1} = t_i * i / (n - i + 1); they shrink geometrically.
  let t = 1;
  let s = 1;
  for (let i = m; i >= 1; i--) {
    t *= i / (n - i + 1);
    s += t;
    if (t < s * 1e-18) break;
  }
  return logPmfHalf(m, n) + Math.log(s);
}

/** P(X <= m) for X ~ Binomial(n, 1/2). */
export function binomCdfHalf(m: number, n: number): number {
  if (!Number.isInteger(m) || !Number.isInteger(n) || n < 0) throw new Error(`binomCdfHalf needs integers, got m=${m} n=${n}`);
  if (m < 0) return 0;
  if (m >= n) return 1;
  if (n <= EXACT_MAX_N) {
    if (2 * m >= n) return 1 - exactLowerSum(n - m - 1, n, n);
    return exactLowerSum(m, n, n);
  }
  if (2 * m >= n) return 1 - Math.exp(logLowerTail(n - m - 1, n));
  return Math.exp(logLowerTail(m, n));
}

/** Two-sided exact sign test: scipy.stats.binomtest(won, won + lost, 0.5).pvalue. */
export function signTestP(won: number, lost: number): number {
  if (!Number.isInteger(won) || !Number.isInteger(lost) || won < 0 || lost < 0) {
    throw new Error(`signTestP needs non-negative integer counts, got ${won}:${lost}`);
  }
  const n = won + lost;
  if (n === 0 || 2 * won === n) return 1;
  const m = Math.min(won, lost);
  if (n <= EXACT_MAX_N) return Math.min(1, exactLowerSum(m, n, n - 1));
  return Math.min(1, 2 * Math.exp(logLowerTail(m, n)));
}
