/**
 * Opening a built index (the reading side of build.ts), and the on-disk layout
 * both sides agree on:
 *
 *   <index dir>/
 *     CURRENT               name of the live build, e.g. "build-000003" (replaced atomically)
 *     build-000003/         one complete, immutable build:
 *       engine/             the SearchEngine's own saved state (BM25, HNSW, fragments, relations, embedder fit)
 *       manifest.json       IndexManifest: embedder, options, seed, git commit, backends, counts
 *       documents.json      the indexed documents (DocumentRecord + counts), sorted by id
 *       knowledge-points.jsonl, relations.jsonl   points and point-level relations
 *       build-report.json, cost-ledger.json, cost-ledger.md
 *     build-report.json, cost-ledger.json, cost-ledger.md   copies of the latest build's
 *     work/                 checkpoints (work.sqlite: per-document results by content hash; OCR cache)
 *     assets/               media extracted from PDFs (MediaAsset.path is relative to it)
 *
 * A reader follows CURRENT, so it sees the previous build or the new one, never
 * half of one; a build killed at any point leaves CURRENT on the previous build.
 *
 * Single-document benchmarks (MMLongBench-Doc: "one index per document"): we
 * keep ONE index over all documents and restrict each question's searches to
 * its document (`retrieverFor(question)` adds `docIds: [question.doc]`). The
 * candidate set is then exactly that document's fragments, as with a separate
 * index; relations are recalled within documents only (scope 'document'), so
 * expansion never leaves the document either. The only difference from a
 * separate index is that BM25's idf is computed over the whole collection. In
 * exchange there is one build, one report and ledger, one OCR cache and
 * incremental updates across documents.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DocumentRecord, Fragment } from '../corpus/types';
import type { Question } from '../bench/types';
import type { ChatModel, Stage } from '../model-api/types';
import { KfError } from '../util/errors';
import { readJson, readJsonl } from '../util/fsx';
import { SearchEngine } from './engine';
import type { Embedder, KnowledgePoint, Relation, Retriever, SearchOptions, SearchResult } from './types';
import { refuseEmptyIndex } from './refuse-empty';
import type { DescriptionCounts } from './describe-failures';

export const INDEX_POINTER = 'CURRENT';
export const BUILD_PREFIX = 'build-';
export const INDEX_MANIFEST_KIND = 'kf-index';

/** The models a build may use (a ModelRouter satisfies it). */
export interface IndexModels {
  forStage(stage: Stage): ChatModel;
  /** The configured embedding endpoint, if any (openai embedder). */
  embedder?(): Embedder | undefined;
}

export interface StageBackend {
  backend: string;
  model: string;
}

export interface IndexManifest {
  kind: typeof INDEX_MANIFEST_KIND;
  version: 1;
  generation: string;
  previousGeneration?: string;
  builtAt: string;
  corpus: { kind: 'directory' | 'passages'; path?: string; name: string; hash: string; documents: number };
  benchmark?: string;
  /** Hash of the corpus content and every setting that shapes the index (equal = the index is current). */
  inputKey: string;
  /** Hash of what relations depend on besides the documents (options, embedder, typing model). */
  relationsShape: string;
  embedder: { id: string; dim: number; choice: string };
  seed: string;
  git: { commit: string | null; dirty: boolean | null };
  /** Backend and model per build stage; `offline` means rules, never a model result. */
  backends: Record<string, StageBackend>;
  /** True when no stage used a model. */
  offline: boolean;
  /** Which fragments carry model and offline descriptions (lib/index/describe-failures.ts); absent in older builds. */
  descriptions?: DescriptionCounts;
  /** Resolved build options (what produced this index). */
  options: Record<string, unknown>;
  counts: {
    documents: number;
    fragments: number;
    byKind: Record<string, number>;
    points: number;
    relations: { recalled: number; typed: number; pointEdges: number; fragmentEdges: number };
    pages: number;
    embeddings: number;
  };
  /** Costs that are not per document, summed over every build of this index (ledger "index" row). */
  cumulative: { relations: { calls: number; promptTokens: number; completionTokens: number; cacheHits: number }; builds: number; wallSeconds: number };
}

/** One indexed document as documents.json lists it. */
export interface IndexedDocument {
  id: string;
  title: string;
  source: string;
  format: DocumentRecord['format'];
  pages?: number;
  sha256: string;
  /** Checkpoint key of its work (content + options hash): decides what an incremental build redoes. */
  workKey: string;
  fragments: number;
  points: number;
  meta: Record<string, unknown>;
}

export interface OpenIndex {
  /** The index root and the live build folder. */
  dir: string;
  generationDir: string;
  manifest: IndexManifest;
  engine: SearchEngine;
  /** Searches the whole index. */
  retriever: Retriever;
  /**
   * The retriever a question should use: restricted to `question.doc` for
   * single-document benchmarks (see the file comment), the whole index otherwise.
   */
  retrieverFor(question: Pick<Question, 'id' | 'doc'>): Retriever;
  fragment(id: string): Fragment | undefined;
  docTitle(docId: string): string | undefined;
  documents(): IndexedDocument[];
  /** Knowledge points and point-level relations (read on first call). */
  knowledgePoints(): KnowledgePoint[];
  relations(): Relation[];
}

/** The live build folder of an index root, or undefined when there is none. */
export function currentGeneration(root: string): string | undefined {
  try {
    const name = fs.readFileSync(path.join(root, INDEX_POINTER), 'utf8').trim();
    if (!new RegExp(`^${BUILD_PREFIX}\\d+$`).test(name)) return undefined;
    return fs.existsSync(path.join(root, name, 'manifest.json')) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** True when `dir` holds a built index (a root with CURRENT, or a build folder itself). */
export function isIndexDir(dir: string): boolean {
  return resolveGeneration(dir) !== undefined;
}

function resolveGeneration(dir: string): { root: string; generation: string; generationDir: string } | undefined {
  const abs = path.resolve(dir);
  const cur = currentGeneration(abs);
  if (cur) return { root: abs, generation: cur, generationDir: path.join(abs, cur) };
  // A build folder given directly (e.g. build-000003/).
  if (path.basename(abs).startsWith(BUILD_PREFIX) && fs.existsSync(path.join(abs, 'manifest.json')) && fs.existsSync(path.join(abs, 'engine'))) {
    return { root: path.dirname(abs), generation: path.basename(abs), generationDir: abs };
  }
  return undefined;
}

/** The manifest of the live build (undefined when `dir` holds no index). */
export function readIndexManifest(dir: string): IndexManifest | undefined {
  const g = resolveGeneration(dir);
  if (!g) return undefined;
  const m = readJson<IndexManifest>(path.join(g.generationDir, 'manifest.json'), 'index manifest');
  if (m.kind !== INDEX_MANIFEST_KIND)
    throw new KfError('index_format', `${g.generationDir}/manifest.json is not a kf index manifest`, 'rebuild the index (kf index build)', {
      concerns: g.generationDir,
    });
  return m;
}

export function readIndexedDocuments(generationDir: string): IndexedDocument[] {
  return readJson<IndexedDocument[]>(path.join(generationDir, 'documents.json'), 'index document list');
}

export interface OpenIndexOptions {
  /** The embedder for queries; needed only when the index used one that cannot be restored offline (openai). */
  embedder?: Embedder;
  /** Where to get the embedder when it is not given: a ModelRouter's configured embedding endpoint. */
  models?: Pick<IndexModels, 'embedder'>;
}

/**
 * Open the live build of an index: loads the engine (BM25, HNSW, fragments,
 * relations) and the document list. Offline embedders are restored from the
 * index; an OpenAI-compatible one comes from `opts.embedder` / `opts.models`.
 */
export async function openIndex(dir: string, opts: OpenIndexOptions = {}): Promise<OpenIndex> {
  const g = resolveGeneration(dir);
  if (!g) {
    throw new KfError(
      'index_missing',
      `no built index in ${path.resolve(dir)} (no ${INDEX_POINTER} pointing at a complete build)`,
      'build it first: kf index build --corpus <dir> --out <dir>',
      { concerns: path.resolve(dir) },
    );
  }
  const manifest = readIndexManifest(dir)!;
  refuseEmptyIndex(manifest.counts?.fragments, g.root, manifest.corpus);
  let embedder = opts.embedder;
  if (!embedder && manifest.embedder.choice === 'openai') {
    embedder = opts.models?.embedder?.();
    if (!embedder) {
      throw new KfError(
        'embedder_required',
        `the index in ${g.root} was built with the embedding model ${manifest.embedder.id}`,
        'configure the same embedding endpoint (KF models config / OPENAI_BASE_URL + embedding model) or pass the embedder to openIndex',
        { concerns: g.root },
      );
    }
  }
  // An endpoint embedder learns its dimension with one probe call; the engine checks it against the index.
  if (embedder) await (embedder as Embedder & { init?: () => Promise<unknown> }).init?.();
  const engine = await SearchEngine.load(path.join(g.generationDir, 'engine'), embedder);
  const docs = readIndexedDocuments(g.generationDir);
  const byId = new Map(docs.map((d) => [d.id, d]));
  let points: KnowledgePoint[] | undefined;
  let relations: Relation[] | undefined;
  const retriever: Retriever = { search: (q, o) => engine.search(q, o) };
  return {
    dir: g.root,
    generationDir: g.generationDir,
    manifest,
    engine,
    retriever,
    retrieverFor(question) {
      if (!question.doc) return retriever;
      const doc = question.doc;
      if (!byId.has(doc)) {
        throw new KfError(
          'unknown_document',
          `question ${question.id} is about document "${doc}", which is not in the index ${g.root}`,
          "build the index over that benchmark's documents (kf index build --bench ...) or check the document id",
          { concerns: question.id },
        );
      }
      return {
        search: (q: string, o: SearchOptions = {}): Promise<SearchResult> => engine.search(q, { ...o, docIds: [doc] }),
      };
    },
    fragment: (id) => engine.fragment(id),
    docTitle: (id) => byId.get(id)?.title,
    documents: () => docs.slice(),
    knowledgePoints: () => (points ??= readJsonl<KnowledgePoint>(path.join(g.generationDir, 'knowledge-points.jsonl')).records),
    relations: () => (relations ??= readJsonl<Relation>(path.join(g.generationDir, 'relations.jsonl')).records),
  };
}
