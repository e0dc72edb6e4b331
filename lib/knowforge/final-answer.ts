/**
 * The `FINAL ANSWER: <value>` line every answer ends with: what is scored.
 */

const FINAL_RE = /^\s*(?:\*\*)?\s*FINAL\s+ANSWER\s*(?:\*\*)?\s*[:：]\s*(?:\*\*)?(.*?)(?:\*\*)?\s*$/i;

/** Value of the LAST `FINAL ANSWER:` line, or undefined when there is none. */
export function findFinalAnswer(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const m = FINAL_RE.exec(lines[i]);
    if (m) return m[1].trim();
  }
  return undefined;
}

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
