/**
 * DualG-MRAG's explanation paths: what its graph searches decode behind a ranking, and where they
 * travel in the method-neutral contract (`RankedEvidence.extra`, key `paths`). Only DualG's files
 * write and read that key, through `withPaths` and `evidencePaths`.
 */
import type { RankedEvidence } from '../../pipeline/ranked-evidence';

/** One step of an explanation path: `from -relation-> to`, with where it was read. */
export interface PathStep {
  from: string;
  relation: string;
  to: string;
  /** Flow or edge weight of this step (path decoding), when the retriever has one. */
  weight?: number;
  /** The passage / table / image the step was read from. */
  source?: { docId?: string; fragmentId?: string; asset?: string; snippet?: string };
}

/** A decoded reasoning path (DualG-MRAG path decoding) from a seed entity to a target. */
export interface EvidencePath {
  score: number;
  steps: PathStep[];
  /** Documents the path passes through, in order. */
  docs: string[];
}

/** The `extra` of a ranked evidence that carries these paths. */
export function withPaths(paths: EvidencePath[]): { paths: EvidencePath[] } {
  return { paths };
}

/** The decoded paths of a DualG search result; undefined when the retriever decoded none (not a DualG graph search). */
export function evidencePaths(ev: Pick<RankedEvidence, 'extra'>): EvidencePath[] | undefined {
  const paths = ev.extra?.paths;
  return Array.isArray(paths) ? (paths as EvidencePath[]) : undefined;
}
