/**
 * What `kf serve kb` serves from: an index seen through the harness's knowledge-base view
 * (lib/pipeline/engine-knowledge-base.ts), plus the few things the hosted API tells that the view
 * does not (a document's file name, all of its fragments for counts and page text, a figure's
 * stored file). Built from an opened index (any index the harness builds) or from a bare engine
 * (the serving benchmark's scaled demo world).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment, MediaAsset } from '../corpus/types';
import type { SearchEngine } from '../index/engine';
import type { OpenIndex } from '../index/open';
import { EngineKnowledgeBase } from '../pipeline/engine-knowledge-base';
import { engineKnowledgeBase } from '../pipeline/index-view';
import type { RetrievalMode } from '../index/types';
import { DOCUMENT_EXTENSIONS } from '../remote-kb/shapes';

/** Largest top-k a served search may ask for (a client filtering by kind asks for four times its k). */
export const SERVED_MAX_TOPK = 200;

export interface ServedDocument {
  id: string;
  title: string;
  /** The file name the API shows (`sources[].name`, `source_file`): the document id with its file's extension. */
  file: string;
  /** Where its source file is on this machine, when known (download by root node). */
  sourcePath?: string;
}

export interface ServedCorpus {
  /** A short name (the index folder's name). */
  name: string;
  /** The whole index through the knowledge-base view; packages restrict it. */
  kb: EngineKnowledgeBase;
  documents(): ServedDocument[];
  document(id: string): ServedDocument | undefined;
  /** A document's fragments in reading order (all of them: counts and page text need more than a listing). */
  fragmentsOf(docId: string): Fragment[];
  /** The file of a figure's or table's stored asset on this machine, when there is one. */
  assetFile(f: Fragment): string | undefined;
}

/** `docId` + the extension of its source file (".md" when the source is not a document file). */
export function servedFileName(docId: string, source: string | undefined): string {
  const ext = path.extname(source ?? '').toLowerCase();
  return `${docId}${ext && DOCUMENT_EXTENSIONS.test(ext) ? ext : '.md'}`;
}

function corpusFrom(
  name: string,
  kb: EngineKnowledgeBase,
  engine: SearchEngine,
  docs: ServedDocument[],
  assetFile: (f: Fragment) => string | undefined,
): ServedCorpus {
  const byId = new Map(docs.map((d) => [d.id, d]));
  return {
    name,
    kb,
    documents: () => docs,
    document: (id) => byId.get(id),
    fragmentsOf: (id) => engine.fragmentsOf(id),
    assetFile,
  };
}

/** An opened index, searched in `mode` (default: the view's, hybrid+graph). */
export function corpusOfIndex(idx: OpenIndex, opts: { mode?: RetrievalMode | string } = {}): ServedCorpus {
  const kb = engineKnowledgeBase(idx, { maxTopk: SERVED_MAX_TOPK, ...(opts.mode ? { forced: { mode: opts.mode as RetrievalMode } } : {}) });
  const corpusRoot = idx.manifest.corpus.kind === 'directory' ? idx.manifest.corpus.path : undefined;
  const docs = idx.documents().map((d) => {
    const local = corpusRoot && !d.source.startsWith('bench:') ? path.resolve(corpusRoot, d.source) : undefined;
    return { id: d.id, title: d.title, file: servedFileName(d.id, d.source), ...(local ? { sourcePath: local } : {}) };
  });
  const assetFile = (f: Fragment): string | undefined => {
    const a: MediaAsset | undefined = f.media;
    if (!a) return undefined;
    let file: string | undefined;
    if (path.isAbsolute(a.path)) file = a.path;
    else if (a.origin === 'pdf-embedded' || a.origin === 'pdf-render') file = path.join(idx.dir, 'assets', a.path);
    else if (corpusRoot) file = path.resolve(corpusRoot, a.path);
    return file && fs.existsSync(file) ? file : undefined;
  };
  return corpusFrom(path.basename(idx.dir), kb, idx.engine, docs, assetFile);
}

/** A bare engine (no manifest, no files): documents named by their ids. */
export function corpusOfEngine(engine: SearchEngine, name: string): ServedCorpus {
  const kb = new EngineKnowledgeBase(engine, { id: name, name, maxTopk: SERVED_MAX_TOPK });
  const docs = engine.documents().map((id) => ({ id, title: id, file: servedFileName(id, undefined) }));
  return corpusFrom(name, kb, engine, docs, () => undefined);
}
