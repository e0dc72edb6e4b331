/**
 * Where a graph's documents and fragments come from: a built index folder (read
 * straight from its saved fragments, without loading BM25/HNSW), a loaded
 * SearchEngine, or plain passages (tests, scripts). The identity recorded in the
 * graph's manifest (`id`, `fingerprint`) is the index's input key and
 * generation, so a graph is refused for any other index.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CorpusPassage } from '../../bench/types';
import type { Fragment } from '../../corpus/types';
import { readIndexManifest, readIndexedDocuments } from '../../index/open';
import { KfError } from '../../util/errors';
import { md5 } from '../../util/hash';
import type { GraphSource } from './build';

function groupByDoc(frags: Iterable<Fragment>): Map<string, Fragment[]> {
  const by = new Map<string, Fragment[]>();
  for (const f of frags) {
    const l = by.get(f.docId);
    if (l) l.push(f);
    else by.set(f.docId, [f]);
  }
  for (const l of by.values()) l.sort((a, b) => a.ordinal - b.ordinal);
  return by;
}

/** One text fragment per passage; the fingerprint hashes ids, titles and texts. */
export function sourceFromPassages(passages: CorpusPassage[], id = 'passages'): GraphSource {
  const frags = passages.map((p): Fragment => ({ id: `${p.id}#0`, docId: p.id, kind: 'text', text: p.text, section: [], ordinal: 0, attached: [] }));
  const by = groupByDoc(frags);
  const fingerprint = md5(passages.map((p) => `${p.id}\u0000${p.title}\u0000${p.text}`).join('\u0001'));
  return { id, fingerprint, documents: () => passages.map((p) => ({ id: p.id, title: p.title })), fragmentsOf: (d) => by.get(d) ?? [] };
}

/** An index's identity: what a graph built from it records and what opening the graph checks. */
export function indexIdentity(indexDir: string): { id: string; fingerprint: string; generationDir: string } {
  const m = readIndexManifest(indexDir);
  if (!m)
    throw new KfError('index_missing', `no built index in ${path.resolve(indexDir)}`, 'build it first (kf index build / kf eval retrieval)', {
      concerns: indexDir,
    });
  const root = path.resolve(indexDir);
  const generationDir = fs.existsSync(path.join(root, m.generation)) ? path.join(root, m.generation) : root;
  return { id: `${m.corpus.name}@${m.generation}`, fingerprint: `${m.inputKey}:${m.generation}`, generationDir };
}

function engineFragments(generationDir: string): Fragment[] {
  const engineDir = path.join(generationDir, 'engine');
  const gen = fs.readFileSync(path.join(engineDir, 'CURRENT'), 'utf8').trim();
  const lines = fs.readFileSync(path.join(engineDir, gen, 'fragments.jsonl'), 'utf8').split('\n');
  const out: Fragment[] = [];
  for (const line of lines) if (line && line !== 'null') out.push(JSON.parse(line) as Fragment);
  return out;
}

/** The documents and fragments of a built index folder. */
export function sourceFromIndexDir(indexDir: string): GraphSource {
  const ident = indexIdentity(indexDir);
  const docs = readIndexedDocuments(ident.generationDir);
  const by = groupByDoc(engineFragments(ident.generationDir));
  return {
    id: ident.id,
    fingerprint: ident.fingerprint,
    documents: () => docs.map((d) => ({ id: d.id, title: d.title })),
    fragmentsOf: (d) => by.get(d) ?? [],
  };
}

/** A loaded engine's documents and fragments (titles from the caller). */
export function sourceFromEngine(
  engine: { documents(): string[]; fragmentsOf(docId: string): Fragment[] },
  identity: { id: string; fingerprint: string },
  title: (docId: string) => string | undefined,
): GraphSource {
  return { ...identity, documents: () => engine.documents().map((id) => ({ id, title: title(id) ?? id })), fragmentsOf: (d) => engine.fragmentsOf(d) };
}
