/**
 * Task payload of the caption role (corpus describe, lib/corpus/describe.ts):
 * what the offline caption handler reads instead of the prompt. Reply format:
 *   caption     "Caption: <one sentence>" and "Text in image: <OCR text or none>"
 */

// Task payloads are type aliases, not interfaces, so they are assignable to ChatRequest.task (Record<string, unknown>).

/** An image the role looks at: a path (absolute or relative to the working directory) or a data URL. */
export interface ImageRef {
  path?: string;
  dataUrl?: string;
  mime?: string;
}

export type CaptionTask = {
  role: 'caption';
  image?: ImageRef;
  ocrText?: string;
  /** Caption or alt text printed in the source, if any. */
  caption?: string;
  label?: string;
  /** Nearby text (section title, surrounding paragraph). */
  context?: string;
};
