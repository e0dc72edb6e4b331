/**
 * The `FINAL ANSWER: <value>` line every answer ends with: what is scored.
 */

import { FINAL_ANSWER_LINE as FINAL_RE, findFinalAnswer } from '../eval/metrics/final-answer';

// One parser for the line (lib/eval/metrics/final-answer.ts): what is scored is what the pipeline reads.
export { findFinalAnswer };

/** Render a checker value (string or list) as the benchmark's final-line value: lists as JSON. */
export function formatFinalValue(v: string | string[]): string {
  return Array.isArray(v) ? JSON.stringify(v) : v.trim();
}

/**
 * Replace the last FINAL ANSWER line's value (or append the line when absent).
 * Everything else in the answer text is kept verbatim.
 */
export function replaceFinalAnswer(text: string, value: string): string {
  const lines = text.replace(/\s+$/, '').split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    if (FINAL_RE.test(lines[i])) {
      lines[i] = `FINAL ANSWER: ${value}`;
      return lines.join('\n');
    }
  }
  return `${lines.join('\n')}\nFINAL ANSWER: ${value}`.replace(/^\n/, '');
}
