/**
 * The types of the seam between the runner and the indexes (lib/run/index-provider.ts builds them;
 * lib/run/per-document-index.ts too, which is why they live apart: no import circle).
 */
import type { Fragment } from '../corpus/types';
import type { Question } from '../bench/types';
import type { Embedder, Retriever } from '../index/types';
import type { ChatModel, Stage } from '../model-api/types';
import type { KnowledgeBase } from '../pipeline/knowledge-base';

/** What a pipeline gets about the index of its question. */
export interface QuestionIndex {
  retriever: Retriever;
  fragment?: (fragmentId: string) => Fragment | undefined;
  docTitle?: (docId: string) => string | undefined;
  /** The knowledge-base view of the question (restricted to its document on single-document benchmarks). */
  kb?: KnowledgeBase;
}

/** Gives the index of a question; undefined = no retrieval (closed book). A plain Retriever is accepted too. */
export type RetrieverProvider = (question: Question) => Promise<QuestionIndex | Retriever | undefined>;

/** Facts about the opened index for the run manifest. */
export interface IndexInfo {
  dir: string;
  /** True when this run built or updated it (index.build = "ensure"). */
  built?: boolean;
  generation?: string;
  embedder?: unknown;
  offline?: boolean;
  /** Which fragments carry model and offline descriptions (the index manifest's `descriptions`). */
  descriptions?: { by: 'model' | 'offline'; model: number; offline: number; failed: number };
  backends?: unknown;
  counts?: unknown;
  builtAt?: string;
  /** `kp-index/<key>` when the index is an artifact (index.artifact). */
  artifact?: string;
  /** index.perDocument: each document's own index folder (and whether this run built it). */
  perDocument?: { doc: string; dir: string; built: boolean }[];
  /** A hosted knowledge base (index.kb = remote:<uuid>): its package id, server root and card name (never the key). */
  remote?: { uuid: string; baseUrl: string; name?: string; documents?: number };
}

/** The models an index build may use (the run's router). */
export interface IndexModelsLike {
  forStage(stage: Stage): ChatModel;
  embedder?(): Embedder | undefined;
}

export interface ConfiguredIndex {
  provider: RetrieverProvider;
  /** Open (building first with index.build = "ensure"); the runner calls it before the first question so a missing index fails the run at once. */
  open(): Promise<unknown>;
  info(): IndexInfo;
}
