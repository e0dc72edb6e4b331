/**
 * Saving and loading a DualGraph: `graph.json` (entities, aliases, documents,
 * relations, micro facts), `triples.json` (column arrays) and `manifest.json`
 * (the artifact manifest: kind 'dualg-graph', version, the index identity it
 * was built from). Loading with an expected identity refuses a graph built for
 * another index, naming both.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../../util/errors';
import { readJson, writeJsonAtomic } from '../../util/fsx';
import { DUALG_GRAPH_VERSION } from './build';
import type { DualGraph, MacroTriple } from './types';

export const DUALG_GRAPH_KIND = 'dualg-graph';

interface TripleColumns {
  head: number[];
  rel: number[];
  tail: number[];
  doc: number[];
  weight: number[];
  context: (string | null)[];
  lead: (string | null)[];
}

/** Write the graph's files into `dir` (created); the manifest is written by the artifact store or `saveGraph`. */
export function writeGraphFiles(dir: string, g: DualGraph): void {
  fs.mkdirSync(dir, { recursive: true });
  const { triples, aliases, ...rest } = g;
  writeJsonAtomic(path.join(dir, 'graph.json'), { ...rest, aliases: [...aliases.entries()] });
  const cols: TripleColumns = { head: [], rel: [], tail: [], doc: [], weight: [], context: [], lead: [] };
  for (const t of triples) {
    cols.head.push(t.head);
    cols.rel.push(t.rel);
    cols.tail.push(t.tail);
    cols.doc.push(t.doc);
    cols.weight.push(Math.round(t.weight * 1e4) / 1e4);
    cols.context.push(t.context ?? null);
    cols.lead.push(t.lead ?? null);
  }
  writeJsonAtomic(path.join(dir, 'triples.json'), cols);
}

/** A standalone save (no artifact store): files plus a manifest recording the source identity. */
export function saveGraph(dir: string, g: DualGraph): void {
  writeGraphFiles(dir, g);
  writeJsonAtomic(path.join(dir, 'manifest.json'), {
    kind: DUALG_GRAPH_KIND,
    version: g.meta.version,
    key: g.meta.source.fingerprint,
    inputs: { index: g.meta.source.fingerprint },
    settings: g.meta.settings,
    dependsOn: [],
    createdAt: new Date().toISOString(),
    stats: g.meta.stats,
  });
}

/** Load a graph; with `expect`, refuse one built from another index (or by another graph version). */
export function loadGraph(dir: string, expect?: { fingerprint: string }): DualGraph {
  const gj = path.join(dir, 'graph.json');
  if (!fs.existsSync(gj))
    throw new KfError(
      'graph_missing',
      `no DualG graph in ${dir} (graph.json missing)`,
      'build it: kf eval retrieval --retriever dualg builds it on first use',
      { concerns: dir },
    );
  const raw = readJson<Omit<DualGraph, 'aliases' | 'triples'> & { aliases: [string, number[]][] }>(gj, 'DualG graph');
  if (raw.meta?.version !== DUALG_GRAPH_VERSION) {
    throw new KfError(
      'graph_stale',
      `the DualG graph in ${dir} has version ${raw.meta?.version}, this code reads ${DUALG_GRAPH_VERSION}`,
      'rebuild the graph (delete the folder)',
      { concerns: dir },
    );
  }
  if (expect && raw.meta.source.fingerprint !== expect.fingerprint) {
    throw new KfError(
      'foreign_graph',
      `the DualG graph in ${dir} was built for index ${raw.meta.source.id} (${raw.meta.source.fingerprint}), not for this index (${expect.fingerprint})`,
      'build a graph for this index (another graph folder), or open the index it was built for',
      { concerns: dir },
    );
  }
  const c = readJson<TripleColumns>(path.join(dir, 'triples.json'), 'DualG triples');
  const triples: MacroTriple[] = c.head.map((head, i) => ({
    head,
    rel: c.rel[i],
    tail: c.tail[i],
    doc: c.doc[i],
    weight: c.weight[i],
    ...(c.context[i] ? { context: c.context[i]! } : {}),
    ...(c.lead[i] ? { lead: c.lead[i]! } : {}),
  }));
  return { ...raw, aliases: new Map(raw.aliases), triples };
}
