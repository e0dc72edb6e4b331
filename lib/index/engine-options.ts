/**
 * The engine's options: what create() accepts, what the manifest stores, and
 * their validation (defaults filled in, bad values refused with a KfError).
 */
import type { Fragment } from '../corpus/types';
import type { Embedder, FusionMethod, RetrievalMode } from './types';
import { RETRIEVAL_MODES } from './types';
import type { Bm25Options } from './bm25';
import { resolveHnswOptions, type HnswOptions, type ResolvedHnswOptions } from './dense';
import { validateWeights, defaultFusionWeights, DEFAULT_RRF_K, type FusionWeights } from './fusion';
import { Tokenizer, type ResolvedTokenizerOptions, type TokenizerOptions } from './tokenize';
import { KfError } from '../util/errors';

export interface GraphExpansionOptions {
  /** How many top hits are expanded (paper: 8). */
  anchors?: number;
  /** Neighbours added per anchor, strongest edge first (default 2). */
  perAnchor?: number;
  /** Ignore edges lighter than this (default 0). */
  minWeight?: number;
  /** Traverse edges in both directions (default true: a relation links two points either way). */
  bidirectional?: boolean;
  /**
   * Where expansion hits go: right after their anchor (default; they inherit its
   * score, which is what the paper's S4 numbers show: R@1 unchanged, R@3/R@8
   * slightly lower than S3), or after all primary hits.
   */
  placement?: 'after-anchor' | 'append';
}

export interface ContextOptions {
  /** Characters of neighbour text kept on each side (default 300). */
  chars?: number;
}

export interface EngineOptions {
  embedder: Embedder;
  tokenizer?: TokenizerOptions;
  bm25?: Bm25Options;
  hnsw?: HnswOptions;
  fusion?: FusionMethod;
  /** Default: fusion.ts defaultFusionWeights(embedder.id) (small dense weight for offline encoders, equal for neural ones). */
  fusionWeights?: FusionWeights;
  rrfK?: number;
  /** Per-query confidence scaling of the fusion weights (fusion.ts). Default false. */
  adaptiveFusion?: boolean;
  /**
   * Dense-stage widening (see widenDense): exact cosine also for the reading-order
   * neighbours (+-siblingWindow) of the hits of the best `siblingDocs` documents
   * (defaults 3 and 64; 0 switches it off).
   */
  denseWidening?: { siblingDocs?: number; siblingWindow?: number };
  graph?: GraphExpansionOptions;
  context?: ContextOptions;
  /** Mode used when a search does not name one (default 'hybrid+graph'; without relations it equals 'hybrid'). */
  defaultMode?: RetrievalMode;
  /** save() compacts first when this share of slots is removed (default 0.3). */
  compactRatio?: number;
  /** Text that takes part in retrieval for a fragment (default: section path, label, caption, text). */
  indexText?: (f: Fragment) => string;
}

/** The options as stored in the manifest (functions and the embedder excluded). */
export interface StoredOptions {
  tokenizer: ResolvedTokenizerOptions;
  hnsw: ResolvedHnswOptions;
  fusion: FusionMethod;
  fusionWeights: FusionWeights;
  rrfK: number;
  adaptiveFusion: boolean;
  denseWidening: { siblingDocs: number; siblingWindow: number };
  graph: Required<GraphExpansionOptions>;
  context: Required<ContextOptions>;
  defaultMode: RetrievalMode;
  compactRatio: number;
}

export function resolveEngineOptions(o: Omit<EngineOptions, 'embedder'>): StoredOptions {
  const fusion = o.fusion ?? 'weighted';
  if (fusion !== 'rrf' && fusion !== 'weighted')
    throw new KfError('bad_option', `fusion must be rrf or weighted (got ${fusion})`, 'use weighted (default) or rrf');
  const mode = o.defaultMode ?? 'hybrid+graph';
  if (!RETRIEVAL_MODES.includes(mode))
    throw new KfError('bad_option', `defaultMode must be one of ${RETRIEVAL_MODES.join(', ')} (got ${mode})`, 'use hybrid+graph');
  const g = o.graph ?? {};
  const graph: Required<GraphExpansionOptions> = {
    anchors: g.anchors ?? 8,
    perAnchor: g.perAnchor ?? 2,
    minWeight: g.minWeight ?? 0,
    bidirectional: g.bidirectional ?? true,
    placement: g.placement ?? 'after-anchor',
  };
  if (!Number.isInteger(graph.anchors) || graph.anchors < 0 || !Number.isInteger(graph.perAnchor) || graph.perAnchor < 0) {
    throw new KfError(
      'bad_option',
      `graph.anchors and graph.perAnchor must be integers >= 0 (got ${graph.anchors}, ${graph.perAnchor})`,
      'use anchors 8, perAnchor 2',
    );
  }
  if (graph.placement !== 'after-anchor' && graph.placement !== 'append')
    throw new KfError('bad_option', `graph.placement must be after-anchor or append (got ${graph.placement})`, 'use after-anchor');
  const chars = o.context?.chars ?? 300;
  if (!Number.isInteger(chars) || chars < 0) throw new KfError('bad_option', `context.chars must be an integer >= 0 (got ${chars})`, 'use 300');
  const denseWidening = { siblingDocs: o.denseWidening?.siblingDocs ?? 3, siblingWindow: o.denseWidening?.siblingWindow ?? 64 };
  if (
    !Number.isInteger(denseWidening.siblingDocs) ||
    denseWidening.siblingDocs < 0 ||
    !Number.isInteger(denseWidening.siblingWindow) ||
    denseWidening.siblingWindow < 0
  ) {
    throw new KfError(
      'bad_option',
      `denseWidening.siblingDocs and siblingWindow must be integers >= 0 (got ${denseWidening.siblingDocs}, ${denseWidening.siblingWindow})`,
      'use 3 and 64, or 0 to switch off',
    );
  }
  const compactRatio = o.compactRatio ?? 0.3;
  if (!(compactRatio > 0 && compactRatio <= 1)) throw new KfError('bad_option', `compactRatio must be in (0, 1] (got ${compactRatio})`, 'use 0.3');
  return {
    tokenizer: new Tokenizer(o.tokenizer).options,
    hnsw: resolveHnswOptions(o.hnsw),
    fusion,
    fusionWeights: validateWeights(o.fusionWeights ?? defaultFusionWeights('')),
    rrfK: o.rrfK ?? DEFAULT_RRF_K,
    adaptiveFusion: o.adaptiveFusion ?? false,
    denseWidening,
    graph,
    context: { chars },
    defaultMode: mode,
    compactRatio,
  };
}

/** The default query-time options (what create() uses when none are given; fusion weights depend on the embedder). */
export function defaultQueryOptions(): {
  denseWidening: { siblingDocs: number; siblingWindow: number };
  graph: Required<GraphExpansionOptions>;
  context: Required<ContextOptions>;
  fusion: FusionMethod;
  rrfK: number;
  adaptiveFusion: boolean;
  defaultMode: RetrievalMode;
} {
  const d = resolveEngineOptions({});
  return {
    denseWidening: d.denseWidening,
    graph: d.graph,
    context: d.context,
    fusion: d.fusion,
    rrfK: d.rrfK,
    adaptiveFusion: d.adaptiveFusion,
    defaultMode: d.defaultMode,
  };
}
