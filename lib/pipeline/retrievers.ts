/**
 * Retrievers beyond the engine's four modes (issue 9 "knowledge-base view"): a
 * retriever is registered by name ('dualg', 'ppr', a test's toy), becomes a
 * search mode of every knowledge base (`kb.search(q, {mode: 'dualg'})`), and is
 * selectable by `kf eval retrieval --retriever <name>` and by experiment configs
 * (`index.retriever`). A retriever module registers itself when loaded; modules
 * outside lib/ are named in KF_RETRIEVER_MODULES (paths separated by ':').
 */
import * as path from 'node:path';
import type { ModeRetriever } from '../index/knowledge-base';
import { RETRIEVAL_MODES } from '../index/types';
import { KfError, errorMessage } from '../util/errors';
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
  if (entries.has(entry.name) && entries.get(entry.name) !== entry && !opts.replace) throw new Error(`retriever ${entry.name} is already registered`);
  if ((RETRIEVAL_MODES as readonly string[]).includes(entry.name)) throw new Error(`retriever ${entry.name} would shadow the engine mode of that name`);
  entries.set(entry.name, entry);
}

export function unregisterRetriever(name: string): boolean {
  return entries.delete(name);
}

export function getRetriever(name: string): RetrieverEntry | undefined {
  loadRetrieverModules();
  return entries.get(name);
}

export function retrieverNames(): string[] {
  loadRetrieverModules();
  return [...entries.keys()].sort();
}

/** A search mode a knowledge base answers: one of the engine's modes or a registered retriever. */
export function isSearchMode(name: string): boolean {
  loadRetrieverModules();
  return (RETRIEVAL_MODES as readonly string[]).includes(name) || entries.has(name);
}

/** Every search mode: the engine's, then the registered retrievers. */
export function searchModeNames(): string[] {
  loadRetrieverModules();
  return [...RETRIEVAL_MODES, ...retrieverNames()];
}

/** Modules that register retrievers when loaded: built-in ones (skipped when absent) and KF_RETRIEVER_MODULES. */
const BUILT_IN_MODULES = ['../dualg/retriever'];
const loadedModules = new Set<string>();

/** Load the retriever modules (idempotent per module; KF_RETRIEVER_MODULES is read on every call so tests can set it). */
export function loadRetrieverModules(): void {
  const own = (process.env.KF_RETRIEVER_MODULES ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((f) => path.resolve(f));
  for (const mod of [...BUILT_IN_MODULES, ...own]) {
    if (loadedModules.has(mod)) continue;
    loadedModules.add(mod);
    let m: Record<string, unknown>;
    try {
      m = require(mod) as Record<string, unknown>;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      const missing =
        err?.code === 'MODULE_NOT_FOUND' &&
        String(err.message)
          .split('\n')[0]
          .includes(mod.replace(/^\.\.\//, ''));
      if (missing && !own.includes(mod)) continue;
      loadedModules.delete(mod);
      throw new KfError(
        'retriever_module',
        `cannot load retriever module ${mod}: ${errorMessage(e).split('\n')[0]}`,
        'fix the path in KF_RETRIEVER_MODULES or the module',
        { concerns: mod, cause: e },
      );
    }
    if (typeof m.register === 'function') (m.register as () => void)();
  }
}

/**
 * Every registered retriever as a search mode of a knowledge base, each created
 * (`entry.create`) on its first search only: a run that never searches 'dualg'
 * never builds its graph. `setup` is called then, so it may refer to the
 * knowledge base these modes are given to.
 */
export function lazyRetrieverModes(setup: (name: string) => RetrieverSetup): Record<string, ModeRetriever> {
  const out: Record<string, ModeRetriever> = {};
  for (const name of retrieverNames()) {
    let made: Promise<ModeRetriever> | undefined;
    out[name] = async (query, opts, kb) => {
      made ??= getRetriever(name)!.create(setup(name));
      return (await made)(query, opts, kb);
    };
  }
  return out;
}
