/** A retriever as a plug-in declares it (lib/pipeline/retrievers.ts registers it as a search mode). */
import type { ModeRetriever } from './engine-knowledge-base';
import type { KnowledgeBase } from './knowledge-base';
import type { ModelsConfig } from '../models/config';

/** What a retriever gets to set itself up for one corpus. */
export interface RetrieverSetup {
  /** The engine-backed view of the corpus (fragments, documents, the hybrid fallback). */
  kb: KnowledgeBase;
  /** Folder of the opened index (artifacts derived from it are keyed on its manifest). */
  indexDir?: string;
  /** Retriever settings from the experiment / CLI (validated by the retriever). */
  settings: Record<string, unknown>;
  /** The run's [models] table (its routes over the environment's): which stages a model serves. */
  models?: ModelsConfig;
  /** Questions that may be used for training, when the caller has some (k-fold is the caller's or the retriever's job). */
  trainQuestions?: unknown[];
  log?(line: string): void;
  signal?: AbortSignal;
}

export interface RetrieverEntry {
  name: string;
  description: string;
  /** Prepare (build or open derived artifacts) and return the search function. */
  create(setup: RetrieverSetup): Promise<ModeRetriever>;
}
