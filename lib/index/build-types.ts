/** Shapes of an index build: its input, options, progress and result, and the internal records its steps pass along. */
import type { CorpusPassage } from '../bench/types';
import type { DocumentFormat, IngestIssue } from '../corpus/types';
import type { IngestOptions } from '../corpus/options';
import { OcrPool } from '../corpus/ocr';
import type { ChatModel } from '../model-api/types';
import type { EngineOptions } from './engine';
import type { CorpusFittedOptions } from './embedders/corpus-fitted';
import type { Embedder, Relation } from './types';
import type { KnowledgePointOptions, StageUsage } from './knowledge-points';
import type { RelationOptions } from './relations';
import type { BuildReport, CostLedger, DocumentReport } from './report';
import type { IndexManifest, IndexModels, IndexedDocument } from './open';
import type { WorkStore } from './build-work-store';

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
  /** Where the passages came from (a passages file), for messages only: a folder corpus names itself. */
  corpusPath?: string;
  /** Ingestion settings passed to lib/corpus (fragment sizes, OCR mode and confidence, render scale...). */
  ingest?: Pick<IngestOptions, 'ocr' | 'minOcrConfidence' | 'fragmentChars' | 'maxTableRows' | 'minImagePixels' | 'renderScale'>;
  /** OCR workers (default 2) and cache folder (default <out>/work/ocr). */
  ocrWorkers?: number;
  ocrCacheDir?: string;
  /** Describe images/tables (VLM stage 'caption' when configured, else offline caption + OCR + rows). Default true. */
  describeMedia?: boolean;
  /** Most share of failed model descriptions (per fragment) a build accepts; past it the build fails. Default 0.05. */
  maxDescribeFailureShare?: number;
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

import type { DocWork } from './build-work-store';
export type { DocWork };

export interface ScannedDoc {
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

export const WORK_VERSION = 1;

export interface DocContext {
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

/** What one build works with: its input, options, folder, checkpoint store and the settings derived from them. */
export interface Build {
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

export type DocEntry = { work: DocWork; key: string; processed: boolean; keptPrevious?: boolean };
export type DocFailure = { status: 'error' | 'skipped'; reason: string; issues: IngestIssue[] };
export type OkDoc = DocEntry & { id: string };

export type Relations = { relations: Relation[]; fragmentEdges: Relation[]; recalled: number; typed: number; usage: StageUsage; by: 'llm' | 'offline' };
