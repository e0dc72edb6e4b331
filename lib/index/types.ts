/**
 * Contracts of the knowledge-point index (job 1, retrieval side). A search makes
 * no model call except embedding the query.
 */
import type { FragmentKind, MediaAsset } from '../corpus/types';

// The dense text encoder is declared by the model layer (which implements the OpenAI one) and used here.
export type { Embedder } from '../model-api/types';

/** An atomic knowledge point (title, one-sentence summary, source fragment). Offline: sentence-level points. */
export interface KnowledgePoint {
  id: string;
  fragmentId: string;
  docId: string;
  title: string;
  summary: string;
  by: 'llm' | 'offline';
}

export type RelationType = 'same-topic' | 'extends' | 'contrasts' | 'supports' | 'prerequisite' | 'similar';

/** An edge between knowledge points (typed by an LLM) or fragments (offline similarity). */
export interface Relation {
  from: string;
  to: string;
  type: RelationType;
  /** Cosine similarity that recalled the pair. */
  weight: number;
  by: 'llm' | 'offline';
}

/** The engine's retrieval modes: the one table every caller (engine, knowledge base, CLI, schema) reads. */
export const RETRIEVAL_MODES = ['bm25', 'dense', 'hybrid', 'hybrid+graph'] as const;
export type RetrievalMode = (typeof RETRIEVAL_MODES)[number];
export type FusionMethod = 'rrf' | 'weighted';

export interface SearchOptions {
  topk?: number;
  mode?: RetrievalMode;
  fusion?: FusionMethod;
  /** Restrict to these documents (single-document benchmarks). */
  docIds?: string[];
  /** Attach neighbour text and media (default true). */
  withContext?: boolean;
  /**
   * Pre-computed query embedding (unit length, the index's embedder): the
   * search then makes no embedder call (benchmarks time the round without it;
   * callers batching query embeddings reuse them).
   */
  queryVector?: Float32Array;
  /** Candidates taken from each retriever before fusion (default max(40, 4 x topk)). */
  depth?: number;
}

export interface SearchHit {
  fragmentId: string;
  docId: string;
  kind: FragmentKind;
  /** Rank within this search's list (1-based). */
  rank: number;
  /** Final score used for ranking (fused, or the anchor's score for expansion hits). */
  score: number;
  scores: { bm25?: number; dense?: number; fused?: number };
  via: 'bm25' | 'dense' | 'hybrid' | 'expansion';
  /** For expansion hits: the anchor they were reached from, and the relation. */
  anchorId?: string;
  relation?: string;
  text: string;
  page?: number;
  section: string[];
  /** Adjacent-fragment context (trimmed). */
  context?: { prev?: string; next?: string };
  /** Media attached to this hit (for text hits) or its own asset (for media hits). */
  media: { fragmentId: string; kind: FragmentKind; label?: string; caption?: string; asset?: MediaAsset }[];
}

export interface SearchTimings {
  embedMs: number;
  bm25Ms: number;
  hnswMs: number;
  fusionMs: number;
  expansionMs: number;
  contextMs: number;
  /** The part of hnswMs spent widening the HNSW candidates (lexical seeds, document siblings, exact cosine); absent when not measured. */
  wideningMs?: number;
  /** Everything except the query embedding. */
  roundMs: number;
}

export interface SearchResult {
  query: string;
  hits: SearchHit[];
  timings: SearchTimings;
}

/** What the pipelines need from an index (KnowForge locator tools, one-shot baselines, retrieval eval). */
export interface Retriever {
  search(query: string, opts?: SearchOptions): Promise<SearchResult>;
}
