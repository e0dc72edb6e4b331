/**
 * Task payloads of the answer stages (lib/answer): the structured inputs the vision reader,
 * the synthesizer and the format checker attach to `ChatRequest.task`. Real models ignore
 * them (they read the prompt); the offline handlers read them instead (reply formats:
 * lib/knowforge/offline/tasks.ts). Type aliases, not interfaces, so they are assignable to
 * ChatRequest.task (Record<string, unknown>).
 */
import type { AnswerConvention } from '../bench/spec';
import type { ImageRef } from '../corpus/offline/tasks';
import type { FragmentKind, TableData } from '../corpus/types';

export type VisionTask = {
  role: 'vision';
  question: string;
  image?: ImageRef;
  /** OCR text already known for this asset (skips OCR). */
  ocrText?: string;
  caption?: string;
  fragmentId?: string;
};

/** One numbered material block given to the synthesizer. */
export interface Material {
  /** Its number in the rendered pool ([N] / [fig N]). */
  n: number | string;
  kind: FragmentKind;
  text: string;
  table?: TableData;
  ocrText?: string;
  caption?: string;
  fragmentId?: string;
  source?: string;
}

export type SynthTask = {
  role: 'synth';
  question: string;
  materials: Material[];
  /** Reader notes (read_media answers, fragment_context results). */
  notes?: string[];
  convention?: AnswerConvention;
};

export type CheckerTask = {
  role: 'checker';
  question: string;
  /** The synthesizer's full answer text. */
  answer: string;
  convention: AnswerConvention;
};
