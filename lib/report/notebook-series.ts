/**
 * The notebook series of the loaded plug-ins (issue 16): which retrievers and configuration rows
 * each method adds to the comparison notebooks, read from the manifests (Plugin.notebookSeries)
 * so that no notebook names a method's retrievers or rows by hand. A plug-in loaded through
 * KF_PLUGINS shows up here like a built-in one.
 */
import type { NotebookTopic } from '../pipeline/plugin';
import { loadedPlugins } from '../pipeline/plugins';
import { configuration } from '../pipeline/registry';
import { getRetriever } from '../pipeline/retrievers';
import { RETRIEVAL_MODES } from '../index/types';

/** One member of a series: a retriever or configuration name, the plug-in that lists it, its label. */
export interface SeriesEntry {
  plugin: string;
  name: string;
  label: string;
  /** False when the name is not a registered retriever / configuration (the notebook says so). */
  known: boolean;
  /** Topic 'qa': the retriever the configuration row's settings name, if any. */
  retriever?: string;
}

function isKnown(topic: NotebookTopic, name: string): boolean {
  if (topic === 'qa') return configuration(name) !== undefined;
  return (RETRIEVAL_MODES as readonly string[]).includes(name) || getRetriever(name) !== undefined;
}

function retrieverOf(topic: NotebookTopic, name: string): { retriever?: string } {
  const r = topic === 'qa' ? configuration(name)?.settings?.retriever : undefined;
  return typeof r === 'string' ? { retriever: r } : {};
}

/**
 * The series of every loaded plug-in for a topic and set ('main' unless given), in load order and
 * in each series' own order.
 */
export function notebookSeries(topic: NotebookTopic, opts: { set?: string } = {}): SeriesEntry[] {
  const set = opts.set ?? 'main';
  const out: SeriesEntry[] = [];
  for (const p of loadedPlugins())
    for (const s of p.notebookSeries ?? []) {
      if (s.topic !== topic || (s.set ?? 'main') !== set) continue;
      for (const name of s.names) out.push({ plugin: p.name, name, label: s.labels?.[name] ?? name, known: isKnown(topic, name), ...retrieverOf(topic, name) });
    }
  return out;
}
