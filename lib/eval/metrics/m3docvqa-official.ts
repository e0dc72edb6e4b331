/**
 * M3DocVQA exact match and F1 as the KnowForge paper's numbers were computed
 * (the released runner's deterministic scorer, reimplemented here in our own
 * code; test/eval/m3docvqa-official.test.ts holds cases whose expected values
 * were produced by running that scorer):
 * - the prediction is read from the LAST line of the reply that contains
 *   "FINAL ANSWER" (any case); a reply without such a line is an EMPTY
 *   prediction (the protocol was not followed), not its whole text;
 * - a value that is empty or contains a no-answer phrase is an empty prediction;
 * - a value starting with `[` that is a Python list literal is a list (each
 *   element as Python's `str()` prints it); anything else is one element;
 * - normalisation: lowercase, ASCII punctuation -> space, the words a/an/the
 *   removed (Unicode word boundaries, as Python's `re`), whitespace collapsed;
 * - EM: the SET of normalised predictions equals the set of normalised golds;
 * - F1: token F1 between elements, best one-to-one alignment (exhaustive when
 *   the longer list has at most 8 elements, otherwise greedy row by row over
 *   the shorter list); precision = aligned sum / |pred|, recall = aligned sum /
 *   |gold|, F1 their harmonic mean. An empty side scores 1 only when both are.
 *
 * The harness's older list rule (sum divided by the larger list, duplicates
 * dropped, whole reply when no final line) is kept as the named metrics
 * `emHarness` / `f1Harness` (lib/eval/metrics/em-f1.ts), never as the default.
 */
import { f1OfTokens } from './em-f1';
import { PyLiteralError, parsePyStringList } from '../../bench/python-literal';
import { pyLower, pySplitlines, pyStrip, pyWhitespaceSplit } from './python-compat';

/** Phrases that make a final value an empty prediction (matched anywhere, any case). */
const NO_ANSWER = /not (?:available|found|present|answerable)|no information|unable to/i;

/** Python's string.punctuation (ASCII only). */
const ASCII_PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;

/** a / an / the as whole words, with Python's Unicode notion of a word character. */
const ARTICLE = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

export function m3dNormalize(s: string): string {
  const spaced = pyLower(s).replace(ASCII_PUNCT, ' ').replace(ARTICLE, ' ');
  return pyWhitespaceSplit(spaced).join(' ');
}

/** SQuAD-style token F1 over m3dNormalize tokens (empty vs empty = 1). */
export function m3dTokenF1(pred: string, gold: string): number {
  const p = pyWhitespaceSplit(m3dNormalize(pred));
  const g = pyWhitespaceSplit(m3dNormalize(gold));
  return f1OfTokens(p, g);
}

/** Best total of a one-to-one matching of every row (rows <= columns), additions in row order. */
function exhaustiveBest(m: number[][]): number {
  const cols = m[0].length;
  // DP over the set of used columns; rounding is monotone, so keeping the larger partial sum keeps the maximum.
  let dp = new Map<number, number>([[0, 0]]);
  for (const row of m) {
    const next = new Map<number, number>();
    for (const [mask, v] of dp) {
      for (let j = 0; j < cols; j++) {
        if (mask & (1 << j)) continue;
        const key = mask | (1 << j);
        const nv = v + row[j];
        if (!next.has(key) || next.get(key)! < nv) next.set(key, nv);
      }
    }
    dp = next;
  }
  return Math.max(...dp.values());
}

/** Row by row, each row takes its best still-free column (the first on ties). */
function greedyBest(m: number[][]): number {
  const used = new Set<number>();
  let total = 0;
  for (const row of m) {
    let best = -1;
    for (let j = 0; j < row.length; j++) if (!used.has(j) && (best < 0 || row[j] > row[best])) best = j;
    used.add(best);
    total += row[best];
  }
  return total;
}

/** List F1: harmonic mean of aligned/|pred| and aligned/|gold| (see the file comment). */
export function m3dListF1(preds: readonly string[], golds: readonly string[]): number {
  if (!preds.length || !golds.length) return preds.length > 0 === golds.length > 0 ? 1 : 0;
  const [short, long] = preds.length <= golds.length ? [preds, golds] : [golds, preds];
  const m = short.map((a) => long.map((b) => m3dTokenF1(a, b)));
  const best = long.length <= 8 ? exhaustiveBest(m) : greedyBest(m);
  const p = best / preds.length;
  const r = best / golds.length;
  return p + r ? (2 * p * r) / (p + r) : 0;
}

export function m3dExactMatch(preds: readonly string[], golds: readonly string[]): number {
  const p = new Set(preds.map(m3dNormalize));
  const g = new Set(golds.map(m3dNormalize));
  return p.size === g.size && [...p].every((x) => g.has(x)) ? 1 : 0;
}

/** The prediction list a final-answer VALUE stands for (what follows `FINAL ANSWER:`). */
export function m3dPredictionFromValue(value: string): string[] {
  const ans = pyStrip(pyStrip(value ?? '').replace(/^\*+|\*+$/g, ''));
  if (!ans || NO_ANSWER.test(ans)) return [];
  if (ans.startsWith('[')) {
    try {
      return parsePyStringList(ans);
    } catch (e) {
      if (!(e instanceof PyLiteralError)) throw e;
    }
  }
  return [ans];
}

/** The prediction list of a whole REPLY: its last line mentioning FINAL ANSWER, or nothing. */
export function m3dPredictionFromReply(reply: string): string[] {
  const lines = pySplitlines(reply ?? '').filter((l) => l.toUpperCase().includes('FINAL ANSWER'));
  if (!lines.length) return [];
  const last = lines[lines.length - 1];
  // Everything up to the last "FINAL ANSWER:" of the line goes (a greedy prefix, as the released scorer).
  const value = last.replace(/^.*FINAL ANSWER\s*[:：]\s*/i, '');
  return m3dPredictionFromValue(value);
}

/** EM and F1 of one prediction list against the gold answers. */
export function m3docvqaEmF1(preds: readonly string[], golds: readonly string[]): { em: number; f1: number } {
  return { em: m3dExactMatch(preds, golds), f1: m3dListF1(preds, golds) };
}
