/**
 * The contract between the runner (config -> records) and the pipelines
 * (KnowForge modes S0..P1, DualG-MRAG). A pipeline answers ONE question; the
 * runner owns concurrency, resumption, scoring, ledgers and files.
 */
import type { Fragment } from '../corpus/types';
import type { Question } from '../bench/types';
import type { Retriever } from '../index/types';
import type { RetrievalLog } from '../eval/retrieval-log';
import type { ChatModel, Stage } from '../model-api/types';
import type { AnswerConvention } from '../bench/spec';
import type { Rng } from '../util/rng';
import type { KnowledgeBase } from './knowledge-base';

// The retrieval log is defined beside its metrics (eval sits below the contract); pipelines return it.
export type { RetrievalLog };

/** Benchmark answer conventions (prompt rule paragraph + format checker rules). */
// Declared once, by the benchmark registry (each benchmark's entry names its convention).
export type Convention = AnswerConvention;

/** What a pipeline may use. Everything is injected: tests swap any of it. */
export interface PipelineContext {
  question: Question;
  /** Model for a stage, with cache, ledger, retries and routing applied (lib/models). */
  model(stage: Stage): ChatModel;
  /**
   * The knowledge-base view of this question's corpus (restricted to the question's
   * document for single-document benchmarks); absent for closed-book S0. New
   * pipelines use this, not `retriever` / `fragment` / `docTitle`.
   */
  kb?: KnowledgeBase;
  /** The index for this question's corpus (absent for closed-book S0). */
  retriever?: Retriever;
  /** Full fragments of that index by id (media descriptions, reading tools). */
  fragment?: (fragmentId: string) => Fragment | undefined;
  /** Document titles for source labels. */
  docTitle?: (docId: string) => string | undefined;
  convention: Convention;
  /** Pipeline-specific settings from the experiment config (caps, rounds, template...). */
  settings: Record<string, unknown>;
  /** Seeded per question: `${seed}/${question.id}`. */
  rng: Rng;
  signal: AbortSignal;
  /** Append one event to this question's trace (tool calls, searches, pool stats...). */
  trace(event: TraceEvent): void;
}

export interface TraceEvent {
  kind: string;
  [key: string]: unknown;
}

export interface PipelineResult {
  /** The full answer text (synthesizer output, after the checker replaced its final line). */
  prediction: string;
  /** The value of the last `FINAL ANSWER:` line: what is scored. */
  finalAnswer: string;
  retrieval?: RetrievalLog;
  /** Usage counters of the agents (searches, reads, forced stops, rounds...). */
  counters?: Record<string, number>;
  /**
   * Which variant of a retriever ranked this question's evidence, when the pipeline's retriever reports one
   * (DualG: scorer, checkpoint id, its training data, preset, size, removed parts): kept in the record and the
   * manifest so a stand-in scorer can never pass for the paper's method.
   */
  system?: { label: string; [fact: string]: unknown };
  /**
   * Departures from the paper on this question (a stand-in, a fallback, a variant: "DualG: answered from hybrid
   * fallback"); the runner records them per question and counts them per run (lib/run/departures.ts).
   */
  departures?: string[];
}

export interface Pipeline {
  /** Configuration name, e.g. 'S4', 'M5'. */
  readonly name: string;
  readonly description: string;
  /** True when the pipeline searches an index: the runner refuses to start without one. */
  readonly needsIndex?: boolean;
  /** The prompt pack its model calls send (name and sha256), recorded in the manifest and every record. */
  readonly promptPack?: { name: string; sha256: string };
  run(ctx: PipelineContext): Promise<PipelineResult>;
}
