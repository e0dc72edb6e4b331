/**
 * The answer form of each benchmark as the DualG-MRAG paper reports it (experiment setting `answerForm`):
 * 'short' (MMQA, EM / F1 on a short answer; also the text multi-hop corpora), 'sentence' (WebQA, ROUGE-L
 * and BERTScore on a fluent sentence answer) and 'choice' (ScienceQA, accuracy on the option picked). The
 * form's instruction closes the unified prompt; the value scored is the reply's FINAL ANSWER line, which for
 * 'sentence' is the whole sentence (no format checker shortens it).
 */
import type { Question } from '../bench/types';
import { findFinalAnswer } from '../answer/final-answer';
import { ModelOutputError } from '../model-api/model-output-error';
import { KfError } from '../util/errors';
import { fillPrompt, loadPrompt } from '../util/prompts';

export const ANSWER_FORMS = ['short', 'sentence', 'choice'] as const;
export type AnswerForm = (typeof ANSWER_FORMS)[number];

const LETTERS = 'ABCDEFGHIJ';

/** The options of a multiple-choice question, one "(A) text" line each ('' when it has none). */
export function optionLines(q: Question): string {
  const choices = Array.isArray(q.meta?.choices) ? (q.meta.choices as unknown[]).map(String) : [];
  return choices.map((c, i) => `(${LETTERS[i] ?? i + 1}) ${c}`).join('\n');
}

/** The question's own context (ScienceQA's hint), as a line of the prompt ('' when none). */
export function questionContext(q: Question): string {
  const hint = typeof q.meta?.hint === 'string' ? q.meta.hint.trim() : '';
  return hint ? `Context: ${hint}` : '';
}

/** The closing instruction of the unified prompt for a form. */
export function formInstruction(form: AnswerForm, q: Question): string {
  if (form !== 'choice') return loadPrompt(`dualg-form-${form}`);
  const options = optionLines(q);
  if (!options)
    throw new KfError(
      'bad_setting',
      `question ${q.id} has no options but the answer form is "choice"`,
      'set answerForm = "short" or "sentence" for this benchmark',
      {
        concerns: q.id,
      },
    );
  return fillPrompt('dualg-form-choice', { options });
}

/**
 * The value scored from one generator reply: its FINAL ANSWER line; for 'sentence' a reply without the line
 * is its last non-empty line (a sentence answer may come bare). An empty value is a ModelOutputError: a
 * question without an answer is never scored as a refusal.
 */
export function answerValue(form: AnswerForm, text: string): string {
  const final = findFinalAnswer(text)?.trim();
  if (final) return final;
  if (form === 'sentence') {
    const last = text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean)
      .pop();
    if (last) return last;
  }
  throw new ModelOutputError('synth', 'no_final_answer', 'the generator reply holds no FINAL ANSWER line', text);
}
