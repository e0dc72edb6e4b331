/**
 * From one query's forward pass to EvidencePaths: flows per layer, Viterbi,
 * backtracking from the best-scored non-seed targets, then each step named
 * (entity -relation-> entity) and attached to the passage it was read from.
 */
import type { EvidencePath, PathStep } from './evidence-path';
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
  const targets = targetsFromDocuments(input, table.best, opts.maxPaths ?? 5);
  const paths: EvidencePath[] = [];
  for (const { node: t, doc: targetDoc } of targets) {
    const edges = backtrack(table, active, t);
    if (!edges.length) continue;
    const steps = edges.map(({ edge, layer }) => namedStep(input, edge, Math.exp(flows[layer][edge])));
    const docs: string[] = [];
    for (const s of steps) if (s.source?.docId && !docs.includes(s.source.docId)) docs.push(s.source.docId);
    if (!docs.includes(input.graph.docIds[targetDoc])) docs.push(input.graph.docIds[targetDoc]);
    paths.push({ score: sigmoid(localScores[t]) * Math.exp(table.best[t]), steps, docs });
  }
  return paths;
}

/**
 * Targets follow the document ranking: for each top-scored document that a seed
 * does not title (those need no path), its entity that contributed most to the
 * document's score (probability x 1/df, as in the ranker) and that a path
 * reaches. Backtracking from the best-scored nodes alone mostly returned names
 * co-occurring in the seed's own passage (2Wiki: 4 of 56 top paths reached the bridge).
 */
function targetsFromDocuments(input: DecodeInput, best: Float32Array, max: number): { node: number; doc: number }[] {
  const { active, localScores, graph } = input;
  const localOf = new Map<number, number>();
  active.nodes.forEach((v, i) => localOf.set(v, i));
  const contrib = new Map<number, { node: number; value: number }>();
  const index = nodeDocIndex(graph);
  active.nodes.forEach((v, i) => {
    if (active.seedWeight[i] > 0 || !Number.isFinite(best[i])) return;
    const value = sigmoid(localScores[i]) * index.idf[v];
    for (let k = index.offsets[v]; k < index.offsets[v + 1]; k++) {
      const d = index.docs[k];
      const cur = contrib.get(d);
      if (!cur || value > cur.value || (value === cur.value && i < cur.node)) contrib.set(d, { node: i, value });
    }
  });
  const seedDocs = new Set<number>();
  active.nodes.forEach((v, i) => {
    if (active.seedWeight[i] <= 0) return;
    for (let k = index.offsets[v]; k < index.offsets[v + 1]; k++) if (index.weights[k] >= index.docMaxWeight[index.docs[k]]) seedDocs.add(index.docs[k]);
  });
  const ranked = [...contrib.keys()].sort((a, b) => input.docScores[b] - input.docScores[a] || a - b);
  const beyond = ranked.filter((d) => !seedDocs.has(d));
  const docs = beyond.length ? beyond : ranked;
  const out: { node: number; doc: number }[] = [];
  for (const d of docs) {
    const t = contrib.get(d)!.node;
    if (!out.some((x) => x.node === t)) out.push({ node: t, doc: d });
    if (out.length >= max) break;
  }
  return out;
}

function namedStep(input: DecodeInput, e: number, flow: number): PathStep {
  const { graph, active } = input;
  const u = active.nodes[active.src[e]],
    v = active.nodes[active.dst[e]];
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
