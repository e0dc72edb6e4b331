/**
 * The third method's notebook kit (its manifest's `notebookKit`): what a notebook calls as
 * `kf.method('third').<name>`. Its retriever ranks by the same count.
 */

const words = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);

/** How many distinct words of `question` appear in `text` (case-insensitive): the third retriever's score. */
export function sharedWords(question: string, text: string): number {
  const q = words(question);
  return [...words(text)].filter((w) => q.has(w)).length;
}
