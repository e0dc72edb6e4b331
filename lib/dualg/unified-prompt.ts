/**
 * The paper's one unified generation prompt (Appendix C.2: one system prompt for every method; 4.4.3: the
 * decoded paths verbalised step by step with their source snippets; 4.1: up to k_v raw images): a system
 * message, then one user message with the question (and its own context), the path section (absent when
 * the paths are not injected: w/o Path, or WebQA's bypass of simple questions), the evidence passages, the
 * note of the attached images and the benchmark's answer form; the images follow as image parts. The texts
 * are ours (prompts/dualg-generate-*.txt, dualg-form-*.txt). KnowForge's guardrail is appended only when an
 * experiment asks for it (setting `guardrail`), and the request says so in its task.
 */
import type { Question } from '../bench/types';
import type { ChatMessage } from '../model-api/types';
import { guardrail as conventionGuardrail } from '../answer/conventions';
import type { EvidencePool } from '../answer/pool';
import { synthTask } from '../answer/synthesizer';
import type { SynthTask } from '../answer/tasks';
import type { Convention } from '../pipeline/types';
import { fillPrompt, loadPrompt } from '../util/prompts';
import { formInstruction, questionContext, type AnswerForm } from './answer-form';
import type { ImagePart } from './generate';

export interface UnifiedInput {
  question: Question;
  convention: Convention;
  form: AnswerForm;
  /** The path section (paths + snippets), '' when no path is injected. */
  paths: string;
  /** The retrieved evidence (undefined: the candidate without retrieval). */
  pool?: EvidencePool;
  images: readonly ImagePart[];
  /** Append KnowForge's guardrail of the convention (only where an experiment asks for it). */
  guardrail?: boolean;
}

/** The messages of one unified generation call. */
export function unifiedMessages(input: UnifiedInput): ChatMessage[] {
  const q = input.question;
  const materials = input.pool?.text?.trim() || '(no passages were retrieved)';
  const images = input.images.length ? fillPrompt('dualg-generate-images', { count: String(input.images.length) }) : '';
  const form = formInstruction(input.form, q);
  const user = fillPrompt('dualg-generate-user', {
    question: q.question,
    context: questionContext(q),
    paths: input.paths,
    materials,
    images,
    form: input.guardrail ? `${form}\n${conventionGuardrail(input.convention)}` : form,
  });
  const system: ChatMessage = { role: 'system', content: loadPrompt('dualg-generate-system') };
  if (!input.images.length) return [system, { role: 'user', content: user }];
  return [system, { role: 'user', content: [{ type: 'text', text: user }, ...input.images] }];
}

/** What the offline backend reads instead of the prompt: the synthesizer's task over the same materials. */
export function unifiedTask(input: UnifiedInput): SynthTask & { generator: 'dualg-unified'; form: AnswerForm } {
  const base = synthTask({ question: input.question, convention: input.convention, template: 'ours', ...(input.pool ? { pool: input.pool } : {}) });
  return { ...base, generator: 'dualg-unified', form: input.form };
}
