/**
 * MultiHop-RAG scores as the KnowForge paper computed them (the released
 * runner's two-sided scorer, reimplemented in our own code; cases with the
 * values that scorer gives are in test/eval/multihop-rag-official.test.ts):
 * - the prediction is the value of the LAST `FINAL ANSWER:` line (markdown
 *   bold around it tolerated); a reply without one is scored on its last line;
 * - `acc` (the benchmark's official rule): correct when the lowercased
 *   prediction and gold share a whitespace-separated token (tokens keep their
 *   punctuation: "yes." is not "yes");
 * - `f1` / `em`: token F1 and exact match after normalisation (lowercase,
 *   surrounding quotes dropped, ASCII punctuation deleted, a/an/the removed);
 * - null questions (gold "Insufficient information."): all three are 1
 *   exactly when the normalised prediction starts with "insufficient information".
 */
import { f1OfTokens } from './em-f1';
import { pyLower, pyStrip, pySplitlines, pyWhitespaceSplit } from './python-compat';

export const MHR_NULL_PREFIX = 'insufficient information';

const S = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
/** One `FINAL ANSWER:` line; `^`/`$` are line edges at "\n" only and `.` stops at "\n", as in Python's re. */
const FINAL_LINE = new RegExp(`(?:^|(?<=\\n))[${S}]*\\**[${S}]*FINAL ANSWER[${S}]*[:：][${S}]*\\**[${S}]*([^\\n]*?)[${S}]*\\**[${S}]*(?=\\n|$)`, 'gi');

const ASCII_PUNCT = /[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]/g;
const ARTICLE = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

/** The prediction a reply stands for: the last FINAL ANSWER value, else the reply's last line. */
export function mhrPrediction(reply: string): string {
  let last: string | undefined;
  for (const m of (reply ?? '').matchAll(FINAL_LINE)) last = m[1];
  if (last !== undefined) return pyStrip(last);
  const lines = pySplitlines(pyStrip(reply ?? ''));
  return lines.length ? lines[lines.length - 1] : '';
}

export function mhrNormalize(s: string): string {
  const unquoted = pyStrip(pyLower(s ?? '')).replace(/^['"]+|['"]+$/g, '');
  return pyWhitespaceSplit(unquoted.replace(ASCII_PUNCT, '').replace(ARTICLE, ' ')).join(' ');
}

export function isMhrNullGold(gold: string): boolean {
  return mhrNormalize(gold).startsWith(MHR_NULL_PREFIX);
}

/** The official rule: some lowercased whitespace token in common. */
function sharesToken(pred: string, gold: string): boolean {
  const g = new Set(pyWhitespaceSplit(pyLower(gold)));
  return pyWhitespaceSplit(pyLower(pred)).some((t) => g.has(t));
}

/** acc (official), f1 and em of one prediction value. `nullQuestion` overrides the gold-based null test. */
export function multihopRagScores(pred: string, gold: string, opts: { nullQuestion?: boolean } = {}): { acc: number; f1: number; em: number } {
  if (opts.nullQuestion ?? isMhrNullGold(gold)) {
    const ok = mhrNormalize(pred).startsWith(MHR_NULL_PREFIX) ? 1 : 0;
    return { acc: ok, f1: ok, em: ok };
  }
  const p = mhrNormalize(pred);
  const g = mhrNormalize(gold);
  return { acc: sharesToken(pred, gold) ? 1 : 0, f1: f1OfTokens(pyWhitespaceSplit(p), pyWhitespaceSplit(g)), em: p === g ? 1 : 0 };
}

/** The official accuracy alone (0 or 1). */
export function multihopRagCorrect(finalAnswer: string, gold: string, opts: { nullQuestion?: boolean } = {}): number {
  return multihopRagScores(finalAnswer, gold, opts).acc;
}
