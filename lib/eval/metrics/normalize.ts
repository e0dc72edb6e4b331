/**
 * Answer normalisation and list parsing shared by the EM/F1 family (the
 * KnowForge runner's M3DocVQA rules): lowercase, punctuation -> space, drop the
 * articles a/an/the, collapse spaces. `[...]` predictions are lists.
 */
import { parsePyLiteral, type PyValue } from '../../bench/python-literal';

/** Punctuation = any Unicode punctuation or symbol character. */
const PUNCT = /[\p{P}\p{S}]/gu;

const ARTICLES = new Set(['a', 'an', 'the']);

export function normalizeAnswer(s: string): string {
  // Token-wise article removal: a regex \b is ASCII-only and would cut "théa".
  return (s ?? '')
    .toLowerCase()
    .replace(PUNCT, ' ')
    .split(/\s+/)
    .filter((t) => t && !ARTICLES.has(t))
    .join(' ');
}

export function answerTokens(s: string): string[] {
  const n = normalizeAnswer(s);
  return n ? n.split(' ') : [];
}

/**
 * A prediction as a list of answer strings: `[...]` is parsed as JSON, then as
 * a Python literal, then split on commas inside the brackets; anything else is
 * one answer. Nested lists flatten; non-strings become their text.
 */
export function parseAnswerList(value: string): string[] {
  const v = (value ?? '').trim();
  if (!(v.startsWith('[') && v.endsWith(']'))) return [v];
  const flat = (x: unknown): string[] => (Array.isArray(x) ? x.flatMap(flat) : x === null || x === undefined ? [] : [String(x)]);
  try {
    return flat(JSON.parse(v));
  } catch {
    /* not JSON */
  }
  try {
    return flat(parsePyLiteral(v) as PyValue);
  } catch {
    /* not a Python literal either */
  }
  const inner = v.slice(1, -1).trim();
  if (!inner) return [];
  return inner.split(',').map((s) =>
    s
      .trim()
      .replace(/^["']|["']$/g, '')
      .trim(),
  );
}

/** Gold answer(s) as a list (a string is a one-element list; null is empty). */
export function goldList(answer: string | string[] | null): string[] {
  if (answer === null) return [];
  return Array.isArray(answer) ? answer : [answer];
}
