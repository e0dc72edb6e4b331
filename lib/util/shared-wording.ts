/**
 * Finds word sequences that a text shares with a reference text (a paper, a
 * released runner). The project writes its own wording; a run of 12 words in a
 * row that also occurs in an outside text is taken as copied, because ordinary
 * technical prose almost never repeats that many words by chance.
 *
 * Words are lower-cased runs of Latin letters and digits; every CJK character
 * counts as one word, so Chinese texts are compared too. Punctuation and
 * spacing are ignored.
 */

export const SHARED_RUN_WORDS = 12;

/** The words of a text, as compared. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]/g) ?? [];
}

/** Every run of `n` consecutive words of a text, joined by single spaces. */
export function wordRuns(text: string, n = SHARED_RUN_WORDS): Set<string> {
  const w = wordsOf(text);
  const runs = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) runs.add(w.slice(i, i + n).join(' '));
  return runs;
}

/** The runs of `text` that also occur in `reference` (distinct, in the order they appear in `text`). */
export function sharedRuns(text: string, reference: Set<string>, n = SHARED_RUN_WORDS): string[] {
  const w = wordsOf(text);
  const out = new Set<string>();
  for (let i = 0; i + n <= w.length; i++) {
    const run = w.slice(i, i + n).join(' ');
    if (reference.has(run)) out.add(run);
  }
  return [...out];
}
