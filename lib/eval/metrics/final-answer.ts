/**
 * What gets scored: the value of the LAST `FINAL ANSWER:` line of an answer,
 * and whether that value is a refusal (refusals count as empty predictions
 * under the M3DocVQA rules; refusal rates are reported per configuration).
 */

/**
 * THE `FINAL ANSWER:` line (the one parser: the synthesizer, the checkers, the
 * offline policies and scoring all read answers through this file). Tolerant of
 * markdown bold and a full-width colon.
 */
export const FINAL_ANSWER_LINE = /^\s*(?:\*\*)?\s*FINAL\s+ANSWER\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?(.*?)(?:\*\*)?\s*$/i;

/** Value of the LAST `FINAL ANSWER:` line, or undefined when there is none. */
export function findFinalAnswer(text: string): string | undefined {
  const lines = (text ?? '').split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = FINAL_ANSWER_LINE.exec(lines[i]);
    if (m) return m[1].trim();
  }
  return undefined;
}

/**
 * Value of the last `FINAL ANSWER:` line. Without such a line: the whole text
 * trimmed (a raw closed-book reply still scores), or '' with `strict`.
 */
export function extractFinalAnswer(text: string, opts: { strict?: boolean } = {}): string {
  return findFinalAnswer(text) ?? (opts.strict ? '' : (text ?? '').trim());
}

/** Phrases that mean "no answer" anywhere in a (short) final value. */
const REFUSAL_PATTERNS: RegExp[] = [
  /\binsufficient (?:information|evidence|data|context)\b/i,
  /\bnot answerable\b/i,
  /\bunanswerable\b/i,
  /\b(?:cannot|can ?not|can't|could not|couldn't|unable to|impossible to) (?:be )?(?:answer(?:ed)?|determine[d]?|find|found|locate[d]?|identif(?:y|ied)|tell|say|confirm(?:ed)?|infer(?:red)?|provide[d]?)\b/i,
  /\b(?:is|are|was|were) not (?:mentioned|provided|specified|stated|given|available|found|shown|included|present|visible|clear)\b/i,
  /\b(?:does|do|did) not (?:contain|provide|mention|specify|state|include|show|say|indicate)\b/i,
  /\bno (?:information|answer|relevant|mention|data|evidence)\b/i,
  /\bnot enough (?:information|evidence|context)\b/i,
  /\bi (?:do not|don't) know\b/i,
  /\bfail(?:ed)? to answer\b/i,
];

/** Whole values that mean "no answer". */
const REFUSAL_VALUES = new Set([
  '',
  'unknown',
  'n/a',
  'na',
  'not available',
  'not found',
  'no answer',
  'none found',
  'not applicable',
  'not specified',
  'not mentioned',
]);

/** True when a final answer value is a refusal (or empty). */
export function isRefusal(finalAnswer: string): boolean {
  const v = (finalAnswer ?? '')
    .trim()
    .replace(/^["'`]+|["'`.!]+$/g, '')
    .trim()
    .toLowerCase();
  if (REFUSAL_VALUES.has(v)) return true;
  return REFUSAL_PATTERNS.some((re) => re.test(v));
}

/** Share of refusals among final answers (0 for an empty list). */
export function refusalRate(finalAnswers: readonly string[]): number {
  if (!finalAnswers.length) return 0;
  return finalAnswers.filter(isRefusal).length / finalAnswers.length;
}
