/**
 * Task payloads of the KnowForge roles: the structured inputs each role attaches
 * to `ChatRequest.task`. Real models ignore them (they read the prompt); the
 * offline handlers (lib/knowforge/offline/handlers.ts, registered by
 * the plug-in manifests (lib/pipeline/plugins.ts)) read them instead of parsing prompts, and reply in the
 * SAME textual format a real model is asked for, so every parsing path runs
 * offline too. The other stages' tasks live beside their stages:
 * lib/index/offline/tasks.ts (extraction, relations), lib/dualg/offline/tasks.ts
 * (openie, pattern), lib/corpus/offline/tasks.ts (caption, ImageRef).
 *
 * Reply formats (what the offline handlers write; prompts should ask real models
 * for the same):
 *   locator / reader / agent  one JSON object per round: {"thought", "tool", "args"} or {"thought", "final": "ok"};
 *                             with the native tools protocol (request has `tools`): tool_calls, then a short text
 *   judge       {"need_more": bool, "bridge_entities": [..<=3], "queries": [..], "reason": "<=200 chars"}
 *   vision      two lines: "Where: <where in the image>" and "Answer: <one line>"
 *   synth       prose citing [N] / [fig N], ending with "FINAL ANSWER: <value>"
 *   checker     {"final": "<value>"} or {"final": ["a", "b"]}
 *   scorer      "Extracted answer: <short answer>" and "Answer format: Integer|Float|String|List|None" (MMLongBench-Doc)
 */
import type { AnswerConvention } from '../../bench/spec';
import type { FragmentKind } from '../../corpus/types';

export type { ImageRef } from '../../corpus/offline/tasks';
/** The answer stages' tasks (vision, synth, checker) live with them in lib/answer/tasks.ts. */
export type { CheckerTask, Material, SynthTask, VisionTask } from '../../answer/tasks';

// Task payloads are type aliases, not interfaces, so they are assignable to ChatRequest.task (Record<string, unknown>).

/** Benchmark answer conventions (declared once by lib/bench/spec.ts). */
export type { AnswerConvention };

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
  /** The judge may also drop pool blocks by number (configuration M5JD). */
  mayDrop?: boolean;
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

export type ScorerTask = {
  role: 'scorer';
  question: string;
  /** The response to extract the short answer from. */
  response: string;
  /** MMLongBench-Doc answer format when known (Int, Float, Str, List, None). */
  answerFormat?: string;
};
