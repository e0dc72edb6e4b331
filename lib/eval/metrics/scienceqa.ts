/**
 * ScienceQA accuracy and the official breakdown (subject NAT/SOC/LAN, context
 * TXT/IMG/NO, grade G1-6/G7-12; context groups overlap, as upstream).
 *
 * A final answer picks an option by letter ("B", "(B)", "B.", "The answer is
 * B.") or by the option's text (normalised equality). Anything else is wrong.
 */
import type { Question } from '../../bench/types';
import { normalizeAnswer } from './normalize';

/** Option text comparison: lowercase, punctuation -> space, collapsed; articles kept ("A" can be an option). */
function optionKey(s: string): string {
  return (s ?? '')
    .toLowerCase()
    .replace(/[\p{P}\p{S}]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const LETTERS = 'ABCDEFGHIJ';

/** Index of the option a final answer picks, or -1. Option text wins over a letter reading ("A" can be an option). */
export function scienceqaChoice(finalAnswer: string, choices: readonly string[]): number {
  const v = (finalAnswer ?? '').trim();
  const n = optionKey(v);
  if (n) {
    const byText = choices.findIndex((c) => optionKey(c) === n);
    if (byText >= 0) return byText;
  }
  // "B", "(B)", "B.", "B)", "The answer is B." -- the whole value is the letter.
  const letter =
    /^(?:the answer is\s*)?\(?([A-J])\)?[.):]?$/i.exec(v) ??
    // "(B) option text": the parenthesised letter leads.
    /^\(([A-J])\)\s+/i.exec(v);
  if (letter) {
    const i = LETTERS.indexOf(letter[1].toUpperCase());
    if (i < choices.length) return i;
  }
  return -1;
}

export function scienceqaCorrect(q: Question, finalAnswer: string): number {
  const choices = q.meta.choices as string[] | undefined;
  const gold = q.meta.answerIndex as number | undefined;
  if (!Array.isArray(choices) || typeof gold !== 'number') {
    // No options recorded: fall back to normalised equality with the answer text.
    return normalizeAnswer(finalAnswer) === normalizeAnswer(String(q.answer ?? '')) ? 1 : 0;
  }
  return scienceqaChoice(finalAnswer, choices) === gold ? 1 : 0;
}

export const SCIENCEQA_GROUPS = ['NAT', 'SOC', 'LAN', 'TXT', 'IMG', 'NO', 'G1-6', 'G7-12'] as const;

/** Accuracy per official group plus the average, from per-question correctness. */
export function scienceqaBreakdown(questions: readonly Question[], correct: ReadonlyMap<string, number>): Record<string, { n: number; acc: number }> {
  const sums = new Map<string, { n: number; s: number }>();
  const add = (k: string, v: number) => {
    const e = sums.get(k) ?? { n: 0, s: 0 };
    e.n++;
    e.s += v;
    sums.set(k, e);
  };
  for (const q of questions) {
    const v = correct.get(q.id);
    if (v === undefined) continue;
    add('avg', v);
    if (typeof q.meta.subjectCode === 'string') add(q.meta.subjectCode, v);
    for (const c of (q.meta.contextCodes as string[] | undefined) ?? []) add(c, v);
    if (typeof q.meta.gradeBand === 'string') add(q.meta.gradeBand, v);
  }
  const out: Record<string, { n: number; acc: number }> = {};
  for (const k of [...SCIENCEQA_GROUPS, 'avg']) {
    const e = sums.get(k);
    if (e) out[k] = { n: e.n, acc: e.s / e.n };
  }
  return out;
}
