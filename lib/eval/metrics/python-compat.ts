/**
 * Python built-ins the official MMLongBench-Doc scorer relies on, reproduced so
 * the port gives the same scores: float() and int() parsing, round() (correctly
 * rounded, ties to even), math.isclose, str() of a float (for its decimal
 * places), and code-point string sorting; and the string built-ins (split,
 * strip, splitlines) the released M3DocVQA and MultiHop-RAG scorers use.
 */
import { pyFloatRepr } from '../../bench/python-literal';

export class PyValueError extends Error {}

const FLOAT_RE = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*(?:[eE][+-]?\d(?:_?\d)*)?|\d(?:_?\d)*\.?(?:[eE][+-]?\d(?:_?\d)*)?)$/;

/** Python's float(str): surrounding whitespace allowed, underscores between digits, inf/infinity/nan. */
export function pyFloat(s: string): number {
  const t = s.trim();
  const low = t.toLowerCase();
  const m = /^([+-]?)(inf|infinity|nan)$/.exec(low);
  if (m) return m[2] === 'nan' ? NaN : m[1] === '-' ? -Infinity : Infinity;
  if (!FLOAT_RE.test(t)) throw new PyValueError(`could not convert string to float: '${s}'`);
  return Number(t.replace(/_/g, ''));
}

/** Python's int(str) (base 10): whitespace, sign, digits with single underscores; as BigInt (Python ints are unbounded). */
export function pyInt(s: string): bigint {
  const t = s.trim();
  if (!/^[+-]?\d(?:_?\d)*$/.test(t)) throw new PyValueError(`invalid literal for int() with base 10: '${s}'`);
  return BigInt(t.replace(/_/g, ''));
}

/** Python's int(float): truncation toward zero; inf/nan raise. */
export function pyIntOfFloat(x: number): bigint {
  if (!Number.isFinite(x)) throw new PyValueError('cannot convert float infinity/NaN to integer');
  return BigInt(Math.trunc(x));
}

/** Python's str(float). */
export function pyStrFloat(x: number): string {
  return pyFloatRepr(x, false);
}

/** Exact value of a finite double as mant * 2^exp (mant a BigInt). */
function exactBinary(x: number): { mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const sign = hi >>> 31 ? -1n : 1n;
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (bexp === 0)
    exp = -1074; // subnormal
  else {
    mant |= 1n << 52n;
    exp = bexp - 1075;
  }
  return { mant: sign * mant, exp };
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/**
 * Python's round(x, ndigits) for floats: the exact binary value rounded to
 * ndigits decimals, ties to even, then read back as the nearest double.
 * (Math.round(x * 10^n) / 10^n differs, e.g. on 2.675 and 0.125.)
 */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (ndigits > 330) return x;
  const { mant, exp } = exactBinary(x);
  // y = x * 10^ndigits = num / den, exactly.
  let num = mant;
  let den = 1n;
  if (exp >= 0) num <<= BigInt(exp);
  else den <<= BigInt(-exp);
  if (ndigits >= 0) num *= 10n ** BigInt(ndigits);
  else den *= 10n ** BigInt(-ndigits);
  let q = floorDiv(num, den);
  const twiceRem = 2n * (num - q * den);
  if (twiceRem > den || (twiceRem === den && q % 2n !== 0n)) q += 1n;
  const r = Number(`${q}e${-ndigits}`);
  // Python keeps the sign of zero: round(-0.001, 2) == -0.0.
  return r === 0 && x < 0 ? -0 : r;
}

/** math.isclose(a, b, rel_tol=relTol, abs_tol=absTol). */
export function pyIsClose(a: number, b: number, relTol = 1e-9, absTol = 0): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(b - a);
  return diff <= Math.abs(relTol * b) || diff <= Math.abs(relTol * a) || diff <= absTol;
}

/** Python's float() succeeds on it (the scorer's isfloat). */
export function pyIsFloat(s: string): boolean {
  try {
    pyFloat(s);
    return true;
  } catch {
    return false;
  }
}

/** Python's sorted() order for strings: by code point. */
export function pyCompareStrings(a: string, b: string): number {
  const ca = Array.from(a);
  const cb = Array.from(b);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const d = ca[i].codePointAt(0)! - cb[i].codePointAt(0)!;
    if (d) return d;
  }
  return ca.length - cb.length;
}

/** len(s) in Python: code points. */
export function pyLen(s: string): number {
  return Array.from(s).length;
}

/** The characters Python's str.isspace() accepts (str.split() and str.strip() without arguments use them). */
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPACE_RUN = new RegExp(`[${PY_SPACE}]+`);
const PY_SPACE_EDGES = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** s.split() in Python: runs of Unicode whitespace separate, no empty items. */
export function pyWhitespaceSplit(s: string): string[] {
  return s.split(PY_SPACE_RUN).filter(Boolean);
}

/** s.strip() in Python (JS trim() also strips U+FEFF and misses U+001C..U+001F and U+0085). */
export function pyStrip(s: string): string {
  return s.replace(PY_SPACE_EDGES, '');
}

/** s.lower() in Python (the same mapping as JS for every case the scorers meet). */
export function pyLower(s: string): string {
  return String(s).toLowerCase();
}

/** s.splitlines() in Python: \r\n, and each of \n \r \v \f \x1c \x1d \x1e \x85 \u2028 \u2029, end a line. */
export function pySplitlines(s: string): string[] {
  const lines = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
