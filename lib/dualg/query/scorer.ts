/**
 * The scorer seam between the graph side (DG1) and the GNN side (DG2).
 *
 * DG2 exports from lib/dualg/gnn (index.ts) a factory
 *   createGnnScorer(setup: GnnScorerSetup): Promise<GnnScorer | undefined>
 * returning undefined when no checkpoint exists for this graph (the retriever
 * then refuses to load, naming the command that trains one: a GNN row never
 * silently becomes a heuristic row). A
 * GnnScorer maps (GnnGraph, GnnQuery) to node scores, document scores (index =
 * GnnGraph.docIds order) and decoded paths.
 */
import type { EvidencePath } from '../paths/evidence-path';
import type { SetupModels } from '../../pipeline/retriever-entry';
import type { GnnGraph, GnnQuery } from '../types';
import type { CheckpointIdentity } from './scorer-identity';
import { hashedVector } from '../../util/hashed-vector';

export interface GnnScores {
  nodeScores: Float32Array;
  docScores: Float32Array;
  paths: EvidencePath[];
}

export type GnnScorer = (graph: GnnGraph, query: GnnQuery) => GnnScores | Promise<GnnScores>;

export interface GnnScorerSetup {
  graph: GnnGraph;
  /** Identity of the graph (checkpoints built for another graph are refused by DG2). */
  graphFingerprint: string;
  indexDir?: string;
  settings: Record<string, unknown>;
  /** The run's models, handed in (the graph's and the checkpoint's model stages go through them). */
  models?: SetupModels;
  log?(line: string): void;
}

/** A trained scorer with the identity of the checkpoint it was opened from. */
export interface LoadedGnn {
  scorer: GnnScorer;
  checkpoint: CheckpointIdentity;
}

export type GnnScorerFactory = (setup: GnnScorerSetup) => Promise<LoadedGnn | undefined>;

/** A deterministic query encoding (hashed bag of words, unit length) for GnnQuery.queryVector when no encoder is given. */
export function hashedQueryVector(text: string, dim = 64): Float32Array {
  // Plain 32-bit FNV-1a, sign from the low bit, raw term counts: the encoding trained checkpoints were built with.
  const scheme = { dim, hash: plainFnv1a, sign: (h: number) => ((h & 1) === 0 ? 1 : -1), weight: (c: number) => c };
  return hashedVector(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [], scheme);
}

/** 32-bit FNV-1a without a finaliser (lib/index/embedders/feature-hash.ts's fnv1a mixes its bits). */
function plainFnv1a(w: string): number {
  let h = 2166136261;
  for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
  return h >>> 0;
}
