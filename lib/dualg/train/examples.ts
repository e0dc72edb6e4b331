/**
 * Training examples: a GnnQuery plus what it should find. KG-completion examples
 * name target entities and hide the edges being predicted; question examples
 * name their gold documents, whose entities become the positive nodes.
 */
import type { GnnGraph, GnnQuery } from '../types';
import type { ActiveSubgraph } from '../gnn/active-subgraph';
import { nodeDocIndex } from '../gnn/doc-scores';

export interface TrainExample {
  id: string;
  query: GnnQuery;
  targetNodes?: Int32Array;
  /** Gold document indices (GnnGraph.docIds order). */
  targetDocs?: Int32Array;
  /** Global edge ids hidden from this query's subgraph. */
  exclude?: ReadonlySet<number>;
}

/** 1 for each active node that is a target entity or occurs in a gold document. */
export function nodeTargets(graph: GnnGraph, active: ActiveSubgraph, ex: TrainExample): Float32Array {
  const out = new Float32Array(active.nodes.length);
  const nodes = ex.targetNodes ? new Set(ex.targetNodes) : undefined;
  const docs = ex.targetDocs ? new Set(ex.targetDocs) : undefined;
  const index = docs ? nodeDocIndex(graph) : undefined;
  active.nodes.forEach((v, i) => {
    if (nodes?.has(v)) out[i] = 1;
    else if (docs && index) {
      for (let k = index.offsets[v]; k < index.offsets[v + 1]; k++)
        if (docs.has(index.docs[k])) {
          out[i] = 1;
          break;
        }
    }
  });
  return out;
}

/** Recall of the gold documents among the top k document scores. */
export function recallAtK(docScores: Float32Array, gold: Int32Array, k: number): number {
  if (!gold.length) return 0;
  const order = Array.from(docScores.keys())
    .filter((d) => docScores[d] > 0)
    .sort((a, b) => docScores[b] - docScores[a] || a - b)
    .slice(0, k);
  const top = new Set(order);
  let hit = 0;
  for (const g of gold) if (top.has(g)) hit++;
  return hit / gold.length;
}
