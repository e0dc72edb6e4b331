/**
 * Local flows (paper eq. 10): F_l(u -> v) = softmax over the in-edges of v of
 * (m_uv . h_v(l)) / tau_flow, from the edge logits the GNN's forward pass kept.
 * Returned as log-probabilities, the form the Viterbi recursion adds up.
 */
export function logFlows(edgeLogits: Float32Array, dst: Int32Array, numNodes: number, tau: number): Float32Array {
  const max = new Float32Array(numNodes).fill(-Infinity);
  for (let e = 0; e < dst.length; e++) max[dst[e]] = Math.max(max[dst[e]], edgeLogits[e] / tau);
  const sum = new Float64Array(numNodes);
  for (let e = 0; e < dst.length; e++) sum[dst[e]] += Math.exp(edgeLogits[e] / tau - max[dst[e]]);
  const out = new Float32Array(dst.length);
  for (let e = 0; e < dst.length; e++) out[e] = edgeLogits[e] / tau - max[dst[e]] - Math.log(sum[dst[e]]);
  return out;
}
