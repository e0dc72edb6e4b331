/**
 * The synthesizer (KnowForge job 6, first half): one model call that writes the
 * answer from the evidence pool and the reader's notes, citing [N]/[fig N] and
 * ending with a `FINAL ANSWER:` line. Reused unchanged by every configuration.
 *
 * Templates: 'ours' (S4v1 and the M-configurations), 'm3docrag' (an answer
 * template in the style of the M3DocRAG baseline: S4, M5OFF), 'closed-book' (S0).
 * The runner's temperature for this call is 0.3 (everything else runs at 0).
 */
import type { Question } from '../bench/types';
import type { ChatMessage, ChatModel, ChatResponse, ContentPart } from '../model-api/types';

type ImagePart = Extract<ContentPart, { type: 'image' }>;
import type { Material, SynthTask } from './tasks';
import type { Convention } from '../pipeline/types';
import { guardrail, ruleParagraph } from './conventions';
import { findFinalAnswer } from './final-answer';
import type { EvidencePool } from './pool';
import { mediaName } from './block-format';
import { fillPrompt } from '../util/prompts';

export type SynthTemplate = 'ours' | 'm3docrag' | 'closed-book';

export interface SynthInput {
  question: Question;
  convention: Convention;
  template: SynthTemplate;
  pool?: EvidencePool;
  /** Reading notes of the Deep Reader (appended to the pool). */
  notes?: string[];
  /** Set when a role hit its round cap: the synthesizer is told (spec: "the synthesizer is told"). */
  forcedStop?: string;
  temperature?: number;
  maxTokens?: number;
  /** Raw images sent with the materials as image parts (DualG-MRAG: up to k_v; the synth stage must be a VLM). */
  images?: ImagePart[];
}

export interface SynthOutput {
  text: string;
  /** Value of its FINAL ANSWER line (undefined when the model wrote none). */
  final: string | undefined;
  response: ChatResponse;
  messages: ChatMessage[];
}

export const SYNTH_TEMPERATURE = 0.3;

/** The exact messages of a synthesizer call (exported for tests and for inspecting prompts in notebooks). */
export function synthMessages(input: SynthInput): ChatMessage[] {
  const messages = textMessages(input);
  if (!input.images?.length) return messages;
  // The images follow the text of the last user message, as one multimodal message.
  const last = messages[messages.length - 1];
  return [...messages.slice(0, -1), { ...last, content: [{ type: 'text', text: String(last.content) }, ...input.images] }];
}

function textMessages(input: SynthInput): ChatMessage[] {
  const q = input.question.question;
  const materials = input.pool?.text?.trim() || '(no materials were found)';
  const notesList = [...(input.notes ?? [])];
  if (input.forcedStop) notesList.push(`Note: ${input.forcedStop}`);
  const notes = notesList.length ? `\nReading notes:\n${notesList.map((n) => `- ${n}`).join('\n')}\n` : '';
  const g = guardrail(input.convention);
  if (input.template === 'closed-book') {
    return [{ role: 'user', content: fillPrompt('synth-closed-book', { question: q, guardrail: g }) }];
  }
  if (input.template === 'm3docrag') {
    const ctx = notes ? `${materials}\n${notes}` : materials;
    return [{ role: 'user', content: fillPrompt('synth-m3docrag-user', { question: q, materials: ctx, guardrail: g }) }];
  }
  return [
    { role: 'system', content: fillPrompt('synth-system', { rule: ruleParagraph(input.convention) }) },
    { role: 'user', content: fillPrompt('synth-user', { question: q, materials, notes, guardrail: g }) },
  ];
}

/** The structured inputs the offline backend reads instead of the prompt (real models ignore them). */
export function synthTask(input: SynthInput): SynthTask {
  const pool = input.pool;
  const mediaRef = (n: number) => (pool?.format === 'runner' ? `[${mediaName(n)}]` : `fig ${n}`);
  const materials: Material[] = (pool?.blocks ?? []).map((b) => ({
    n: b.kind === 'image' || b.kind === 'table' ? mediaRef(pool?.numberOf.get(b.fragmentId) ?? 0) : (pool?.numberOf.get(b.fragmentId) ?? 0),
    kind: b.kind,
    text: b.text,
    table: b.table,
    ocrText: b.ocrText,
    caption: b.caption,
    fragmentId: b.fragmentId,
    source: b.source,
  }));
  return { role: 'synth', question: input.question.question, materials, notes: input.notes ?? [], convention: input.convention };
}

export async function synthesize(model: ChatModel, input: SynthInput, signal?: AbortSignal): Promise<SynthOutput> {
  const messages = synthMessages(input);
  const response = await model.chat(
    {
      stage: 'synth',
      messages,
      temperature: input.temperature ?? SYNTH_TEMPERATURE,
      maxTokens: input.maxTokens ?? 2048,
      questionId: input.question.id,
      task: synthTask(input),
    },
    signal,
  );
  return { text: response.text, final: findFinalAnswer(response.text), response, messages };
}
