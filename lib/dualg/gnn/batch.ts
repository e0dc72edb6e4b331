/**
 * Several queries' active subgraphs as one disjoint union, so one forward pass
 * (one gather / segment-sum per layer) serves a whole training batch. Each node
 * and edge remembers which query it belongs to.
 */
import type { ActiveSubgraph } from './active-subgraph';

export interface SubgraphBatch {
  numQueries: number;
  numNodes: number;
  /** Query index of each batch node / edge. */
  nodeQuery: Int32Array;
  edgeQuery: Int32Array;
  seedWeight: Float32Array;
  src: Int32Array;
  dst: Int32Array;
  rel: Int32Array;
  weight: Float32Array;
  /** Where each query's nodes / edges start in the batch (length numQueries + 1). */
  nodeOffsets: Int32Array;
  edgeOffsets: Int32Array;
  parts: ActiveSubgraph[];
  /** Prior-conditioned models: per node [doc prior, reciprocal rank] and per edge [lead fit, sentence fit] (row-major; gnn/prior-features.ts). */
  nodeFeat?: Float32Array;
  edgeFeat?: Float32Array;
}

export function batchSubgraphs(parts: ActiveSubgraph[]): SubgraphBatch {
  const nodeOffsets = new Int32Array(parts.length + 1);
  const edgeOffsets = new Int32Array(parts.length + 1);
  parts.forEach((p, i) => {
    nodeOffsets[i + 1] = nodeOffsets[i] + p.nodes.length;
    edgeOffsets[i + 1] = edgeOffsets[i] + p.src.length;
  });
  const N = nodeOffsets[parts.length],
    E = edgeOffsets[parts.length];
  const b: SubgraphBatch = {
    numQueries: parts.length,
    numNodes: N,
    nodeQuery: new Int32Array(N),
    edgeQuery: new Int32Array(E),
    seedWeight: new Float32Array(N),
    src: new Int32Array(E),
    dst: new Int32Array(E),
    rel: new Int32Array(E),
    weight: new Float32Array(E),
    nodeOffsets,
    edgeOffsets,
    parts,
  };
  parts.forEach((p, i) => {
    const n0 = nodeOffsets[i],
      e0 = edgeOffsets[i];
    b.nodeQuery.fill(i, n0, nodeOffsets[i + 1]);
    b.edgeQuery.fill(i, e0, edgeOffsets[i + 1]);
    b.seedWeight.set(p.seedWeight, n0);
    b.rel.set(p.rel, e0);
    b.weight.set(p.weight, e0);
    for (let e = 0; e < p.src.length; e++) {
      b.src[e0 + e] = p.src[e] + n0;
      b.dst[e0 + e] = p.dst[e] + n0;
    }
  });
  return b;
}
