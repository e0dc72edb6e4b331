/**
 * From one query's forward pass to EvidencePaths: flows per layer, Viterbi,
 * backtracking from the best-scored non-seed targets, then each step named
 * (entity -relation-> entity) and attached to the passage it was read from.
 */
import type { EvidencePath, PathStep } from '../../pipeline/ranked-evidence';
import type { GnnGraph } from '../types';
import type { ActiveSubgraph } from '../gnn/active-subgraph';
import { nodeDocIndex } from '../gnn/doc-scores';
import { logFlows } from './flows';
import { backtrack, viterbi } from './viterbi';

export interface DecodeOptions {
  /** How many targets to backtrack from (default 5). */
  maxPaths?: number;
  /** tau_flow (default 1). */
  temperature?: number;
}

export interface DecodeInput {
  graph: GnnGraph;
  active: ActiveSubgraph;
  /** Node logits per local node of `active`. */
  localScores: Float32Array;
  /** Per layer, m_uv . h_v(l) per active edge. */
  edgeLogits: Float32Array[];
  /** Document scores (to pick the passage a step or a target is best read from). */
  docScores: Float32Array;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export function decodePaths(input: DecodeInput, opts: DecodeOptions = {}): EvidencePath[] {
  const { active, localScores } = input;
  const n = active.nodes.length;
  const flows = input.edgeLogits.map((a) => logFlows(a, active.dst, n, opts.temperature ?? 1));
  const table = viterbi(active, n, active.seedWeight, flows);
  const targets: number[] = [];
  for (let v = 0; v < n; v++) if (active.seedWeight[v] === 0 && Number.isFinite(table.best[v])) targets.push(v);
  targets.sort((a, b) => localScores[b] - localScores[a] || a - b);
  const paths: EvidencePath[] = [];
  for (const t of targets.slice(0, opts.maxPaths ?? 5)) {
    const edges = backtrack(table, active, t);
    if (!edges.length) continue;
    const steps = edges.map(({ edge, layer }) => namedStep(input, edge, Math.exp(flows[layer][edge])));
    const targetDoc = bestDoc(input, [active.nodes[t]]);
    const docs: string[] = [];
    for (const s of steps) if (s.source?.docId && !docs.includes(s.source.docId)) docs.push(s.source.docId);
    if (targetDoc !== undefined && !docs.includes(input.graph.docIds[targetDoc])) docs.push(input.graph.docIds[targetDoc]);
    paths.push({ score: sigmoid(localScores[t]) * Math.exp(table.best[t]), steps, docs });
  }
  return paths;
}

function namedStep(input: DecodeInput, e: number, flow: number): PathStep {
  const { graph, active } = input;
  const u = active.nodes[active.src[e]], v = active.nodes[active.dst[e]];
  const doc = bestDoc(input, [u, v]) ?? bestDoc(input, [u]);
  return {
    from: graph.nodeText[u] ?? String(u),
    relation: graph.relationText[active.rel[e]] ?? String(active.rel[e]),
    to: graph.nodeText[v] ?? String(v),
    weight: flow,
    source: doc === undefined ? undefined : { docId: graph.docIds[doc] },
  };
}

/** The best-scored document containing ALL the given nodes (undefined when they share none). */
function bestDoc(input: DecodeInput, nodes: number[]): number | undefined {
  const index = nodeDocIndex(input.graph);
  const count = new Map<number, number>();
  for (const v of nodes) for (let k = index.offsets[v]; k < index.offsets[v + 1]; k++) count.set(index.docs[k], (count.get(index.docs[k]) ?? 0) + 1);
  let best: number | undefined;
  for (const [d, c] of count) {
    if (c < nodes.length) continue;
    if (best === undefined || input.docScores[d] > input.docScores[best] || (input.docScores[d] === input.docScores[best] && d < best)) best = d;
  }
  return best;
}
