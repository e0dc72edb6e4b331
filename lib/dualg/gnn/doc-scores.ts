/**
 * Entity scores -> document scores, two ways (GnnConfig.projection):
 *  - 'sparse' (the paper, 4.3.3): the sparse product of the entity-to-document matrix M with the node relevance,
 *    t_d = sum over reached entities v of M[v, d] x P_q(v), P_q(v) = sigmoid(logit_v);
 *  - 'topk-idf' (GFM-RAG's idf-weighted ranker, the cpu preset's variant): the k best-scored entities each add
 *    sigmoid(score) / df(entity) * M[v, d], so an entity found in one passage (a title) counts more than one that
 *    occurs everywhere.
 * Both over GnnGraph.nodeDoc (M in COO form).
 */
import type { GnnGraph } from '../types';

interface NodeDocIndex {
  offsets: Int32Array;
  docs: Int32Array;
  weights: Float32Array;
  /** 1 / number of documents the entity occurs in (0 when none). */
  idf: Float32Array;
  /** Largest entity weight per document (the graph gives the entity a document is titled by the top weight). */
  docMaxWeight: Float32Array;
}

const cache = new WeakMap<GnnGraph, NodeDocIndex>();

export function nodeDocIndex(graph: GnnGraph): NodeDocIndex {
  const hit = cache.get(graph);
  if (hit) return hit;
  const { node, doc, weight } = graph.nodeDoc;
  const offsets = new Int32Array(graph.numNodes + 1);
  for (let i = 0; i < node.length; i++) offsets[node[i] + 1]++;
  for (let v = 0; v < graph.numNodes; v++) offsets[v + 1] += offsets[v];
  const fill = offsets.slice(0, graph.numNodes);
  const docs = new Int32Array(node.length),
    weights = new Float32Array(node.length);
  for (let i = 0; i < node.length; i++) {
    const at = fill[node[i]]++;
    docs[at] = doc[i];
    weights[at] = weight[i];
  }
  const idf = new Float32Array(graph.numNodes);
  for (let v = 0; v < graph.numNodes; v++) {
    const df = offsets[v + 1] - offsets[v];
    idf[v] = df ? 1 / df : 0;
  }
  const docMaxWeight = new Float32Array(graph.numDocs);
  for (let i = 0; i < node.length; i++) docMaxWeight[doc[i]] = Math.max(docMaxWeight[doc[i]], weight[i]);
  const index = { offsets, docs, weights, idf, docMaxWeight };
  cache.set(graph, index);
  return index;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** The paper's projection: every reached entity (finite score) adds sigmoid(score) x M[v, d]. */
export function sparseDocumentScores(graph: GnnGraph, nodeScores: Float32Array): Float32Array {
  const index = nodeDocIndex(graph);
  const out = new Float32Array(graph.numDocs);
  for (let v = 0; v < nodeScores.length; v++) {
    if (!Number.isFinite(nodeScores[v])) continue;
    const p = sigmoid(nodeScores[v]);
    for (let k = index.offsets[v]; k < index.offsets[v + 1]; k++) out[index.docs[k]] += p * index.weights[k];
  }
  return out;
}

/** GFM-RAG's ranker: document scores from node scores (-Infinity = not reached). `topK` entities contribute. */
export function documentScores(graph: GnnGraph, nodeScores: Float32Array, topK: number): Float32Array {
  const index = nodeDocIndex(graph);
  const out = new Float32Array(graph.numDocs);
  for (const v of topNodes(nodeScores, topK)) {
    const p = sigmoid(nodeScores[v]) * index.idf[v];
    for (let k = index.offsets[v]; k < index.offsets[v + 1]; k++) out[index.docs[k]] += p * index.weights[k];
  }
  return out;
}

/** Indices of the k highest finite scores, best first (ties by index). */
export function topNodes(scores: Float32Array, k: number): number[] {
  const idx: number[] = [];
  for (let i = 0; i < scores.length; i++) if (Number.isFinite(scores[i])) idx.push(i);
  idx.sort((a, b) => scores[b] - scores[a] || a - b);
  return idx.slice(0, k);
}
