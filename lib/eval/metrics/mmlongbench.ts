/**
 * MMLongBench-Doc's rule-based scorer, ported from the logic of the official
 * `eval/eval_score.py` (written from its published behaviour; no code copied):
 *
 * - Int: int(gt) == int(float(pred)); a pred that does not parse scores 0.
 * - Float: both through get_clean_string (lowercase, drop "(...)", wrapping
 *   quotes, leading "$", trailing "%"), then float; equal when, for any of
 *   gt/100, gt, gt*100 (percent handling), math.isclose(rel_tol=0.01) holds or
 *   both round to the same max(min(decimals(pred), decimals(item)), 2) places.
 * - Str / None: cleaned strings; gt that looks like a URL, code file, "page...",
 *   phone number, time (a.m./p.m.), date (YYYY-MM(-DD)) or e-mail needs an exact
 *   match; otherwise ANLS (1 - Levenshtein / max length, 0 when <= 0.5).
 * - List: both eval'd as Python lists (a non-list is wrapped), lengths must be
 *   equal, elements cleaned and sorted; numeric/exact-type first gold element ->
 *   exact joined match, else the minimum pairwise ANLS.
 * Anything the official code would raise on (unparsable list, empty gold list)
 * scores 0, as the official runner's try/except does. Quirks kept on purpose:
 * the "mile/miles/million" suffix stripping in get_clean_string has no effect
 * upstream (its result is discarded), so it has none here either.
 *
 * Accuracy = mean score; F1 (eval_acc_and_f1): recall = summed score over
 * answerable gold / #answerable, precision = the same sum / #predictions that
 * are not "Not answerable".
 */
import { NOT_ANSWERABLE } from '../../bench/mmlongbench';
import { parsePyStringList } from '../../bench/python-literal';
import { pyCompareStrings, pyFloat, pyInt, pyIntOfFloat, pyIsClose, pyIsFloat, pyLen, pyRound, pyStrFloat } from './python-compat';

export type MmlbAnswerFormat = 'Int' | 'Float' | 'Str' | 'List' | 'None';

/** Levenshtein distance over code points. */
export function levenshtein(a: string, b: string): number {
  let s1 = Array.from(a);
  let s2 = Array.from(b);
  if (s1.length > s2.length) [s1, s2] = [s2, s1];
  let prev = Array.from({ length: s1.length + 1 }, (_, i) => i);
  for (let i2 = 0; i2 < s2.length; i2++) {
    const cur = [i2 + 1];
    for (let i1 = 0; i1 < s1.length; i1++) {
      cur.push(s1[i1] === s2[i2] ? prev[i1] : 1 + Math.min(prev[i1], prev[i1 + 1], cur[cur.length - 1]));
    }
    prev = cur;
  }
  return prev[prev.length - 1];
}

/** ANLS of one pair with the official threshold (scores <= 0.5 become 0). */
export function anls(groundtruth: string, prediction: string, threshold = 0.5): number {
  const dist = levenshtein(groundtruth, prediction);
  const length = Math.max(pyLen(groundtruth.toUpperCase()), pyLen(prediction.toUpperCase()));
  const value = length === 0 ? 0 : dist / length;
  const score = 1 - value;
  return score <= threshold ? 0 : score;
}

/** Python's str.strip() whitespace + lstrip/rstrip of one character set. */
function lstripChars(s: string, chars: string): string {
  let i = 0;
  while (i < s.length && chars.includes(s[i])) i++;
  return s.slice(i);
}
function rstripChars(s: string, chars: string): string {
  let j = s.length;
  while (j > 0 && chars.includes(s[j - 1])) j--;
  return s.slice(0, j);
}

export function getCleanString(input: string): string {
  let s = String(input).toLowerCase().trim();
  // Upstream strips "mile(s)"/"million" suffixes but discards the result: no effect (kept as a no-op on purpose).
  s = s.replace(/\s*\([^)]*\)/g, '').trim();
  s = s.replace(/^['"]|['"]$/g, '').trim();
  s = lstripChars(s.trim(), '$').trim();
  s = rstripChars(s.trim(), '%').trim();
  return s;
}

export function isExactMatchType(s: string): boolean {
  if (s.includes('https://')) return true;
  if (s.endsWith('.py') || s.endsWith('ipynb')) return true;
  if (s.startsWith('page')) return true;
  // Python's re.fullmatch with \b around digits: the \b are implied by fullmatch; \d is Unicode in Python.
  if (/^\p{Nd}+(?:-\p{Nd}+|\s\p{Nd}+)?$/u.test(s)) return true; // telephone number
  if (s.includes('a.m.') || s.includes('p.m.')) return true;
  if (/^\p{Nd}{4}[-\s]\p{Nd}{2}[-\s]\p{Nd}{2}$/u.test(s)) return true; // YYYY-MM-DD
  if (/^\p{Nd}{4}[-\s]\p{Nd}{2}$/u.test(s)) return true; // YYYY-MM
  if (/^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/.test(s)) return true;
  return false;
}

/** Digits after the point in Python's str(float) (3 when there is no point). */
function precisionOf(x: number): number {
  const s = pyStrFloat(x);
  return s.includes('.') ? s.split('.').pop()!.length : 3;
}

/**
 * The official is_float_equal. `reference`/`prediction` are floats, or a
 * string for a value that failed to parse (a reference that does not parse
 * raises upstream: we throw; a prediction that does not parse is unequal).
 */
export function isFloatEqual(reference: number | string, prediction: number | string, includePercentage = false, isClose = false): boolean {
  const ref = pyFloat(rstripChars(String(typeof reference === 'number' ? pyStrFloat(reference) : reference).trim(), '%').trim());
  let pred: number;
  try {
    pred = pyFloat(rstripChars(String(typeof prediction === 'number' ? pyStrFloat(prediction) : prediction).trim(), '%').trim());
  } catch {
    return false;
  }
  const items = includePercentage ? [ref / 100, ref, ref * 100] : [ref];
  for (const item of items) {
    if (isClose && pyIsClose(item, pred, 0.01)) return true;
    const precision = Math.max(Math.min(precisionOf(pred), precisionOf(item)), 2);
    if (pyRound(pred, precision) === pyRound(item, precision)) return true;
  }
  return false;
}

class OfficialRaise extends Error {}

function evalScoreOrThrow(gt: string, pred: string, answerType: MmlbAnswerFormat): number {
  if (answerType === 'Int') {
    let g: bigint;
    let p: bigint;
    try {
      g = pyInt(gt);
      p = pyIntOfFloat(pyFloat(pred));
    } catch {
      return 0;
    }
    return g === p ? 1 : 0;
  }
  if (answerType === 'Float') {
    let g: number | string = gt;
    let p: number | string;
    try {
      g = pyFloat(getCleanString(gt));
      p = pyFloat(getCleanString(pred));
    } catch {
      p = '';
    }
    try {
      return isFloatEqual(g, p, true, true) ? 1 : 0;
    } catch {
      throw new OfficialRaise('reference is not a float');
    }
  }
  if (answerType === 'Str' || answerType === 'None') {
    const g = getCleanString(gt);
    const p = getCleanString(pred);
    return isExactMatchType(g) ? (g === p ? 1 : 0) : anls(g, p);
  }
  // List
  let gl: string[];
  let pl: string[];
  try {
    gl = gt.startsWith('[') ? parsePyStringList(gt) : [gt];
    pl = pred.startsWith('[') ? parsePyStringList(pred) : [pred];
  } catch {
    throw new OfficialRaise('eval() failed');
  }
  if (gl.length !== pl.length) return 0;
  if (!gl.length) throw new OfficialRaise('gt[0] of an empty list');
  const gs = gl.map(getCleanString).sort(pyCompareStrings);
  const ps = pl.map(getCleanString).sort(pyCompareStrings);
  if (pyIsFloat(gs[0]) || isExactMatchType(gs[0])) return gs.join('-') === ps.join('-') ? 1 : 0;
  return Math.min(...gs.map((g, i) => anls(g, ps[i])));
}

/** Score of one extracted answer (0..1; Str/List can be fractional ANLS). */
export function mmlongbenchScore(gt: string, pred: string, answerType: MmlbAnswerFormat): number {
  try {
    return evalScoreOrThrow(gt, pred, answerType);
  } catch (e) {
    if (e instanceof OfficialRaise) return 0;
    throw e;
  }
}

export interface MmlbScored {
  /** Gold answer as in the file ("Not answerable" for unanswerable). */
  answer: string;
  /** Extracted prediction. */
  pred: string;
  score: number;
}

/** The official accuracy and F1 over scored samples. */
export function mmlongbenchAccF1(samples: readonly MmlbScored[]): { acc: number; f1: number; n: number } {
  if (!samples.length) return { acc: 0, f1: 0, n: 0 };
  const acc = samples.reduce((s, x) => s + x.score, 0) / samples.length;
  const answerable = samples.filter((x) => x.answer !== NOT_ANSWERABLE);
  const predicted = samples.filter((x) => x.pred !== NOT_ANSWERABLE);
  const hit = answerable.reduce((s, x) => s + x.score, 0);
  // Upstream divides inside try/except: a zero denominator gives F1 = 0.
  if (!answerable.length || !predicted.length) return { acc, f1: 0, n: samples.length };
  const recall = hit / answerable.length;
  const precision = hit / predicted.length;
  const f1 = recall + precision > 0 ? (2 * recall * precision) / (recall + precision) : 0;
  return { acc, f1, n: samples.length };
}
