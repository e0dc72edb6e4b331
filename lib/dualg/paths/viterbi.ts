/**
 * Path decoding by dynamic programming over the L-hop unrolled DAG (paper eq. 11):
 *   V_l(v) = max_u V_{l-1}(u) * F_l(u -> v),  Psi_l(v) = argmax_u,
 * in log space. A seed may also "wait" (V_l = V_{l-1}) because the boundary
 * condition re-injects the seeds at every layer: paths shorter than L are kept.
 * Backtracking from a target returns the edges of its best path, seed first.
 */
export interface DagEdges {
  src: Int32Array;
  dst: Int32Array;
}

export interface ViterbiTable {
  /** V_L in log space, per local node (-Infinity = unreachable). */
  best: Float32Array;
  /** Per layer l (0-based), the arg-max in-edge of each node, -1 for "waited" / none. */
  pred: Int32Array[];
}

export function viterbi(edges: DagEdges, numNodes: number, seedWeight: Float32Array, logFlowsPerLayer: Float32Array[]): ViterbiTable {
  let maxSeed = 0;
  for (let v = 0; v < numNodes; v++) maxSeed = Math.max(maxSeed, seedWeight[v]);
  let prev = new Float32Array(numNodes).fill(-Infinity);
  for (let v = 0; v < numNodes; v++) if (seedWeight[v] > 0) prev[v] = Math.log(seedWeight[v] / maxSeed);
  const pred: Int32Array[] = [];
  for (const lf of logFlowsPerLayer) {
    const cur = new Float32Array(numNodes).fill(-Infinity);
    const arg = new Int32Array(numNodes).fill(-1);
    for (let v = 0; v < numNodes; v++) if (seedWeight[v] > 0) cur[v] = prev[v];
    for (let e = 0; e < edges.src.length; e++) {
      const cand = prev[edges.src[e]] + lf[e];
      const v = edges.dst[e];
      if (cand > cur[v]) {
        cur[v] = cand;
        arg[v] = e;
      }
    }
    pred.push(arg);
    prev = cur;
  }
  return { best: prev, pred };
}

/** The edges (with their layer) of the best path into `target`, in order from the seed (empty when the target is a seed that waited). */
export function backtrack(table: ViterbiTable, edges: DagEdges, target: number): { edge: number; layer: number }[] {
  const path: { edge: number; layer: number }[] = [];
  let v = target;
  for (let l = table.pred.length - 1; l >= 0; l--) {
    const e = table.pred[l][v];
    if (e < 0) continue;
    path.push({ edge: e, layer: l });
    v = edges.src[e];
  }
  return path.reverse();
}
