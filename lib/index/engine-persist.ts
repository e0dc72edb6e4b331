/**
 * Saving and loading a SearchEngine (the index folder's generations).
 *
 * Persistence is generational so a crash mid-save never costs the previous
 * index: a complete `gen-N/` folder is written under a temporary name, fsynced,
 * renamed into place, and only then is the `CURRENT` pointer file atomically
 * replaced; older generations are deleted afterwards. Loading follows CURRENT.
 * Cost: O(index size) bytes written or read, one pass.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment } from '../corpus/types';
import type { Embedder } from './types';
import { Bm25Index, type Bm25State } from './bm25';
import { DenseIndex } from './dense';
import { resolveEngineOptions, type EngineOptions, type StoredOptions } from './engine-options';
import type { RelationEdge } from './relation-edges';
import { restoreEmbedder, saveEmbedderState } from './embedders/registry';
import { KfError } from '../util/errors';
import { fsError, writeFileAtomic, fsyncDir, writeStreamed } from '../util/fsx';
import {
  checkFileSizes,
  fsyncFile,
  generationReader,
  nextGeneration,
  forEachLine,
  packedParts,
  readPointer,
  removeOtherGenerations,
  unpackArrays,
  writeSynced,
} from './engine-files';

export const INDEX_FORMAT = 'kf-search-index/1';

/** Test hook: called before each step of save(); throwing simulates a crash at that point. */
export type SaveStepHook = (step: 'fragments' | 'bm25' | 'dense' | 'relations' | 'embedder' | 'manifest' | 'rename' | 'pointer') => void;

/** What a saved index holds. */
export interface EngineParts {
  embedder: Embedder;
  opts: StoredOptions;
  bm25: Bm25Index;
  dense: DenseIndex;
  frags: readonly (Fragment | undefined)[];
  relations: readonly RelationEdge[];
  liveCount: number;
  documents: number;
}

interface Manifest {
  format: string;
  createdAt: string;
  embedder: { id: string; dim: number; persisted: boolean };
  options: StoredOptions;
  bm25: { options: Bm25State['options']; nSlots: number; nTerms: number; nPostings: number };
  slots: number;
  liveFragments: number;
  documents: number;
  relations: number;
  files: Record<string, number>;
}

/** Write `parts` as the next generation of the index in `root` (created if needed); crash-safe (see the file comment). */
export function saveEngineParts(root: string, parts: EngineParts, step: SaveStepHook): void {
  const nextGen = nextGeneration(root, readPointer(root));
  const tmp = path.join(root, `.${nextGen}.tmp-${process.pid}-${Date.now()}`);
  try {
    fs.mkdirSync(tmp, { recursive: true });
    writeGenerationFiles(tmp, parts, step);
    fsyncDir(tmp);

    step('rename');
    const finalDir = path.join(root, nextGen);
    fs.rmSync(finalDir, { recursive: true, force: true });
    fs.renameSync(tmp, finalDir);
    fsyncDir(root);

    step('pointer');
    writeFileAtomic(path.join(root, 'CURRENT'), nextGen + '\n');
    fsyncDir(root);
  } catch (e) {
    try {
      fs.rmSync(tmp, { recursive: true, force: true });
    } catch {
      /* best effort: a stray temp folder is cleaned by the next save */
    }
    if (e instanceof KfError) throw e;
    throw fsError(e, root, 'save the index into');
  }
  // The new generation is live: remove older ones and stray temporaries (best effort).
  removeOtherGenerations(root, nextGen);
}

/** Every file of one generation, fsynced, written into `tmp`; the manifest (with their sizes) last. */
function writeGenerationFiles(tmp: string, p: EngineParts, step: SaveStepHook): void {
  const files: Record<string, number> = {};
  const write = (name: string, data: string | Buffer) => {
    writeSynced(path.join(tmp, name), data);
    files[name] = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
  };
  // The large files are streamed piece by piece (util/fsx.ts writeStreamed): same bytes, no whole-file copy in memory.
  const stream = (name: string, produce: (put: (piece: string | Buffer) => void) => void) => {
    files[name] = writeStreamed(path.join(tmp, name), produce);
  };
  step('fragments');
  stream('fragments.jsonl', (put) => {
    for (const f of p.frags) put((f ? JSON.stringify(f) : 'null') + '\n');
  });

  step('bm25');
  const st = p.bm25.exportState();
  stream('bm25.json', (put) => {
    put(`{"options":${JSON.stringify(st.options)},"nSlots":${JSON.stringify(st.nSlots)},"terms":`);
    putJsonArray(st.terms, put);
    put(',"keys":');
    putJsonArray(st.keys, put);
    put('}');
  });
  stream('bm25.bin', (put) => packedParts([st.fwdOff, st.fwdTerm, st.fwdTf, st.docLen, st.live]).forEach(put));

  step('dense');
  p.dense.save(path.join(tmp, 'dense.hnsw'), path.join(tmp, 'dense.vectors.bin'));
  for (const name of ['dense.hnsw', 'dense.vectors.bin']) {
    fsyncFile(path.join(tmp, name));
    files[name] = fs.statSync(path.join(tmp, name)).size;
  }
  write('dense.live.bin', Buffer.from(p.dense.liveStates()));

  step('relations');
  stream('relations.json', (put) => putJsonArray(p.relations, put));

  step('embedder');
  const persisted = saveEmbedderState(p.embedder, tmp);

  step('manifest');
  const manifest: Manifest = {
    format: INDEX_FORMAT,
    createdAt: new Date().toISOString(),
    embedder: { id: p.embedder.id, dim: p.embedder.dim, persisted },
    options: p.opts,
    bm25: { options: st.options, nSlots: st.nSlots, nTerms: st.terms.length, nPostings: st.fwdTerm.length },
    slots: p.frags.length,
    liveFragments: p.liveCount,
    documents: p.documents,
    relations: p.relations.length,
    files,
  };
  write('manifest.json', JSON.stringify(manifest, null, 2) + '\n');
}

/** Each line of a saved fragments.jsonl ('null' = a removed slot), read in blocks; a missing file names the rebuild. */
export function forEachFragmentLine(file: string, onLine: (line: string) => void): void {
  try {
    forEachLine(file, onLine);
  } catch (e) {
    if (e instanceof KfError) throw e;
    throw new KfError(
      'index_corrupt',
      `index file ${file} is missing or unreadable (${(e as NodeJS.ErrnoException).code})`,
      'rebuild the index (kf index build)',
      {
        concerns: file,
        cause: e,
      },
    );
  }
}

/** JSON.stringify(items) written piece by piece (the same text: '[', items joined by ',', ']'). */
function putJsonArray(items: readonly unknown[], put: (piece: string) => void): void {
  put('[');
  for (let i = 0; i < items.length; i++) put((i ? ',' : '') + JSON.stringify(items[i]));
  put(']');
}

/** True when `dir` holds a saved index. */
export function indexExists(dir: string): boolean {
  const cur = readPointer(path.resolve(dir));
  return !!cur && fs.existsSync(path.join(dir, cur, 'manifest.json'));
}

/** The saved parts of the index in `dir` (fragments as their jsonl lines, 'null' = a removed slot). */
export function readEngineParts(
  dir: string,
  embedder: Embedder | undefined,
): { emb: Embedder; opts: StoredOptions; bm25: Bm25Index; dense: DenseIndex; fragmentsFile: string; slots: number; gen: string; relations: RelationEdge[] } {
  const root = path.resolve(dir);
  const cur = readPointer(root);
  if (!cur)
    throw new KfError('index_missing', `no index in ${root} (no CURRENT file)`, 'build it first (kf index build) or check the path', { concerns: root });
  const gen = path.join(root, cur);
  const { read, parse } = generationReader(gen);
  const m = parse<Manifest>('manifest.json');
  if (m.format !== INDEX_FORMAT)
    throw new KfError(
      'index_format',
      `index in ${gen} has format ${m.format}, this harness reads ${INDEX_FORMAT}`,
      'rebuild the index with this version (kf index build)',
      {
        concerns: gen,
      },
    );
  checkFileSizes(gen, m.files);
  const emb = embedder ?? restoreEmbedder(gen, m.embedder.id);
  if (emb.id !== m.embedder.id || emb.dim !== m.embedder.dim) {
    throw new KfError(
      'embedder_mismatch',
      `index in ${root} was built with embedder ${m.embedder.id} (${m.embedder.dim}-d), got ${emb.id} (${emb.dim}-d)`,
      'pass the same embedder, or rebuild the index with this one',
      { concerns: root },
    );
  }
  const bj = parse<{ options: Bm25State['options']; nSlots: number; terms: string[]; keys: string[] }>('bm25.json');
  const [fwdOff, fwdTerm, fwdTf, docLen, live] = unpackArrays(read('bm25.bin'), ['i32', 'i32', 'u16', 'i32', 'u8']) as [
    Int32Array,
    Int32Array,
    Uint16Array,
    Int32Array,
    Uint8Array,
  ];
  const bm25 = Bm25Index.fromState({ options: bj.options, terms: bj.terms, keys: bj.keys, nSlots: bj.nSlots, fwdOff, fwdTerm, fwdTf, docLen, live });
  const denseLive = new Uint8Array(read('dense.live.bin'));
  if (denseLive.length !== m.slots || bj.nSlots !== m.slots)
    throw new KfError('index_corrupt', `index in ${gen} has inconsistent slot counts`, 'rebuild the index (kf index build)', { concerns: gen });
  const dense = DenseIndex.load(path.join(gen, 'dense.hnsw'), path.join(gen, 'dense.vectors.bin'), m.embedder.dim, m.options.hnsw, denseLive);
  // Options pass through validation again: older manifests get defaults for switches added since.
  const opts = resolveEngineOptions(m.options as unknown as Omit<EngineOptions, 'embedder'>);
  // Fragments are read line by line by the caller (forEachFragmentLine): the file is the index's largest JSON.
  return { emb, opts, bm25, dense, fragmentsFile: path.join(gen, 'fragments.jsonl'), slots: m.slots, gen, relations: parse<RelationEdge[]>('relations.json') };
}
