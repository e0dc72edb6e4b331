/**
 * Offline synthesizer: extractive answering over the numbered materials, with
 * the reader of lib/knowforge/offline/reader.ts (evidence facts, question
 * analysis, multi-hop lookups, comparisons, yes/no, lists, refusal).
 *
 * The reply is prose citing [N] / [fig N], ending with `FINAL ANSWER: <value>`,
 * like a real synthesizer's: one "[N] states: ..." line per fact the answer
 * rests on (first hop first), then the conclusion. Refusals follow the task's
 * convention (m3docvqa never refuses: it commits to the closest candidate).
 */
import type { AnswerConvention, SynthTask } from './tasks';
import type { Fact } from './evidence';
import { bestGuess, blindGuess, read } from './reader';
import type { AnswerType } from './question';

export { parseMarkdownTable } from './evidence';

/** One piece of evidence the answer rests on, as cited. */
export interface EvidenceUnit {
  text: string;
  /** Citation as rendered in the pool: [3] or [fig 2]. */
  ref: string;
  kind: Fact['kind'];
}

export interface ExtractiveAnswer {
  kind: AnswerType;
  value: string | string[];
  refusal: boolean;
  /** Facts the answer rests on, first hop first. */
  evidence: EvidenceUnit[];
  explanation: string;
}

export function refusalFor(convention: AnswerConvention | undefined): string {
  return convention === 'multihoprag' ? 'Insufficient information' : 'Not answerable';
}

const unit = (f: Fact): EvidenceUnit => ({ text: f.text, ref: f.ref, kind: f.kind });

/** The extractive answer (value + evidence), without prose. */
export function extractAnswer(task: SynthTask): ExtractiveAnswer {
  const a = read(task);
  if (a.refusal) {
    if (task.convention === 'm3docvqa') {
      // Never refuse: commit to the most likely candidate.
      const g = bestGuess(task);
      if (g) return { kind: g.kind, value: g.value, refusal: false, evidence: g.facts.map(unit), explanation: `${a.explanation}; ${g.explanation}` };
      return {
        kind: a.kind,
        value: blindGuess(task.question),
        refusal: false,
        evidence: [],
        explanation: `${a.explanation}; a guess (this convention never refuses)`,
      };
    }
    return { kind: a.kind, value: refusalFor(task.convention), refusal: true, evidence: [], explanation: a.explanation };
  }
  let value = a.value;
  if (a.kind === 'yes-no' && typeof value === 'string') value = task.convention === 'multihoprag' ? (value === 'yes' ? 'Yes' : 'No') : value;
  // The same fact may carry two hops (a sentence naming both): cite it once.
  const seen = new Set<number>();
  const facts = a.facts.filter((f) => (seen.has(f.id) ? false : (seen.add(f.id), true)));
  return { kind: a.kind, value, refusal: false, evidence: facts.map(unit), explanation: a.explanation };
}

export function formatFinal(value: string | string[]): string {
  return Array.isArray(value) ? JSON.stringify(value) : value;
}

/** The synthesizer's reply text: short reasoning with citations, then `FINAL ANSWER: <value>`. */
export function synthReply(task: SynthTask): string {
  const a = extractAnswer(task);
  const lines: string[] = [];
  if (a.refusal) {
    lines.push(`The materials do not answer the question: ${a.explanation}.`);
  } else {
    for (const u of a.evidence) lines.push(`${u.ref} states: "${u.text.length > 300 ? `${u.text.slice(0, 297)}...` : u.text}"`);
    const refs = [...new Set(a.evidence.map((u) => u.ref))].join(' ');
    lines.push(`So the answer is ${formatFinal(a.value)}${refs ? ` ${refs}` : ''} (${a.explanation}).`);
  }
  lines.push(`FINAL ANSWER: ${formatFinal(a.value)}`);
  return lines.join('\n');
}
