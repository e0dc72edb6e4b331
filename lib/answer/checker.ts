/**
 * The format checker (KnowForge job 6, second half): one model call that is
 * shown the question and the answer text alone -- no materials, so all it can
 * do is shorten or normalise, never add facts -- and rewrites the FINAL ANSWER value into the
 * benchmark's convention. Its value replaces the synthesizer's final line.
 *
 * A malformed checker reply never loses the synthesizer's answer: the original
 * final line is kept and the failure is reported (traced) instead.
 */
import type { Question } from '../bench/types';
import type { ChatMessage, ChatModel, ChatResponse } from '../model-api/types';
import type { CheckerTask } from './tasks';
import { findJsonObject } from '../model-api/json-repair';
import type { Convention } from '../pipeline/types';
import { findFinalAnswer, formatFinalValue, replaceFinalAnswer } from './final-answer';
import { fillPrompt, hasPrompt, loadPrompt } from '../util/prompts';

export interface CheckInput {
  question: Question;
  convention: Convention;
  answerText: string;
}

export interface CheckOutput {
  /** The answer text with its final line replaced by the checker's value (unchanged on a parse failure). */
  text: string;
  final: string;
  changed: boolean;
  response: ChatResponse;
  /** Why the checker's reply was not used, when it was not. */
  parseError?: string;
}

/** Parse `{"final": "..."}` / `{"final": [..]}` from a reply that may carry fences, prose or a truncated object (shared JSON repair). */
export function parseCheckerReply(text: string): string | string[] | undefined {
  const found = findJsonObject(text, (v) => 'final' in v);
  if (!found) return undefined;
  const v = found.value.final;
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((x) => String(x));
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/**
 * The checker's messages: one user message from `checker-<convention>` (the project's layout), or, when the
 * prompt pack splits it as the released runner does, a system message `checker-<convention>-system` with the
 * rules and a user message `checker-user` with the question and the answer text.
 */
export function checkerMessages(convention: Convention, question: string, answer: string): ChatMessage[] {
  const system = `checker-${convention}-system`;
  if (hasPrompt(system) && hasPrompt('checker-user'))
    return [
      { role: 'system', content: loadPrompt(system) },
      { role: 'user', content: fillPrompt('checker-user', { question, answer }) },
    ];
  return [{ role: 'user', content: fillPrompt(`checker-${convention}`, { question, answer }) }];
}

export async function checkFormat(model: ChatModel, input: CheckInput, signal?: AbortSignal): Promise<CheckOutput> {
  const response = await model.chat(
    {
      stage: 'checker',
      messages: checkerMessages(input.convention, input.question.question, input.answerText),
      temperature: 0,
      maxTokens: 512,
      json: true,
      questionId: input.question.id,
      task: { role: 'checker', question: input.question.question, answer: input.answerText, convention: input.convention } satisfies CheckerTask,
    },
    signal,
  );
  const original = findFinalAnswer(input.answerText) ?? '';
  const value = parseCheckerReply(response.text);
  if (value === undefined || (typeof value === 'string' && !value.trim() && original)) {
    return {
      text: input.answerText,
      final: original,
      changed: false,
      response,
      parseError: `checker reply had no usable "final" value: ${JSON.stringify(response.text.slice(0, 200))}`,
    };
  }
  const final = formatFinalValue(value);
  return { text: replaceFinalAnswer(input.answerText, final), final, changed: final !== original, response };
}
