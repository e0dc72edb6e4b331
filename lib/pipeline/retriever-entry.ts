/** A retriever as a plug-in declares it (lib/pipeline/retrievers.ts registers it as a search mode). */
import type { ModeRetriever } from './engine-knowledge-base';
import type { KnowledgeBase } from './knowledge-base';
import type { Embedder } from '../model-api/types';

/** The run's models, handed in through the set-up (a retriever never builds its own router). */
export interface SetupModels {
  /** The run's embeddings stage, when the run (or its environment) configures one. */
  embedder?(): Embedder | undefined;
  /** Which backend serves a stage (the run's routes: its [models] table over the environment's); absent: the environment's. */
  backendOf?(stage: string): string;
}

/** What a retriever gets to set itself up for one corpus. */
export interface RetrieverSetup {
  /** The engine-backed view of the corpus (fragments, documents, the hybrid fallback). */
  kb: KnowledgeBase;
  /** Folder of the opened index (artifacts derived from it are keyed on its manifest). */
  indexDir?: string;
  /** Retriever settings from the experiment / CLI (validated by the retriever). */
  settings: Record<string, unknown>;
  /** Questions that may be used for training, when the caller has some (k-fold is the caller's or the retriever's job). */
  trainQuestions?: unknown[];
  /** The run's models (absent: model-free callers such as the retrieval notebooks; a retriever needing a model refuses). */
  models?: SetupModels;
  log?(line: string): void;
  signal?: AbortSignal;
}

export interface RetrieverEntry {
  name: string;
  description: string;
  /** Prepare (build or open derived artifacts) and return the search function. */
  create(setup: RetrieverSetup): Promise<ModeRetriever>;
}
