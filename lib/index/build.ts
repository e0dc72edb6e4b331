/**
 * The index build pipeline (spec job 1, offline):
 *
 *   scan -> per document: ingest -> describe media -> knowledge points   (checkpointed)
 *        -> embed fragments + points                                     (checkpointed)
 *        -> engine (incremental on the previous build) -> relations -> save (atomic)
 *
 * Incremental: every document's work is stored in `work/work.sqlite` under a key
 * made of its id, its content hash and the options/models that shape the work.
 * A rebuild reuses every stored result and processes only added or changed
 * documents; removed documents are dropped from the engine. Relations are
 * recomputed over all points each build (kNN is cheap; LLM typings are cached
 * per pair, so only new pairs cost tokens).
 *
 * Crash safety: each document's result is committed (SQLite, WAL) as soon as it
 * is done, so a build killed with SIGKILL resumes where it stopped. The live
 * index is whatever `CURRENT` names; a new build is written to a temporary
 * folder, renamed into place and only then does CURRENT switch (see open.ts for
 * the layout), so the previous index stays usable until the new one is whole.
 *
 * Bad documents never stop a build: each is reported in build-report.json with
 * its reason and the rest goes on. Nothing already indexed is lost.
 */
import { OCR_LAYOUT_VERSION } from '../corpus/ocr-layout';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import type { CorpusPassage } from '../bench/types';
import type { DocumentFormat, Fragment, IngestIssue, IngestResult, PageStatus } from '../corpus/types';
import type { IngestOptions } from '../corpus/options';
import { ingestFile, ingestText, listCorpusFiles, formatOf } from '../corpus/ingest';
import { OcrPool } from '../corpus/ocr';
import { docIdFromRel } from '../corpus/source';
import { describeFragments } from '../corpus/describe';
import type { ChatModel } from '../models/types';
import { KfError, errorMessage } from '../util/errors';
import { canonicalJson, sha256, shortHash } from '../util/hash';
import { ensureWritableDir, readJsonl, writeFileAtomic, writeJsonAtomic, fsyncDir } from '../util/fsx';
import { isPidLock, tryPidLock } from '../util/pid-lock';
import { runPool } from '../util/worker-pool';
import { benchmarkSpec } from '../bench/registry';
import { gitInfo } from '../util/git';
import { repoRoot } from '../util/paths';
import { SearchEngine, defaultIndexText, type EngineOptions, type RelationEdge } from './engine';
import { HashingEmbedder } from './embedders/hashing';
import { GloveSifEmbedder } from './embedders/glove-sif';
import { CorpusFittedEmbedder, type CorpusFittedOptions } from './embedders/corpus-fitted';
import type { Embedder, KnowledgePoint, Relation } from './types';
import { addUsage, emptyUsage, extractKnowledgePoints, pointText, type KnowledgePointOptions, type StageUsage } from './knowledge-points';
import { buildRelations, projectToFragments, type RelationOptions, type RelationTypeCache } from './relations';
import {
  PAPER_APPENDIX_D,
  addLedgerCounts,
  countPages,
  emptyKinds,
  emptyLedgerCounts,
  finishTokens,
  issueOf,
  ledgerMarkdown,
  summarize,
  tokenCounts,
  type BuildReport,
  type CostLedger,
  type DocumentReport,
  type LedgerCounts,
} from './report';
import {
  BUILD_PREFIX,
  INDEX_MANIFEST_KIND,
  INDEX_POINTER,
  currentGeneration,
  readIndexedDocuments,
  type IndexManifest,
  type IndexModels,
  type IndexedDocument,
  type StageBackend,
} from './open';

export type EmbedderChoice = 'hash' | 'glove' | 'fitted' | 'openai';
export const EMBEDDER_CHOICES: readonly EmbedderChoice[] = ['hash', 'glove', 'fitted', 'openai'];

export interface BuildProgress {
  phase: 'scan' | 'document' | 'embed' | 'engine' | 'relations' | 'save' | 'done';
  docId?: string;
  /** For 'document': what happened to it. */
  status?: DocumentReport['status'];
  work?: DocumentReport['work'];
  done?: number;
  total?: number;
  message?: string;
}

export interface BuildOptions {
  /** Seed of everything random in a build (HNSW level generation). Default 'kf-index'. */
  seed?: string | number;
  /** Benchmark the corpus belongs to (manifest; the ledger compares with the paper's row; mmlongbench-doc recalls relations per document). */
  benchmark?: string;
  /** Name in the ledger's first column (default: benchmark, else the corpus folder name). */
  corpusName?: string;
  /** Ingestion settings passed to lib/corpus (fragment sizes, OCR mode and confidence, render scale...). */
  ingest?: Pick<IngestOptions, 'ocr' | 'minOcrConfidence' | 'fragmentChars' | 'maxTableRows' | 'minImagePixels' | 'renderScale'>;
  /** OCR workers (default 2) and cache folder (default <out>/work/ocr). */
  ocrWorkers?: number;
  ocrCacheDir?: string;
  /** Describe images/tables (VLM stage 'caption' when configured, else offline caption + OCR + rows). Default true. */
  describeMedia?: boolean;
  knowledgePoints?: KnowledgePointOptions;
  /** Relation recall/typing options, or false for no relations (no graph expansion). */
  relations?: RelationOptions | false;
  /** Engine settings (BM25, HNSW, fusion, graph expansion). The HNSW seed defaults to one derived from `seed`. */
  engine?: Omit<EngineOptions, 'embedder' | 'indexText'>;
  /** Hashing embedder dimension (default 256). */
  hashDim?: number;
  /** Corpus-fitted encoder options. */
  fitted?: CorpusFittedOptions;
  /** Refit the corpus-fitted encoder even when the previous build has one (re-embeds everything). Default false. */
  refitEmbedder?: boolean;
  /** Build the engine from stored vectors instead of updating the previous build's engine. Default false. */
  rebuildEngine?: boolean;
  /** Documents processed at once (default 2). */
  concurrency?: number;
  /** Files larger than this are skipped and reported (default 1 GiB). */
  maxFileBytes?: number;
  /** Only corpus files whose corpus-relative path passes (a subset of a folder); others are not part of the index. */
  include?: (relPath: string) => boolean;
  /** Awaited after each step: progress display (and tests that slow a build down to interrupt it). */
  onProgress?: (e: BuildProgress) => void | Promise<void>;
  signal?: AbortSignal;
}

export interface BuildIndexInput {
  /** A folder of documents (PDF, HTML, Markdown, text), or ... */
  corpusDir?: string;
  /** ... text passages (benchmark corpora): one document per passage, id = passage id. */
  passages?: readonly CorpusPassage[];
  outDir: string;
  /** An embedder, or which one to make (default 'fitted'). */
  embedder?: Embedder | EmbedderChoice;
  /** Models for the model-backed stages; absent or offline-backed stages run offline. */
  models?: IndexModels;
  options?: BuildOptions;
}

export interface BuildResult {
  outDir: string;
  generation: string;
  generationDir: string;
  manifest: IndexManifest;
  report: BuildReport;
  ledger: CostLedger;
}

/** A document's stored work (the checkpoint): everything but its vectors. */
interface DocWork {
  doc: NonNullable<IngestResult['doc']>;
  fragments: Fragment[];
  pages?: PageStatus[];
  issues: IngestIssue[];
  stats: IngestResult['stats'];
  points: KnowledgePoint[];
  usage: { multimodal: StageUsage; extraction: StageUsage };
  ms: number;
}

interface ScannedDoc {
  id: string;
  source: string;
  sha: string;
  bytes: number;
  format?: DocumentFormat;
  abs?: string;
  passage?: CorpusPassage;
  /** Set when the document will not be indexed before any work (duplicate, too big, id collision). */
  verdict?: { status: 'duplicate' | 'skipped' | 'error'; reason: string; duplicateOf?: string };
}

const WORK_VERSION = 1;

// ---------------------------------------------------------------------------- checkpoint store

/** Per-document results by content hash (SQLite, WAL: a commit survives SIGKILL). */
class WorkStore implements RelationTypeCache {
  private db: Database.Database;
  private getDoc: Database.Statement;
  private putDoc: Database.Statement;
  private getVec: Database.Statement;
  private putVec: Database.Statement;
  private getRel: Database.Statement;
  private putRel: Database.Statement;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      this.db = new Database(file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(`
        CREATE TABLE IF NOT EXISTS docs (key TEXT PRIMARY KEY, doc_id TEXT NOT NULL, payload TEXT NOT NULL, created TEXT NOT NULL);
        CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, doc_key TEXT NOT NULL, embedder TEXT NOT NULL, dim INTEGER NOT NULL, count INTEGER NOT NULL, ms REAL NOT NULL, data BLOB NOT NULL);
        CREATE TABLE IF NOT EXISTS relcache (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      `);
    } catch (e) {
      throw new KfError(
        'work_store',
        `cannot open the build checkpoint store ${file}: ${errorMessage(e)}`,
        'check the folder is writable; if the file is damaged, delete it (the next build redoes the work)',
        { concerns: file, cause: e },
      );
    }
    this.getDoc = this.db.prepare('SELECT payload FROM docs WHERE key = ?');
    this.putDoc = this.db.prepare('INSERT OR REPLACE INTO docs (key, doc_id, payload, created) VALUES (?, ?, ?, ?)');
    this.getVec = this.db.prepare('SELECT dim, count, ms, data FROM vectors WHERE key = ?');
    this.putVec = this.db.prepare('INSERT OR REPLACE INTO vectors (key, doc_key, embedder, dim, count, ms, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.getRel = this.db.prepare('SELECT value FROM relcache WHERE key = ?');
    this.putRel = this.db.prepare('INSERT OR REPLACE INTO relcache (key, value) VALUES (?, ?)');
  }

  doc(key: string): DocWork | undefined {
    const row = this.getDoc.get(key) as { payload: string } | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.payload) as DocWork;
    } catch {
      return undefined; // unreadable: redo the document
    }
  }

  saveDoc(key: string, w: DocWork): void {
    this.putDoc.run(key, w.doc.id, JSON.stringify(w), new Date().toISOString());
  }

  vectors(key: string): { vectors: Float32Array[]; ms: number } | undefined {
    const row = this.getVec.get(key) as { dim: number; count: number; ms: number; data: Buffer } | undefined;
    if (!row || row.data.byteLength !== row.dim * row.count * 4) return undefined;
    const all = new Float32Array(row.data.buffer.slice(row.data.byteOffset, row.data.byteOffset + row.data.byteLength));
    const out: Float32Array[] = [];
    for (let i = 0; i < row.count; i++) out.push(all.subarray(i * row.dim, (i + 1) * row.dim));
    return { vectors: out, ms: row.ms };
  }

  saveVectors(key: string, docKey: string, embedderId: string, dim: number, vecs: Float32Array[], ms: number): void {
    const buf = Buffer.alloc(dim * vecs.length * 4);
    const view = new Float32Array(buf.buffer, buf.byteOffset, dim * vecs.length);
    vecs.forEach((v, i) => view.set(v, i * dim));
    this.putVec.run(key, docKey, embedderId, dim, vecs.length, ms, buf);
  }

  get(key: string): string | undefined {
    return (this.getRel.get(key) as { value: string } | undefined)?.value;
  }

  set(key: string, value: string): void {
    this.putRel.run(key, value);
  }

  /** Drop the work of documents no longer in the corpus (keeps the store bounded). */
  prune(keepDocKeys: Set<string>): number {
    const keys = (this.db.prepare('SELECT key FROM docs').all() as { key: string }[]).map((r) => r.key).filter((k) => !keepDocKeys.has(k));
    const delDoc = this.db.prepare('DELETE FROM docs WHERE key = ?');
    const delVec = this.db.prepare('DELETE FROM vectors WHERE doc_key = ?');
    this.db.transaction(() => {
      for (const k of keys) {
        delDoc.run(k);
        delVec.run(k);
      }
    })();
    return keys.length;
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      /* closed */
    }
  }
}

// ---------------------------------------------------------------------------- lock

/** One build at a time per index folder; a lock left by a killed build (dead pid) is taken over. */
function acquireLock(root: string): () => void {
  const file = path.join(root, '.build.lock');
  const r = tryPidLock(file);
  if (isPidLock(r)) return r.release;
  if (r.holder && !r.ownProcess) {
    throw new KfError(
      'index_locked',
      `another build (pid ${r.holder.pid}) is writing the index in ${root}`,
      'wait for it to finish, or stop it; a lock of a dead process is taken over automatically',
      { concerns: root },
    );
  }
  throw new KfError('index_locked', `cannot take the build lock ${file}`, 'remove the file if no build is running', { concerns: file });
}

// ---------------------------------------------------------------------------- helpers

function usageOf(u?: Partial<StageUsage>): StageUsage {
  return { ...emptyUsage(), ...(u ?? {}) };
}

function isOffline(m: ChatModel | undefined): boolean {
  return !m || m.backend === 'offline';
}

function stageModel(models: IndexModels | undefined, stage: string): ChatModel | undefined {
  if (!models) return undefined;
  try {
    return models.forStage(stage);
  } catch (e) {
    throw new KfError('index_models', `cannot get the model for stage ${stage}: ${errorMessage(e)}`, 'fix the models config for that stage, or build offline', {
      concerns: stage,
      cause: e,
    });
  }
}

/** A ChatModel that adds the usage of every reply to `usage` (per-document token ledger). */
function countingModel(m: ChatModel, usage: StageUsage): ChatModel {
  return {
    id: m.id,
    backend: m.backend,
    chat: async (req, signal) => {
      const r = await m.chat(req, signal);
      addUsage(usage, r);
      return r;
    },
  };
}

function backendOf(m: ChatModel | undefined): StageBackend {
  return m ? { backend: m.backend, model: m.id } : { backend: 'offline', model: 'offline' };
}

function numericSeed(seed: string): number {
  return Number.parseInt(sha256(`hnsw/${seed}`).slice(0, 8), 16) % 1_000_000_007;
}

function abortIf(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new KfError('aborted', 'the index build was cancelled', 'rerun the build: finished documents are kept and reused');
}

// ---------------------------------------------------------------------------- scan

/**
 * The documents of a corpus folder, sorted by path. Files already indexed by the
 * previous build (`previousSources`) claim their id and content first, so a new
 * file with the same id or the same bytes never displaces an indexed document.
 */
function scanDirectory(dir: string, maxBytes: number, include?: (rel: string) => boolean, previousSources: ReadonlySet<string> = new Set()): ScannedDoc[] {
  const listed = listCorpusFiles(dir);
  const files = include ? listed.files.filter((f) => include(f.rel)) : listed.files;
  const refused = include ? listed.refused.filter((r) => include(r.rel)) : listed.refused;
  const out: ScannedDoc[] = [];
  const bySha = new Map<string, string>();
  const byId = new Map<string, string>();
  for (const r of refused) out.push({ id: docIdFromRel(r.rel), source: r.rel, sha: '', bytes: 0, verdict: { status: 'error', reason: r.reason } });
  const ordered = [...files.filter((f) => previousSources.has(f.rel)), ...files.filter((f) => !previousSources.has(f.rel))];
  const docs = new Map<string, ScannedDoc>();
  for (const f of ordered) {
    const id = docIdFromRel(f.rel);
    const d: ScannedDoc = { id, source: f.rel, sha: '', bytes: 0, abs: f.abs, format: formatOf(f.abs) };
    docs.set(f.rel, d);
    let size = 0;
    try {
      size = fs.statSync(f.abs).size;
    } catch (e) {
      d.verdict = { status: 'error', reason: `cannot read (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})` };
      continue;
    }
    d.bytes = size;
    if (size > maxBytes) {
      d.verdict = { status: 'skipped', reason: `file is ${size} bytes, over the limit of ${maxBytes} (options.maxFileBytes)` };
      continue;
    }
    try {
      d.sha = sha256(fs.readFileSync(f.abs));
    } catch (e) {
      d.verdict = { status: 'error', reason: `cannot read (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})` };
      continue;
    }
    const other = byId.get(id);
    if (other !== undefined) {
      d.verdict = { status: 'error', reason: `document id "${id}" is also the id of ${other} (ids are paths without extension): rename one of the files` };
      continue;
    }
    const dup = bySha.get(d.sha);
    if (dup !== undefined && size > 0) {
      d.verdict = { status: 'duplicate', reason: `same content (sha256 ${d.sha.slice(0, 12)}) as ${dup}`, duplicateOf: dup };
      continue;
    }
    byId.set(id, f.rel);
    bySha.set(d.sha, f.rel);
  }
  for (const f of files) out.push(docs.get(f.rel)!);
  return out;
}

function scanPassages(passages: readonly CorpusPassage[]): ScannedDoc[] {
  const out: ScannedDoc[] = [];
  const byId = new Set<string>();
  passages.forEach((p, i) => {
    const id = typeof p?.id === 'string' ? p.id : '';
    const d: ScannedDoc = { id: id || `(passage ${i})`, source: `passage:${id || i}`, sha: '', bytes: 0, format: 'text', passage: p };
    out.push(d);
    if (!id) {
      d.verdict = { status: 'error', reason: `passage ${i} has no id: give every passage a non-empty string id` };
      return;
    }
    if (typeof p.text !== 'string' || !p.text.trim()) {
      d.verdict = { status: 'skipped', reason: 'empty passage text' };
      return;
    }
    if (byId.has(id)) {
      d.verdict = { status: 'duplicate', reason: `passage id "${id}" appears more than once (the first one is indexed)`, duplicateOf: `passage:${id}` };
      return;
    }
    byId.add(id);
    d.sha = sha256(canonicalJson({ id, title: p.title ?? '', text: p.text }));
    d.bytes = Buffer.byteLength(p.text);
  });
  return out;
}

// ---------------------------------------------------------------------------- per-document work

interface DocContext {
  root: string;
  corpusRoot?: string;
  assetsDir: string;
  ocrCacheDir: string;
  ocrPool?: OcrPool;
  ingest: BuildOptions['ingest'];
  describe: boolean;
  captionModel?: ChatModel;
  extractionModel?: ChatModel;
  kp: KnowledgePointOptions;
  signal?: AbortSignal;
}

async function ingestPassage(d: ScannedDoc, ctx: DocContext): Promise<IngestResult> {
  const p = d.passage!;
  const res = await ingestText(`${d.id}.txt`, { content: p.text, docId: d.id, corpusRoot: '/', fragmentChars: ctx.ingest?.fragmentChars });
  if (res.doc) {
    res.doc.title = (p.title ?? '').trim() || d.id;
    res.doc.source = d.source;
    res.doc.sha256 = d.sha;
    res.doc.meta = { ...res.doc.meta, ...(p.meta ?? {}) };
  }
  // The title takes part in retrieval through the section path (as a document heading would).
  const title = (p.title ?? '').trim();
  if (title) for (const f of res.fragments) if (!f.section.length) f.section = [title];
  return res;
}

async function processDocument(
  d: ScannedDoc,
  ctx: DocContext,
): Promise<{ work?: DocWork; failure?: { status: 'error' | 'skipped'; reason: string; issues: IngestIssue[] } }> {
  const t0 = Date.now();
  let res: IngestResult;
  if (d.passage) res = await ingestPassage(d, ctx);
  else {
    res = await ingestFile(d.abs!, {
      ...(ctx.ingest ?? {}),
      corpusRoot: ctx.corpusRoot,
      assetsDir: ctx.assetsDir,
      cacheDir: ctx.ocrCacheDir,
      ocrPool: ctx.ocrPool,
    });
  }
  if (!res.doc) {
    const err = res.issues.find((i) => i.severity === 'error');
    // An empty file is not broken: it has nothing to index.
    const status = err?.code === 'empty' ? 'skipped' : 'error';
    return { failure: { status, reason: err?.message ?? 'the document could not be read', issues: res.issues } };
  }
  if (!res.fragments.length) {
    const why = res.issues.find((i) => i.code === 'empty' || i.code === 'no_content');
    return { failure: { status: 'skipped', reason: why?.message ?? 'no text, image or table was found', issues: res.issues } };
  }
  const issues = [...res.issues];
  let fragments = res.fragments;
  const multimodal = emptyUsage();
  if (ctx.describe && fragments.some((f) => f.kind === 'image' || f.kind === 'table')) {
    // Count the vision model's tokens for this document (Appendix D "extraction multimodal").
    const vlm = isOffline(ctx.captionModel) ? undefined : countingModel(ctx.captionModel!, multimodal);
    const described = await describeFragments(fragments, {
      model: vlm,
      stage: 'caption',
      corpusRoot: ctx.corpusRoot,
      assetsDir: ctx.assetsDir,
      ocr: ctx.ingest?.ocr === 'off' ? false : ctx.ocrPool,
      cacheDir: ctx.ocrCacheDir,
      minOcrConfidence: ctx.ingest?.minOcrConfidence,
      signal: ctx.signal,
    });
    fragments = described.fragments;
    for (const f of described.failures)
      issues.push({
        doc: d.id,
        severity: 'warning',
        code: 'describe_failed',
        message: `describing ${f.id} failed (${f.error}); the offline description is used`,
      });
  }
  const kp = await extractKnowledgePoints(fragments, { ...ctx.kp, model: ctx.extractionModel, signal: ctx.signal });
  for (const i of kp.issues)
    issues.push({
      doc: d.id,
      severity: 'warning',
      code: `extraction_${i.code}`,
      message: `${i.message} (fragments ${i.fragmentIds.slice(0, 3).join(', ')}${i.fragmentIds.length > 3 ? ', ...' : ''})`,
    });
  return {
    work: {
      doc: res.doc,
      fragments,
      pages: res.pages,
      issues,
      stats: { ...res.stats, chars: fragments.reduce((n, f) => n + f.text.length, 0) },
      points: kp.points,
      usage: { multimodal, extraction: kp.usage },
      ms: Date.now() - t0,
    },
  };
}

// ---------------------------------------------------------------------------- embedder

/** The configured OpenAI-compatible embedder, with its dimension known (one probe call when needed). */
async function endpointEmbedder(models: IndexModels | undefined): Promise<Embedder> {
  const e = models?.embedder?.();
  if (!e)
    throw new KfError(
      'embedder_unavailable',
      'the openai embedder was chosen but no embedding endpoint/model is configured',
      'configure the embedding stage (models config or OPENAI_BASE_URL + KF_EMBEDDING_MODEL), or use --embedder fitted|glove|hash',
      { concerns: 'embedding' },
    );
  await (e as Embedder & { init?: () => Promise<unknown> }).init?.();
  return e;
}

async function resolveEmbedder(
  choice: Embedder | EmbedderChoice,
  opts: BuildOptions,
  models: IndexModels | undefined,
  fitTexts: () => string[],
  previous: { engine?: SearchEngine; fitted?: CorpusFittedOptions },
): Promise<{ embedder: Embedder; choice: string }> {
  if (typeof choice !== 'string') return { embedder: choice, choice: 'custom' };
  switch (choice) {
    case 'hash':
      return { embedder: new HashingEmbedder(opts.hashDim ?? 256), choice };
    case 'glove':
      return { embedder: new GloveSifEmbedder(), choice };
    case 'fitted': {
      // Keep the previous build's fit: new documents are embedded in the same space and old vectors stay valid.
      const prev = previous.engine?.embedder;
      if (prev && prev instanceof CorpusFittedEmbedder && !opts.refitEmbedder && canonicalJson(previous.fitted ?? {}) === canonicalJson(opts.fitted ?? {})) {
        return { embedder: prev, choice };
      }
      return { embedder: await CorpusFittedEmbedder.fit(fitTexts(), opts.fitted), choice };
    }
    case 'openai':
      return { embedder: await endpointEmbedder(models), choice };
  }
  throw new KfError('bad_option', `unknown embedder "${String(choice)}"`, `use one of ${EMBEDDER_CHOICES.join(', ')}`);
}

// ---------------------------------------------------------------------------- the build

/** What one build works with: its input, options, folder, checkpoint store and the settings derived from them. */
interface Build {
  input: BuildIndexInput;
  o: BuildOptions;
  root: string;
  store: WorkStore;
  progress(e: BuildProgress): Promise<void>;
  seed: string;
  corpusDir?: string;
  corpusName: string;
  captionModel?: ChatModel;
  extractionModel?: ChatModel;
  relationsModel?: ChatModel;
  describe: boolean;
  relOpts: RelationOptions | false;
  engineOpts: Omit<EngineOptions, 'embedder' | 'indexText'>;
  /** What shapes a document's stored work: change any of it and the document is redone. */
  workShape: Record<string, unknown>;
  workKey(d: ScannedDoc): string;
  prev: { gen?: string; dir?: string; manifest?: IndexManifest; docs: Map<string, IndexedDocument> };
}

type DocEntry = { work: DocWork; key: string; processed: boolean; keptPrevious?: boolean };
type DocFailure = { status: 'error' | 'skipped'; reason: string; issues: IngestIssue[] };
type OkDoc = DocEntry & { id: string };

function buildSettings(input: BuildIndexInput, root: string, store: WorkStore): Omit<Build, 'prev'> {
  const o: BuildOptions = input.options ?? {};
  const seed = String(o.seed ?? 'kf-index');
  const corpusDir = input.corpusDir ? path.resolve(input.corpusDir) : undefined;
  const captionModel = stageModel(input.models, 'caption');
  const extractionModel = stageModel(input.models, 'extraction');
  const describe = o.describeMedia ?? true;
  const workShape = {
    v: WORK_VERSION,
    // OCR text layout (chart pairs...): a new layout redoes the documents' stored OCR-derived text.
    ocrLayout: OCR_LAYOUT_VERSION,
    ingest: o.ingest ?? {},
    passage: !!input.passages,
    describe,
    caption: describe ? backendOf(isOffline(captionModel) ? undefined : captionModel) : null,
    extraction: backendOf(isOffline(extractionModel) ? undefined : extractionModel),
    kp: {
      maxPerFragment: o.knowledgePoints?.maxPerFragment ?? 8,
      batchFragments: o.knowledgePoints?.batchFragments,
      batchChars: o.knowledgePoints?.batchChars,
    },
  };
  const shapeHash = shortHash(workShape, 16);
  return {
    input,
    o,
    root,
    store,
    seed,
    corpusDir,
    describe,
    workShape,
    captionModel,
    extractionModel,
    progress: async (e) => {
      if (o.onProgress) await o.onProgress(e);
    },
    corpusName: o.corpusName ?? o.benchmark ?? (corpusDir ? path.basename(corpusDir) : 'passages'),
    relationsModel: stageModel(input.models, 'relations'),
    relOpts: o.relations === false ? false : { scope: benchmarkSpec(o.benchmark)?.relationsScope ?? 'corpus', ...(o.relations ?? {}) },
    engineOpts: { ...(o.engine ?? {}), hnsw: { seed: numericSeed(seed), ...(o.engine?.hnsw ?? {}) } },
    workKey: (d) => sha256(`${d.id}\u0000${d.sha}\u0000${shapeHash}`),
  };
}

/** The previous build (the incremental base); an unreadable one counts as none. */
function readPrevious(root: string): Build['prev'] {
  const gen = currentGeneration(root);
  const dir = gen ? path.join(root, gen) : undefined;
  if (!dir) return { docs: new Map() };
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as IndexManifest;
    return { gen, dir, manifest, docs: new Map(readIndexedDocuments(dir).map((d) => [d.id, d])) };
  } catch {
    return { gen, dir, docs: new Map() };
  }
}

/** Per-document work: reuse the checkpoint or process (and checkpoint at once). */
async function documentWork(b: Build, scanned: ScannedDoc[], ctx: DocContext): Promise<{ works: Map<string, DocEntry>; failures: Map<string, DocFailure> }> {
  const { o, store } = b;
  const candidates = scanned.filter((d) => !d.verdict);
  const works = new Map<string, DocEntry>();
  const failures = new Map<string, DocFailure>();
  // A document that was indexed before and now fails (a broken new version, an unreadable file) keeps its
  // previously indexed version: a bad document never costs what the index already had. It is reported as an error.
  const keepPrevious = (id: string) => {
    const f = failures.get(id);
    const prev = b.prev.docs.get(id);
    if (!f || f.status !== 'error' || !prev) return;
    const w = store.doc(prev.workKey);
    if (w) works.set(id, { work: w, key: prev.workKey, processed: false, keptPrevious: true });
  };
  for (const d of scanned) {
    if (d.verdict?.status !== 'error' || works.has(d.id) || scanned.some((x) => x !== d && x.id === d.id && !x.verdict)) continue;
    failures.set(d.id, { status: 'error', reason: d.verdict.reason, issues: [] });
    keepPrevious(d.id);
  }
  let done = 0;
  await runPool(candidates, o.concurrency ?? 2, async (d) => {
    abortIf(o.signal);
    const key = b.workKey(d);
    const stored = store.doc(key);
    if (stored) {
      works.set(d.id, { work: stored, key, processed: false });
    } else {
      try {
        const r = await processDocument(d, ctx);
        if (r.work) {
          store.saveDoc(key, r.work);
          works.set(d.id, { work: r.work, key, processed: true });
        } else failures.set(d.id, r.failure!);
      } catch (e) {
        abortIf(o.signal);
        failures.set(d.id, { status: 'error', reason: errorMessage(e), issues: [] });
      }
      keepPrevious(d.id);
    }
    done++;
    const w = works.get(d.id);
    await b.progress({
      phase: 'document',
      docId: d.id,
      status: w ? 'ok' : failures.get(d.id)!.status,
      work: w ? (w.processed ? 'processed' : 'reused') : 'none',
      done,
      total: candidates.length,
    });
  });
  return { works, failures };
}

/** The embedder, and the previous engine when it can be updated in place (same embedder and engine options). */
async function embedderAndBase(b: Build, okDocs: OkDoc[]): Promise<{ embedder: Embedder; choiceName: string; prevEngine?: SearchEngine }> {
  const { input, o, prev } = b;
  const choice = input.embedder ?? 'fitted';
  let prevEngine: SearchEngine | undefined;
  if (prev.dir && prev.manifest && !o.rebuildEngine) {
    try {
      const reuse = typeof choice !== 'string' ? choice : choice === 'openai' ? await endpointEmbedder(input.models) : undefined;
      prevEngine = await SearchEngine.load(path.join(prev.dir, 'engine'), reuse);
    } catch {
      prevEngine = undefined; // a different embedder or an unreadable engine: build from stored vectors
    }
  }
  const { embedder, choice: choiceName } = await resolveEmbedder(choice, o, input.models, () => okDocs.flatMap((d) => d.work.fragments.map(defaultIndexText)), {
    engine: prevEngine,
    fitted: (prev.manifest?.options.embedder as { fitted?: CorpusFittedOptions } | undefined)?.fitted,
  });
  if (prevEngine && (prevEngine.embedder.id !== embedder.id || canonicalJson(prev.manifest?.options.engine ?? null) !== canonicalJson(b.engineOpts)))
    prevEngine = undefined;
  return { embedder, choiceName, prevEngine };
}

/** Vectors of fragments + points per document (checkpointed per document), embedded in batches of about 512 texts. */
async function embedDocuments(
  b: Build,
  okDocs: OkDoc[],
  embedder: Embedder,
): Promise<{ vectors: Map<string, Float32Array[]>; embedMs: Map<string, number>; embeddedNow: number }> {
  const vecKey = (docKey: string) => sha256(`${docKey}\u0000${embedder.id}`);
  const vectors = new Map<string, Float32Array[]>();
  const embedMs = new Map<string, number>();
  let embeddedNow = 0;
  const size = (d: OkDoc) => d.work.fragments.length + d.work.points.length;
  const missing = okDocs.filter((d) => {
    const v = b.store.vectors(vecKey(d.key));
    if (v && v.vectors.length === size(d) && (v.vectors[0]?.length ?? embedder.dim) === embedder.dim) {
      vectors.set(d.id, v.vectors);
      embedMs.set(d.id, v.ms);
      return false;
    }
    return true;
  });
  const BATCH = 512;
  for (let i = 0; i < missing.length;) {
    abortIf(b.o.signal);
    const group: OkDoc[] = [];
    let n = 0;
    while (i < missing.length && (group.length === 0 || n + size(missing[i]) <= BATCH)) {
      n += size(missing[i]);
      group.push(missing[i++]);
    }
    const texts = group.flatMap((d) => [...d.work.fragments.map(defaultIndexText), ...d.work.points.map(pointText)]);
    const t0 = Date.now();
    let vecs: Float32Array[];
    try {
      vecs = await embedder.embed(texts);
    } catch (e) {
      throw new KfError(
        'embedder_failed',
        `embedding ${texts.length} texts of ${group
          .map((d) => d.id)
          .slice(0, 3)
          .join(', ')} with ${embedder.id} failed: ${errorMessage(e)}`,
        'check the embedding endpoint, then rerun: documents already done are kept',
        { cause: e },
      );
    }
    if (vecs.length !== texts.length)
      throw new KfError(
        'embedder_failed',
        `embedder ${embedder.id} returned ${vecs.length} vectors for ${texts.length} texts`,
        'check the embedding endpoint/model',
      );
    const ms = Date.now() - t0;
    let at = 0;
    for (const d of group) {
      const k = size(d);
      const mine = vecs.slice(at, at + k);
      at += k;
      const share = (ms * k) / Math.max(1, texts.length);
      b.store.saveVectors(vecKey(d.key), d.key, embedder.id, embedder.dim, mine, share);
      vectors.set(d.id, mine);
      embedMs.set(d.id, share);
      embeddedNow += k;
    }
    await b.progress({ phase: 'embed', done: i, total: missing.length });
  }
  return { vectors, embedMs, embeddedNow };
}

/** The engine: the previous build's engine updated by the difference, or a new one from the stored vectors. */
async function assembleEngine(
  b: Build,
  okDocs: OkDoc[],
  vectors: Map<string, Float32Array[]>,
  embedder: Embedder,
  prevEngine: SearchEngine | undefined,
  change: (id: string, key: string) => DocumentReport['change'],
): Promise<SearchEngine> {
  const addDoc = async (e: SearchEngine, d: OkDoc) => {
    const v = vectors.get(d.id)!;
    await e.addFragments(d.work.fragments, v.slice(0, d.work.fragments.length));
  };
  if (!prevEngine) {
    const engine = SearchEngine.create({ ...b.engineOpts, embedder });
    for (const d of okDocs) await addDoc(engine, d);
    return engine;
  }
  const keep = new Set(okDocs.filter((d) => change(d.id, d.key) === 'unchanged').map((d) => d.id));
  const stale = prevEngine.documents().filter((id) => !keep.has(id));
  if (stale.length) prevEngine.removeDocuments(stale);
  for (const d of okDocs) if (!keep.has(d.id) || !prevEngine.fragmentsOf(d.id).length) await addDoc(prevEngine, d);
  return prevEngine;
}

type Relations = { relations: Relation[]; fragmentEdges: Relation[]; recalled: number; typed: number; usage: StageUsage; by: 'llm' | 'offline' };

/** Relations over every point (LLM typings of pairs seen before come from the store); reused as they are when nothing they depend on changed. */
async function pointRelations(
  b: Build,
  okDocs: OkDoc[],
  vectors: Map<string, Float32Array[]>,
  embedder: Embedder,
): Promise<{ rel: Relations; relShape: string; indexIssues: BuildReport['indexIssues'] }> {
  const { prev, relOpts } = b;
  const indexIssues: BuildReport['indexIssues'] = [];
  const allPoints = okDocs.flatMap((d) => d.work.points);
  const pointVecs = okDocs.flatMap((d) => vectors.get(d.id)!.slice(d.work.fragments.length));
  let rel: Relations = { relations: [], fragmentEdges: [], recalled: 0, typed: 0, usage: emptyUsage(), by: 'offline' };
  // Same documents, embedder and relation settings as the previous build: its relations are exactly what
  // recomputing would give (recall is deterministic, typings are cached), so they are reused as they are.
  const relShape = canonicalJson({ relOpts, embedder: embedder.id, model: backendOf(isOffline(b.relationsModel) ? undefined : b.relationsModel) });
  const sameInputs =
    !!prev.dir &&
    !!prev.manifest &&
    prev.manifest.relationsShape === relShape &&
    prev.docs.size === okDocs.length &&
    okDocs.every((d) => prev.docs.get(d.id)?.workKey === d.key);
  let reused = false;
  if (relOpts !== false && allPoints.length > 1 && sameInputs) {
    const prevRel = readJsonl<Relation>(path.join(prev.dir!, 'relations.jsonl'));
    if (!prevRel.badLines && prevRel.records.length === prev.manifest!.counts.relations.pointEdges) {
      rel = {
        ...rel,
        relations: prevRel.records,
        fragmentEdges: projectToFragments(prevRel.records, allPoints),
        recalled: prev.manifest!.counts.relations.recalled,
        typed: prev.manifest!.counts.relations.typed,
      };
      reused = true;
    }
  }
  if (relOpts !== false && allPoints.length > 1 && !reused) {
    abortIf(b.o.signal);
    await b.progress({ phase: 'relations', total: allPoints.length });
    const r = await buildRelations(allPoints, pointVecs, {
      ...relOpts,
      model: isOffline(b.relationsModel) ? undefined : b.relationsModel,
      cache: b.store,
      signal: b.o.signal,
    });
    for (const i of r.issues) indexIssues.push({ step: 'relations', code: i.code, message: `${i.message} (${i.pairs} pairs)` });
    rel = r;
  }
  return { rel, relShape, indexIssues };
}

/** One report line per scanned document: indexed, kept at its previous version, or why not. */
function documentReports(
  b: Build,
  scanned: ScannedDoc[],
  works: Map<string, DocEntry>,
  failures: Map<string, DocFailure>,
  change: (id: string, key: string) => DocumentReport['change'],
): DocumentReport[] {
  const kindsOf = (w: DocWork) => {
    const kinds = emptyKinds();
    for (const x of w.fragments) kinds[x.kind]++;
    return kinds;
  };
  return scanned.map((d): DocumentReport => {
    const w = works.get(d.id);
    if (w?.keptPrevious && failures.has(d.id)) {
      const f = failures.get(d.id)!;
      return {
        id: d.id,
        source: d.source,
        title: w.work.doc.title,
        format: w.work.doc.format,
        status: 'error',
        reason: `${f.reason} -- the previously indexed version is kept`,
        keptPrevious: true,
        work: 'reused',
        change: 'unchanged',
        ...(d.sha ? { sha256: d.sha } : {}),
        fragments: kindsOf(w.work),
        points: w.work.points.length,
        issues: f.issues.map(issueOf),
      };
    }
    if (w && !d.verdict) {
      return {
        id: d.id,
        source: d.source,
        title: w.work.doc.title,
        format: w.work.doc.format,
        status: 'ok',
        work: w.processed ? 'processed' : 'reused',
        change: change(d.id, w.key),
        sha256: d.sha,
        ...(w.work.pages
          ? {
              pages: countPages(w.work.pages),
              pageSources: w.work.pages.map((p) => ({ page: p.page, source: p.source, chars: p.chars, ...(p.error ? { error: p.error } : {}) })),
            }
          : {}),
        fragments: kindsOf(w.work),
        points: w.work.points.length,
        issues: w.work.issues.map(issueOf),
      };
    }
    const f = d.verdict ?? failures.get(d.id);
    const v = d.verdict;
    return {
      id: d.id,
      source: d.source,
      format: d.format,
      status: f?.status ?? 'error',
      reason: f?.reason ?? 'unknown failure',
      ...(v?.duplicateOf ? { duplicateOf: v.duplicateOf } : {}),
      work: 'none',
      change: b.prev.docs.has(d.id) ? 'changed' : 'added',
      ...(d.sha ? { sha256: d.sha } : {}),
      fragments: emptyKinds(),
      points: 0,
      issues: (failures.get(d.id)?.issues ?? []).map(issueOf),
    };
  });
}

/** Ledger counts of one indexed document. */
function docLedgerCounts(d: OkDoc, embedMs: Map<string, number>): LedgerCounts {
  const c = emptyLedgerCounts();
  c.documents = 1;
  c.sourceBytes = Number(d.work.doc.meta?.bytes ?? 0) || Buffer.byteLength(d.work.fragments.map((f) => f.text).join(''));
  c.markdownChars = d.work.stats.chars;
  c.images = d.work.stats.images;
  c.tables = d.work.stats.tables;
  c.ocrPages = d.work.stats.ocrPages;
  c.pages = d.work.pages?.length ?? 0;
  c.fragments = d.work.fragments.length;
  c.points = d.work.points.length;
  c.embeddings = c.fragments + c.points;
  c.tokens.extractionText = tokenCounts(usageOf(d.work.usage.extraction));
  c.tokens.extractionMultimodal = tokenCounts(usageOf(d.work.usage.multimodal));
  c.documentSeconds = (d.work.ms + (embedMs.get(d.id) ?? 0)) / 1000;
  return finishTokens(c);
}

/** Ledger counts summed over documents, with the relation usage folded into the text-extraction tokens. */
function summedCounts(docs: OkDoc[], embedMs: Map<string, number>, relUsage: StageUsage): LedgerCounts {
  const c = emptyLedgerCounts();
  for (const d of docs) addLedgerCounts(c, docLedgerCounts(d, embedMs));
  const t = c.tokens.extractionText;
  c.tokens.extractionText = tokenCounts({ calls: t.calls, promptTokens: t.promptTokens, completionTokens: t.completionTokens, cacheHits: 0 }, relUsage);
  return finishTokens(c);
}

/** Backend and model per build stage (`offline` means rules, never a model result). */
function stageBackends(b: Build, needsOcr: boolean, choiceName: string, embedder: Embedder): Record<string, StageBackend> {
  return {
    ingest: { backend: 'offline', model: needsOcr ? 'rules + tesseract OCR' : 'rules' },
    caption: b.describe ? backendOf(isOffline(b.captionModel) ? undefined : b.captionModel) : { backend: 'none', model: 'not run' },
    extraction: backendOf(isOffline(b.extractionModel) ? undefined : b.extractionModel),
    relations: b.relOpts === false ? { backend: 'none', model: 'not run' } : backendOf(isOffline(b.relationsModel) ? undefined : b.relationsModel),
    embedding: { backend: choiceName === 'openai' ? 'openai' : 'offline', model: embedder.id },
  };
}

/** The cost ledger: the whole index (cumulative relation costs) and this build (documents processed now). */
function costLedger(
  b: Build,
  okDocs: OkDoc[],
  x: { embedMs: Map<string, number>; embeddedNow: number; rel: Relations; backends: Record<string, StageBackend>; wallSeconds: number },
) {
  const cumulativeRel = usageOf(b.prev.manifest?.cumulative?.relations ?? emptyUsage());
  addUsage(cumulativeRel, x.rel.usage);
  const indexCounts = summedCounts(okDocs, x.embedMs, cumulativeRel);
  const buildCounts = summedCounts(
    okDocs.filter((d) => d.processed),
    x.embedMs,
    x.rel.usage,
  );
  buildCounts.embeddings = x.embeddedNow;
  buildCounts.wallSeconds = x.wallSeconds;
  indexCounts.wallSeconds = (b.prev.manifest?.cumulative?.wallSeconds ?? 0) + x.wallSeconds;
  const formats: Record<string, number> = {};
  for (const d of okDocs) {
    const f = b.input.passages ? 'passages' : d.work.doc.format;
    formats[f] = (formats[f] ?? 0) + 1;
  }
  const { extraction, relations, caption } = x.backends;
  const ledger: CostLedger = {
    corpus: b.corpusName,
    formats,
    backends: {
      preprocessing: 'offline',
      extractionText: extraction.backend === 'offline' && relations.backend !== 'openai' ? 'offline' : `${extraction.backend}/${relations.backend}`,
      extractionMultimodal: caption.backend,
    },
    index: indexCounts,
    thisBuild: buildCounts,
    ...(b.o.benchmark && PAPER_APPENDIX_D[b.o.benchmark] ? { paper: PAPER_APPENDIX_D[b.o.benchmark] } : {}),
  };
  return { ledger, cumulativeRel, indexCounts };
}

/** The manifest of the new build. */
function indexManifest(
  b: Build,
  x: {
    generation: string;
    okDocs: OkDoc[];
    inputKey: string;
    relShape: string;
    embedder: Embedder;
    choiceName: string;
    backends: Record<string, StageBackend>;
    summary: BuildReport['summary'];
    relationsSummary: IndexManifest['counts']['relations'];
    indexCounts: LedgerCounts;
    cumulativeRel: StageUsage;
    points: number;
  },
): IndexManifest {
  const { o, prev, corpusDir, okDocs } = { ...b, okDocs: x.okDocs };
  const byKind: Record<string, number> = { ...emptyKinds() };
  for (const d of okDocs) for (const f of d.work.fragments) byKind[f.kind]++;
  const git = gitInfo();
  return {
    kind: INDEX_MANIFEST_KIND,
    version: 1,
    generation: x.generation,
    ...(prev.gen ? { previousGeneration: prev.gen } : {}),
    builtAt: new Date().toISOString(),
    corpus: {
      kind: corpusDir ? 'directory' : 'passages',
      ...(corpusDir ? { path: corpusDir } : {}),
      name: b.corpusName,
      hash: sha256(okDocs.map((d) => `${d.id}\u0000${d.work.doc.sha256}`).join('\n')),
      documents: okDocs.length,
    },
    ...(o.benchmark ? { benchmark: o.benchmark } : {}),
    inputKey: x.inputKey,
    relationsShape: x.relShape,
    embedder: { id: x.embedder.id, dim: x.embedder.dim, choice: x.choiceName },
    seed: b.seed,
    git: { commit: git.commit, dirty: git.dirty },
    backends: x.backends,
    offline: Object.values(x.backends).every((s) => s.backend === 'offline' || s.backend === 'none'),
    options: {
      work: b.workShape,
      relations: b.relOpts,
      engine: b.engineOpts,
      embedder: { choice: x.choiceName, hashDim: o.hashDim, fitted: o.fitted },
      concurrency: o.concurrency ?? 2,
    },
    counts: {
      documents: okDocs.length,
      fragments: x.summary.fragments.total,
      byKind,
      points: x.points,
      relations: x.relationsSummary,
      pages: x.summary.pages.total,
      embeddings: x.indexCounts.embeddings,
    },
    cumulative: { relations: x.cumulativeRel, builds: (prev.manifest?.cumulative?.builds ?? 0) + 1, wallSeconds: x.indexCounts.wallSeconds },
  };
}

function indexedDocuments(okDocs: OkDoc[]): IndexedDocument[] {
  return okDocs.map((d) => ({
    id: d.id,
    title: d.work.doc.title,
    source: d.work.doc.source,
    format: d.work.doc.format,
    ...(d.work.doc.pages !== undefined ? { pages: d.work.doc.pages } : {}),
    sha256: d.work.doc.sha256,
    workKey: d.key,
    fragments: d.work.fragments.length,
    points: d.work.points.length,
    meta: d.work.doc.meta ?? {},
  }));
}

/** Save: a complete build folder under a temporary name, renamed, then CURRENT switches; older builds and stale work go. */
async function saveBuild(
  b: Build,
  x: {
    generation: string;
    engine: SearchEngine;
    okDocs: OkDoc[];
    points: KnowledgePoint[];
    rel: Relations;
    report: BuildReport;
    ledger: CostLedger;
    manifest: IndexManifest;
  },
): Promise<string> {
  const { root } = b;
  const tmp = path.join(root, `.${x.generation}.tmp-${process.pid}`);
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  await x.engine.save(path.join(tmp, 'engine'));
  writeJsonAtomic(path.join(tmp, 'documents.json'), indexedDocuments(x.okDocs));
  writeFileAtomic(path.join(tmp, 'knowledge-points.jsonl'), x.points.map((p) => JSON.stringify(p)).join('\n') + (x.points.length ? '\n' : ''));
  writeFileAtomic(path.join(tmp, 'relations.jsonl'), x.rel.relations.map((r) => JSON.stringify(r)).join('\n') + (x.rel.relations.length ? '\n' : ''));
  writeJsonAtomic(path.join(tmp, 'build-report.json'), x.report);
  writeJsonAtomic(path.join(tmp, 'cost-ledger.json'), x.ledger);
  writeFileAtomic(path.join(tmp, 'cost-ledger.md'), ledgerMarkdown(x.ledger));
  writeJsonAtomic(path.join(tmp, 'manifest.json'), x.manifest);
  const finalDir = path.join(root, x.generation);
  fs.rmSync(finalDir, { recursive: true, force: true });
  fs.renameSync(tmp, finalDir);
  fsyncDir(root);
  writeFileAtomic(path.join(root, INDEX_POINTER), `${x.generation}\n`);
  fsyncDir(root);
  // The new build is live: drop older builds, the work of documents that left the corpus, refresh the top-level copies.
  for (const name of fs.readdirSync(root)) {
    if (new RegExp(`^${BUILD_PREFIX}\\d+$`).test(name) && name !== x.generation) fs.rmSync(path.join(root, name), { recursive: true, force: true });
  }
  b.store.prune(new Set(x.okDocs.map((d) => d.key)));
  writeJsonAtomic(path.join(root, 'build-report.json'), x.report);
  writeJsonAtomic(path.join(root, 'cost-ledger.json'), x.ledger);
  writeFileAtomic(path.join(root, 'cost-ledger.md'), ledgerMarkdown(x.ledger));
  return finalDir;
}

/** Scan the corpus and do (or reuse) every document's work, with one OCR pool for the whole build. */
async function scanAndWork(b: Build) {
  const { o, input, corpusDir, root } = b;
  await b.progress({ phase: 'scan', message: corpusDir ?? `${input.passages!.length} passages` });
  const scanned = corpusDir
    ? scanDirectory(corpusDir, o.maxFileBytes ?? 1 << 30, o.include, new Set([...b.prev.docs.values()].map((d) => d.source)))
    : scanPassages(input.passages!);
  const needsOcr = !!corpusDir && (o.ingest?.ocr ?? 'auto') !== 'off';
  const ocrCacheDir = path.resolve(o.ocrCacheDir ?? path.join(root, 'work', 'ocr'));
  // PDF pages without text and images of HTML/Markdown share one pool; its workers start on first use.
  const ocrPool = needsOcr ? new OcrPool({ size: o.ocrWorkers ?? 2, cacheDir: ocrCacheDir }) : undefined;
  const ctx: DocContext = {
    root,
    corpusRoot: corpusDir,
    assetsDir: path.join(root, 'assets'),
    ocrCacheDir,
    ocrPool,
    ingest: o.ingest,
    describe: b.describe,
    captionModel: b.captionModel,
    extractionModel: b.extractionModel,
    kp: o.knowledgePoints ?? {},
    signal: o.signal,
  };
  try {
    const { works, failures } = await documentWork(b, scanned, ctx);
    return { scanned, needsOcr, works, failures, inputKey: buildInputKey(input, fingerprintOf(scanned)) };
  } finally {
    if (ocrPool) await ocrPool.close().catch(() => undefined);
  }
}

/** Build (or update) the index in `outDir`. See the file comment. */
export async function buildIndex(input: BuildIndexInput): Promise<BuildResult> {
  const started = Date.now();
  if (!input.corpusDir === !input.passages) {
    throw new KfError(
      'bad_input',
      'buildIndex needs exactly one of corpusDir (a folder of documents) or passages',
      'pass --corpus <dir> or a passages JSON file',
    );
  }
  if (!input.outDir) throw new KfError('bad_input', 'buildIndex needs outDir', 'pass --out <dir>');
  const root = ensureWritableDir(input.outDir, 'index directory');
  const release = acquireLock(root);
  const store = new WorkStore(path.join(root, 'work', 'work.sqlite'));
  try {
    // Stray temporary build folders of killed builds.
    for (const name of fs.readdirSync(root))
      if (name.startsWith(`.${BUILD_PREFIX}`) && name.includes('.tmp-')) fs.rmSync(path.join(root, name), { recursive: true, force: true });
    const b: Build = { ...buildSettings(input, root, store), prev: readPrevious(root) };
    const { scanned, needsOcr, works, failures, inputKey } = await scanAndWork(b);
    const okDocs: OkDoc[] = [...works.keys()].sort().map((id) => ({ id, ...works.get(id)! })); // a stable order
    abortIf(b.o.signal);
    const { embedder, choiceName, prevEngine } = await embedderAndBase(b, okDocs);
    const { vectors, embedMs, embeddedNow } = await embedDocuments(b, okDocs, embedder);
    abortIf(b.o.signal);
    await b.progress({ phase: 'engine' });
    const change = (id: string, key: string): DocumentReport['change'] => {
      const p = b.prev.docs.get(id);
      return !p ? 'added' : p.workKey === key ? 'unchanged' : 'changed';
    };
    const engine = await assembleEngine(b, okDocs, vectors, embedder, prevEngine, change);
    const { rel, relShape, indexIssues } = await pointRelations(b, okDocs, vectors, embedder);
    engine.setRelations(rel.fragmentEdges.map((e): RelationEdge => ({ from: e.from, to: e.to, type: e.type, weight: e.weight })));
    return await finishBuild(b, {
      started,
      scanned,
      works,
      failures,
      okDocs,
      inputKey,
      needsOcr,
      embedder,
      choiceName,
      vectors,
      embedMs,
      embeddedNow,
      engine,
      rel,
      relShape,
      indexIssues,
      change,
    });
  } finally {
    store.close();
    release();
  }
}

/** Report, ledger and manifest of the build, then save it and switch CURRENT to it. */
async function finishBuild(
  b: Build,
  x: {
    started: number;
    scanned: ScannedDoc[];
    works: Map<string, DocEntry>;
    failures: Map<string, DocFailure>;
    okDocs: OkDoc[];
    inputKey: string;
    needsOcr: boolean;
    embedder: Embedder;
    choiceName: string;
    vectors: Map<string, Float32Array[]>;
    embedMs: Map<string, number>;
    embeddedNow: number;
    engine: SearchEngine;
    rel: Relations;
    relShape: string;
    indexIssues: BuildReport['indexIssues'];
    change: (id: string, key: string) => DocumentReport['change'];
  },
): Promise<BuildResult> {
  const { okDocs, rel } = x;
  const reports = documentReports(b, x.scanned, x.works, x.failures, x.change);
  const okSet = new Set(okDocs.map((d) => d.id));
  const removed = [...b.prev.docs.keys()].filter((id) => !okSet.has(id)).sort();
  const relationsSummary = { recalled: rel.recalled, typed: rel.typed, pointEdges: rel.relations.length, fragmentEdges: rel.fragmentEdges.length };
  const summary = summarize(reports, removed.length, relationsSummary);
  // A document done by an interrupted build (added/changed, yet already in the store) means this build resumed.
  const resumed = okDocs.some((d) => !d.processed && x.change(d.id, d.key) !== 'unchanged');
  const backends = stageBackends(b, x.needsOcr, x.choiceName, x.embedder);
  const { ledger, cumulativeRel, indexCounts } = costLedger(b, okDocs, {
    embedMs: x.embedMs,
    embeddedNow: x.embeddedNow,
    rel,
    backends,
    wallSeconds: (Date.now() - x.started) / 1000,
  });
  const generation = nextBuildName(b.root, b.prev.gen);
  const points = okDocs.flatMap((d) => d.work.points);
  const manifest = indexManifest(b, {
    generation,
    okDocs,
    inputKey: x.inputKey,
    relShape: x.relShape,
    embedder: x.embedder,
    choiceName: x.choiceName,
    backends,
    summary,
    relationsSummary,
    indexCounts,
    cumulativeRel,
    points: points.length,
  });
  const corpus = { kind: b.corpusDir ? ('directory' as const) : ('passages' as const), ...(b.corpusDir ? { path: b.corpusDir } : {}), name: b.corpusName };
  const report: BuildReport = {
    kind: 'kf-build-report',
    version: 1,
    generation,
    ...(b.prev.gen ? { previousGeneration: b.prev.gen } : {}),
    startedAt: new Date(x.started).toISOString(),
    finishedAt: new Date().toISOString(),
    outDir: b.root,
    corpus,
    resumed,
    summary,
    documents: reports,
    removed,
    indexIssues: x.indexIssues,
    ledger,
  };
  abortIf(b.o.signal);
  await b.progress({ phase: 'save' });
  const finalDir = await saveBuild(b, { generation, engine: x.engine, okDocs, points, rel, report, ledger, manifest });
  await b.progress({ phase: 'done', done: okDocs.length, total: x.scanned.length });
  return { outDir: b.root, generation, generationDir: finalDir, manifest, report, ledger };
}

/** Content fingerprint of a scanned corpus: ids, sources and content hashes of every document (failures included). */
function fingerprintOf(scanned: readonly ScannedDoc[]): string {
  return sha256(scanned.map((d) => `${d.id}\u0000${d.source}\u0000${d.sha}`).join('\n'));
}

/**
 * What determines a build's result: the corpus content and every setting that
 * shapes the index. Equal keys = the built index is current (ensureIndex).
 */
function buildInputKey(input: BuildIndexInput, fingerprint: string): string {
  const o = input.options ?? {};
  return shortHash(
    {
      v: WORK_VERSION,
      fingerprint,
      embedder: typeof input.embedder === 'string' || input.embedder === undefined ? (input.embedder ?? 'fitted') : `custom:${input.embedder.id}`,
      seed: String(o.seed ?? 'kf-index'),
      benchmark: o.benchmark ?? null,
      ingest: o.ingest ?? {},
      describe: o.describeMedia ?? true,
      kp: o.knowledgePoints ? { ...o.knowledgePoints, signal: undefined } : {},
      relations: o.relations === false ? false : { ...(o.relations ?? {}), signal: undefined },
      engine: o.engine ?? {},
      hashDim: o.hashDim ?? null,
      fitted: o.fitted ?? null,
      models: buildStageModels(input.models),
    },
    24,
  );
}

/** The content fingerprint of a corpus as it is now (reads and hashes every document; no processing). */
export function corpusFingerprint(input: Pick<BuildIndexInput, 'corpusDir' | 'passages' | 'options'>): string {
  const o = input.options ?? {};
  const scanned = input.corpusDir ? scanDirectory(path.resolve(input.corpusDir), o.maxFileBytes ?? 1 << 30, o.include) : scanPassages(input.passages ?? []);
  return fingerprintOf(scanned);
}

/** Which model (or 'offline') each model-backed build stage would use: part of what an index depends on. */
export function buildStageModels(models: IndexModels | undefined): Record<string, string> {
  const model = (stage: string) => {
    const m = stageModel(models, stage);
    return isOffline(m) ? 'offline' : `${m!.backend}:${m!.id}`;
  };
  return { caption: model('caption'), extraction: model('extraction'), relations: model('relations') };
}

/** The input key of a corpus as it is now (reads and hashes every document; no processing). */
export function currentInputKey(input: Omit<BuildIndexInput, 'outDir'>): string {
  return buildInputKey({ ...input, outDir: '' }, corpusFingerprint(input));
}

export interface EnsureIndexInput extends Omit<BuildIndexInput, 'outDir'> {
  /** Use (and update when stale) this index folder; default: a folder named by the input key under `cacheRoot`. */
  outDir?: string;
  /** Where content-addressed indexes live (default <repo>/.kf-cache/indexes). */
  cacheRoot?: string;
}

/**
 * The index for this corpus and these settings, built only when missing or
 * stale (its manifest's input key differs from the corpus as it is now). Without
 * `outDir` the index lives under a content-hash folder, so repeated evaluations
 * of the same corpus and settings reuse it.
 */
export async function ensureIndex(input: EnsureIndexInput): Promise<{ dir: string; built: boolean; result?: BuildResult }> {
  const key = currentInputKey(input);
  const name = (input.options?.corpusName ?? input.options?.benchmark ?? (input.corpusDir ? path.basename(path.resolve(input.corpusDir)) : 'passages')).replace(
    /[^A-Za-z0-9._-]+/g,
    '_',
  );
  const dir = input.outDir
    ? path.resolve(input.outDir)
    : path.join(input.cacheRoot ?? path.join(repoRoot(), '.kf-cache', 'indexes'), `${name}-${key.slice(0, 16)}`);
  const gen = fs.existsSync(dir) ? currentGeneration(dir) : undefined;
  if (gen) {
    try {
      const m = JSON.parse(fs.readFileSync(path.join(dir, gen, 'manifest.json'), 'utf8')) as IndexManifest;
      if (m.inputKey === key) return { dir, built: false };
    } catch {
      /* unreadable manifest: rebuild */
    }
  }
  const result = await buildIndex({ ...input, outDir: dir });
  return { dir, built: true, result };
}

function nextBuildName(root: string, current: string | undefined): string {
  let max = current ? Number(current.slice(BUILD_PREFIX.length)) : 0;
  for (const name of fs.readdirSync(root)) {
    const m = new RegExp(`^\\.?${BUILD_PREFIX}(\\d+)`).exec(name);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return `${BUILD_PREFIX}${String(max + 1).padStart(6, '0')}`;
}
