/**
 * Micro-graph candidates by dense top-K (paper 4.2.2 and Appendix A.1: the top-K semantic candidates of each
 * query node come from a dense vector index; K = 3, Table C.1): retriever setting microCandidates = "stage".
 * The micro nodes' names are embedded once per micro index through the `embedding` stage (kept for the
 * process), each query's named terms with one call per query; a candidate needs cosine >= GATE, the same hard
 * semantic gate the branch-and-bound applies (fixed a priori, not tuned). The default, the name index of
 * micro-match.ts (trigram similarity among nodes sharing a word), is the offline stand-in, labelled as such.
 */
import type { Embedder } from '../../model-api/types';
import { nearestRows, unitRows, type NameMatrix } from './name-index';
import { GATE, TOP_K, type CandidateLookup, type MicroIndex } from './micro-match';

export const DENSE_MICRO_LABEL = 'micro candidates by dense top-3 (embedding stage)';
export const TRIGRAM_MICRO_LABEL = 'micro candidates by the trigram name index (offline stand-in for the dense top-3)';

export interface MicroCandidateSource {
  readonly label: string;
  /** The candidates of each name (top-K, gated), as micro-match reads them. */
  lookup(index: MicroIndex, names: string[]): Promise<CandidateLookup>;
}

export function denseMicroCandidates(embedder: Embedder, k = TOP_K): MicroCandidateSource {
  const matrices = new WeakMap<MicroIndex, Promise<NameMatrix>>();
  const matrixOf = (index: MicroIndex) => {
    let m = matrices.get(index);
    if (!m) {
      m = embedder.embed(index.nodes).then((vecs) => {
        const dim = vecs[0]?.length ?? 0;
        return { dim, rows: unitRows(vecs, dim) };
      });
      // A failed embedding call (endpoint down) is not kept: the next query tries again.
      m.catch(() => matrices.delete(index));
      matrices.set(index, m);
    }
    return m;
  };
  return {
    label: DENSE_MICRO_LABEL,
    async lookup(index, names) {
      const distinct = [...new Set(names.map((n) => n.trim()).filter((n) => n && !n.startsWith('?')))];
      const found = new Map<string, { node: number; sim: number }[]>();
      if (distinct.length && index.nodes.length) {
        const [m, qs] = await Promise.all([matrixOf(index), embedder.embed(distinct)]);
        nearestRows(m, qs, k, GATE).forEach((near, i) =>
          found.set(
            distinct[i],
            near.map((n) => ({ node: n.entity, sim: n.similarity })),
          ),
        );
      }
      return (name) => found.get(name.trim()) ?? [];
    },
  };
}
