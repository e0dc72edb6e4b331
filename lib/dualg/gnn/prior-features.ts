/**
 * Inputs of a prior-conditioned GNN (GnnConfig.prior) for a batch of active
 * subgraphs, and its document scores. A node's features are those of the
 * document its name titles (the heuristic's scaled score and reciprocal rank,
 * and the hybrid retriever's reciprocal rank); an edge's are its relation-word
 * fit (QueryPrior.edgeFeatures). A document scores
 *   docScale x prior(d) + recipScale x recip(d) + hybridScale x hybrid(d) + logit(title node of d)
 * (`absent` when that node is not active). hybridScale and the output layer start at zero, so an untrained
 * model ranks the heuristic's documents in the heuristic's order, the hybrid's other documents after them.
 */
import type { GnnGraph, GnnQuery } from '../types';
import { PRIOR_EDGE_FEATURES, PRIOR_NODE_FEATURES } from '../types';
import type { SubgraphBatch } from './batch';

const titleCache = new WeakMap<GnnGraph, Map<number, number[]>>();

/** Entity node -> documents its name titles. */
export function titledDocs(graph: GnnGraph): Map<number, number[]> {
  const hit = titleCache.get(graph);
  if (hit) return hit;
  const out = new Map<number, number[]>();
  graph.docTitleNode?.forEach((v, d) => {
    if (v < 0) return;
    const list = out.get(v);
    if (list) list.push(d);
    else out.set(v, [d]);
  });
  titleCache.set(graph, out);
  return out;
}

/** Fill batch.nodeFeat / batch.edgeFeat from the queries' priors (zeros where a query has none). */
export function attachPriorFeatures(batch: SubgraphBatch, graph: GnnGraph, queries: GnnQuery[]): void {
  const titled = titledDocs(graph);
  const nodeFeat = new Float32Array(batch.numNodes * PRIOR_NODE_FEATURES);
  const edgeFeat = new Float32Array(batch.src.length * PRIOR_EDGE_FEATURES);
  batch.parts.forEach((p, q) => {
    const prior = queries[q].prior;
    if (!prior) return;
    const n0 = batch.nodeOffsets[q],
      e0 = batch.edgeOffsets[q];
    p.nodes.forEach((v, i) => {
      let best = 0,
        recip = 0,
        hybrid = 0;
      for (const d of titled.get(v) ?? []) {
        best = Math.max(best, prior.docPrior.get(d) ?? 0);
        recip = Math.max(recip, prior.docRecip.get(d) ?? 0);
        hybrid = Math.max(hybrid, prior.docHybrid.get(d) ?? 0);
      }
      const at = (n0 + i) * PRIOR_NODE_FEATURES;
      nodeFeat[at] = best;
      nodeFeat[at + 1] = recip;
      nodeFeat[at + 2] = hybrid;
    });
    p.edgeIds.forEach((e, j) => {
      const f = prior.edgeFeatures(e);
      edgeFeat[(e0 + j) * PRIOR_EDGE_FEATURES] = f[0];
      edgeFeat[(e0 + j) * PRIOR_EDGE_FEATURES + 1] = f[1];
    });
  });
  batch.nodeFeat = nodeFeat;
  batch.edgeFeat = edgeFeat;
}

/** The learned scalars of the document score; `absent` stands in for the logit of a title node outside the active subgraph. */
export interface PriorScales {
  doc: number;
  recip: number;
  absent: number;
  hybrid: number;
}

export interface DocCandidates {
  /** Document indices scored for this query. */
  docs: number[];
  /** Local node index (within the query's active subgraph) of each document's title node, -1 when not active. */
  titleLocal: number[];
  prior: number[];
  recip: number[];
  hybrid: number[];
}

/**
 * The documents a prior-conditioned model scores for one query: those the heuristic scored, those the hybrid
 * retriever ranked (QueryPrior.docHybrid: text evidence the graph may not have reached), and those whose title node is active.
 */
export function docCandidates(graph: GnnGraph, activeNodes: Int32Array, query: GnnQuery): DocCandidates {
  const titled = titledDocs(graph);
  const local = new Map<number, number>();
  activeNodes.forEach((v, i) => local.set(v, i));
  const docs = new Set<number>([...(query.prior?.docPrior.keys() ?? []), ...(query.prior?.docHybrid.keys() ?? [])]);
  for (const v of activeNodes) for (const d of titled.get(v) ?? []) docs.add(d);
  const out: DocCandidates = { docs: [...docs].sort((a, b) => a - b), titleLocal: [], prior: [], recip: [], hybrid: [] };
  for (const d of out.docs) {
    const t = graph.docTitleNode?.[d] ?? -1;
    out.titleLocal.push(t >= 0 ? (local.get(t) ?? -1) : -1);
    out.prior.push(query.prior?.docPrior.get(d) ?? 0);
    out.recip.push(query.prior?.docRecip.get(d) ?? 0);
    out.hybrid.push(query.prior?.docHybrid.get(d) ?? 0);
  }
  return out;
}

/**
 * Document scores of a prior-conditioned model from its node logits (local order): exp(s - max s), so the best
 * document scores 1, every candidate scores > 0 (rankers keep positive scores) and the order is that of s.
 */
export function priorDocScores(graph: GnnGraph, c: DocCandidates, localLogits: Float32Array, scales: PriorScales): Float32Array {
  const out = new Float32Array(graph.numDocs);
  const s = c.docs.map(
    (_, i) =>
      scales.doc * c.prior[i] + scales.recip * c.recip[i] + scales.hybrid * c.hybrid[i] + (c.titleLocal[i] >= 0 ? localLogits[c.titleLocal[i]] : scales.absent),
  );
  const top = Math.max(...s);
  c.docs.forEach((d, i) => {
    out[d] = Math.max(Math.exp(s[i] - top), 1e-30);
  });
  return out;
}
