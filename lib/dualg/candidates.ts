/**
 * ScienceQA's two candidate answers (paper, Appendix C.2: to damp noise from retrieved contexts, the model
 * writes one answer with retrieval and one without, and keeps the more logical by its own knowledge): the
 * choice call (stage `synth`, prompts/dualg-choose.txt) sees the question, its options and both replies and
 * answers "KEEP: 1|2" with a FINAL ANSWER line. A reply without a KEEP line keeps the candidate its FINAL
 * ANSWER names; one naming neither keeps the answer with retrieval, and the trace says so.
 */
import type { PipelineContext } from '../pipeline/types';
import { scienceqaChoice } from '../eval/metrics/scienceqa';
import { fillPrompt } from '../util/prompts';
import { optionLines, questionContext } from './answer-form';
import type { ChooseTask } from './offline/tasks';

export interface Candidate {
  text: string;
  final: string;
}

export interface Choice {
  /** 1: the answer with retrieval, 2: the one without. */
  kept: 1 | 2;
  final: string;
  /** How the kept one was read: the KEEP line, the FINAL ANSWER's option, or the default (neither). */
  how: 'keep-line' | 'final-answer' | 'default';
  by: string;
  raw: string;
}

/** Which candidate a choice reply keeps. */
export function keptOf(text: string, finals: [string, string], options: readonly string[]): Pick<Choice, 'kept' | 'how'> {
  const keep = /KEEP:\s*([12])\b/i.exec(text);
  if (keep) return { kept: keep[1] === '2' ? 2 : 1, how: 'keep-line' };
  const final = /FINAL ANSWER:\s*(.+)$/im.exec(text)?.[1]?.trim() ?? '';
  const picked = scienceqaChoice(final, options);
  if (picked >= 0) {
    if (scienceqaChoice(finals[0], options) === picked) return { kept: 1, how: 'final-answer' };
    if (scienceqaChoice(finals[1], options) === picked) return { kept: 2, how: 'final-answer' };
  }
  return { kept: 1, how: 'default' };
}

export async function chooseCandidate(ctx: PipelineContext, withRetrieval: Candidate, without: Candidate): Promise<Choice> {
  const q = ctx.question;
  const options = Array.isArray(q.meta?.choices) ? (q.meta.choices as unknown[]).map(String) : [];
  const task: ChooseTask = { role: 'dualg-choose', question: q.question, options, candidates: [withRetrieval.final, without.final] };
  const content = fillPrompt('dualg-choose', {
    question: q.question,
    context: questionContext(q),
    options: optionLines(q),
    withRetrieval: withRetrieval.text,
    withoutRetrieval: without.text,
  });
  const res = await ctx
    .model('synth')
    .chat({ stage: 'synth', messages: [{ role: 'user', content }], temperature: 0, maxTokens: 512, questionId: q.id, task }, ctx.signal);
  const { kept, how } = keptOf(res.text, [withRetrieval.final, without.final], options);
  const by = res.backend === 'offline' ? 'offline rules (stand-in)' : `model ${res.model}`;
  return { kept, how, final: kept === 1 ? withRetrieval.final : without.final, by, raw: res.text };
}
