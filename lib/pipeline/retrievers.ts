/**
 * Retrievers beyond the engine's four modes (issue 9 "knowledge-base view"): a
 * retriever is registered by name ('dualg', 'ppr', a test's toy), becomes a
 * search mode of every knowledge base (`kb.search(q, {mode: 'dualg'})`), and is
 * selectable by `kf eval retrieval --retriever <name>` and by experiment configs
 * (`index.retriever`). A retriever module registers itself when loaded; modules
 * outside lib/ are named in KF_RETRIEVER_MODULES (paths separated by ':').
 */
import type { ModeRetriever } from '../index/knowledge-base';
import type { KnowledgeBase } from './knowledge-base';

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
  log?(line: string): void;
  signal?: AbortSignal;
}

export interface RetrieverEntry {
  name: string;
  description: string;
  /** Prepare (build or open derived artifacts) and return the search function. */
  create(setup: RetrieverSetup): Promise<ModeRetriever>;
}

const entries = new Map<string, RetrieverEntry>();

export function registerRetriever(entry: RetrieverEntry, opts: { replace?: boolean } = {}): void {
  if (entries.has(entry.name) && !opts.replace) throw new Error(`retriever ${entry.name} is already registered`);
  entries.set(entry.name, entry);
}

export function unregisterRetriever(name: string): boolean {
  return entries.delete(name);
}

export function getRetriever(name: string): RetrieverEntry | undefined {
  return entries.get(name);
}

export function retrieverNames(): string[] {
  return [...entries.keys()].sort();
}
