/**
 * Retrievers beyond the engine's four modes (issue 9 "knowledge-base view"): a
 * retriever is registered by name ('dualg', 'ppr', a test's toy), becomes a
 * search mode of every knowledge base (`kb.search(q, {mode: 'dualg'})`), and is
 * selectable by `kf eval retrieval --retriever <name>` and by experiment configs
 * (`index.retriever`). Retrievers come from the plug-ins' manifests (lib/pipeline/plugins.ts;
 * modules outside lib/ are named in KF_PLUGINS).
 */
import type { ModeRetriever } from './engine-knowledge-base';
import { RETRIEVAL_MODES } from '../index/types';
import type { RetrieverEntry, RetrieverSetup } from './retriever-entry';
import { loadPlugins, onPlugin } from './plugins';
import { didYouMean } from '../util/did-you-mean';
import { Registry } from '../util/registry';
import { KfError } from '../util/errors';

export type { RetrieverEntry, RetrieverSetup } from './retriever-entry';

const entries = new Registry<RetrieverEntry>('retriever');

export function registerRetriever(entry: RetrieverEntry, opts: { replace?: boolean } = {}): void {
  if ((RETRIEVAL_MODES as readonly string[]).includes(entry.name))
    throw new KfError('retriever_exists', `retriever ${entry.name} would shadow the engine mode of that name`, 'pick another retriever name', {
      concerns: entry.name,
    });
  entries.add(entry.name, entry, opts);
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
  return entries.names().sort();
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

/** What a settings check says of a retriever name that is no search mode (the nearest name, else the known ones); undefined for a search mode. */
export function unknownRetrieverMessage(name: string): string | undefined {
  if (isSearchMode(name)) return undefined;
  const names = searchModeNames();
  const near = didYouMean(name, names);
  return `names no registered retriever ("${name}")${near ? `; did you mean "${near}"?` : `; known: ${names.join(', ')}`}`;
}

/** Load the plug-ins (lib/pipeline/plugins.ts): their retrievers are registered through the installer below. */
export function loadRetrieverModules(): void {
  loadPlugins();
}

onPlugin((p) => {
  for (const r of p.retrievers ?? []) if (entries.get(r.name) !== r) registerRetriever(r);
});

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
