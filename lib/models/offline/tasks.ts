/**
 * Task payloads: the structured inputs each role attaches to `ChatRequest.task`.
 * Real models ignore them (they read the prompt); the offline backend reads
 * them instead of parsing prompts, and replies in the SAME textual format a real
 * model is asked for, so every parsing path runs offline too.
 *
 * Reply formats (what the offline backend writes; prompts should ask real models
 * for the same):
 *   locator / reader / agent  one JSON object per round: {"thought", "tool", "args"} or {"thought", "final": "ok"};
 *                             with the native tools protocol (request has `tools`): tool_calls, then a short text
 *   judge       {"need_more": bool, "bridge_entities": [..<=3], "queries": [..], "reason": "<=200 chars"}
 *   vision      two lines: "Where: <where in the image>" and "Answer: <one line>"
 *   synth       prose citing [N] / [fig N], ending with "FINAL ANSWER: <value>"
 *   checker     {"final": "<value>"} or {"final": ["a", "b"]}
 *   scorer      "Extracted answer: <short answer>" and "Answer format: Integer|Float|String|List|None" (MMLongBench-Doc)
 *   extraction  {"points": [{"title", "summary", "fragment_id"}]}
 *   relations   {"relations": [{"from", "to", "type"}]}        (offline: type "similar")
 *   openie      {"triples": [["head", "relation", "tail"], ...]}
 *   pattern     {"conditions": [["head", "relation", "tail"]], "target": "...", "visual_budget": k}  ("?x" = wildcard)
 *   caption     "Caption: <one sentence>" and "Text in image: <OCR text or none>"
 */
import type { FragmentKind, TableData } from '../../corpus/types';

// Task payloads are type aliases, not interfaces, so they are assignable to ChatRequest.task (Record<string, unknown>).

/** Benchmark answer conventions (same union as lib/run/types Convention; repeated here so models never imports run). */
export type AnswerConvention = 'm3docvqa' | 'mmlongbench' | 'multihoprag' | 'generic';

/** An image the role looks at: a path (absolute or relative to the working directory) or a data URL. */
export interface ImageRef {
  path?: string;
  dataUrl?: string;
  mime?: string;
}

export type LocatorTask = {
  role: 'locator';
  question: string;
  /** Name of the search tool (default search_knowledge) and its top-k (default 8). */
  searchTool?: string;
  topk?: number;
  /** Most queries the offline policy issues (default 3; it always leaves a round to finish). */
  maxQueries?: number;
};

export type JudgeTask = {
  role: 'judge';
  question: string;
  /** Queries already run (locator and earlier bridges). */
  queriesRun: string[];
  /** The first 8,000 characters of the rendered pool. */
  pool: string;
};

/** A media block of the evidence pool the reader may open. */
export interface PoolMedia {
  fragmentId: string;
  kind: FragmentKind;
  label?: string;
  caption?: string;
  /** Description text (VLM or offline). */
  text?: string;
  page?: number;
}

export type ReaderTask = {
  role: 'reader';
  question: string;
  media: PoolMedia[];
  /** Name of the reading tool (default read_media). */
  readTool?: string;
  /** Most media opened (default 2). */
  maxReads?: number;
};

/** P0: one agent with every tool: the locator's queries, then the reader's reads. */
export type AgentTask = {
  role: 'agent';
  question: string;
  media?: PoolMedia[];
  searchTool?: string;
  readTool?: string;
  topk?: number;
  maxQueries?: number;
  maxReads?: number;
};

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

export type ScorerTask = {
  role: 'scorer';
  question: string;
  /** The response to extract the short answer from. */
  response: string;
  /** MMLongBench-Doc answer format when known (Int, Float, Str, List, None). */
  answerFormat?: string;
};

export type ExtractionTask = {
  role: 'extraction';
  fragments: { id: string; text: string; section?: string[] }[];
  /** Most points per fragment (default 8). */
  maxPerFragment?: number;
};

export type RelationsTask = {
  role: 'relations';
  pairs: { from: string; to: string; similarity?: number; fromText?: string; toText?: string }[];
};

export type OpenIETask = {
  role: 'openie';
  text: string;
  fragmentId?: string;
  /** Most triples (default 20). */
  maxTriples?: number;
};

export type PatternTask = {
  role: 'pattern';
  question: string;
  /** Visual budget when the question is about images (default 2). */
  maxImages?: number;
};

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

export type OfflineTask =
  | LocatorTask
  | JudgeTask
  | ReaderTask
  | AgentTask
  | VisionTask
  | SynthTask
  | CheckerTask
  | ScorerTask
  | ExtractionTask
  | RelationsTask
  | OpenIETask
  | PatternTask
  | CaptionTask;

export type OfflineRole = OfflineTask['role'];

export const OFFLINE_ROLES: readonly OfflineRole[] = [
  'locator', 'judge', 'reader', 'agent', 'vision', 'synth', 'checker', 'scorer', 'extraction', 'relations', 'openie', 'pattern', 'caption',
];

/** The role a stage plays when a task does not name one (stage names are the defaults). */
export const ROLE_OF_STAGE: Record<string, OfflineRole> = {
  locator: 'locator', judge: 'judge', bridge: 'judge', reader: 'reader', agent: 'agent', p0: 'agent', vision: 'vision', synth: 'synth',
  checker: 'checker', scorer: 'scorer', extraction: 'extraction', relations: 'relations', openie: 'openie', pattern: 'pattern', caption: 'caption',
};
