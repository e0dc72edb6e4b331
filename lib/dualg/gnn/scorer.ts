/**
 * The scorer DG1's retriever calls: (graph, query) -> node scores (-Infinity
 * outside the active subgraph), document scores and decoded paths. Synchronous
 * (initTf() must have resolved); every tensor is released before it returns.
 */
import { tf } from '../../tf/backend';
import type { EvidencePath } from '../paths/evidence-path';
import type { GnnGraph, GnnQuery } from '../types';
import { KfError } from '../../util/errors';
import { activeSubgraph, type ActiveSubgraph } from './active-subgraph';
import { batchSubgraphs } from './batch';
import { documentScores, sparseDocumentScores } from './doc-scores';
import type { GnnModel } from './model';
import { decodePaths } from '../paths/decode';
import { encodeQuery } from './query-encoder';
import { attachPriorFeatures, docCandidates, priorDocScores } from './prior-features';

export interface GnnScore {
  nodeScores: Float32Array;
  docScores: Float32Array;
  paths: EvidencePath[];
  active: { nodes: number; edges: number; truncated: boolean };
  timings: { gnnMs: number; pathsMs: number };
}

export type GnnScorer = (graph: GnnGraph, query: GnnQuery) => GnnScore;

export interface ScorerOptions {
  /** Paths to decode per query (0 = none; default 5). */
  paths?: number;
}

export function checkGraphFits(model: GnnModel, graph: GnnGraph): void {
  if (graph.numRelations !== model.config.numRelations) {
    throw new KfError(
      'gnn_graph_mismatch',
      `the GNN was built for ${model.config.numRelations} relations, this graph has ${graph.numRelations}`,
      'use the checkpoint trained for this graph (or train one)',
    );
  }
}

export function makeGnnScorer(model: GnnModel, opts: ScorerOptions = {}): GnnScorer {
  const wantPaths = opts.paths ?? 5;
  return (graph, query) => {
    checkGraphFits(model, graph);
    const t0 = performance.now();
    const active = activeSubgraph(graph, query.seeds, query.seedWeights, { layers: model.config.layers, maxEdges: model.config.maxActiveEdges });
    const { localScores, edgeLogits } = runForward(model, graph, active, query, wantPaths > 0);
    const nodeScores = new Float32Array(graph.numNodes).fill(-Infinity);
    active.nodes.forEach((v, i) => {
      nodeScores[v] = localScores[i];
    });
    const docScores = docScoresOf(model, graph, active.nodes, query, localScores, nodeScores);
    const t1 = performance.now();
    const paths =
      wantPaths > 0 && active.src.length
        ? decodePaths({ graph, active, localScores, edgeLogits, docScores }, { maxPaths: wantPaths, temperature: model.config.flowTemperature })
        : [];
    const t2 = performance.now();
    return {
      nodeScores,
      docScores,
      paths,
      active: { nodes: active.nodes.length, edges: active.src.length, truncated: active.truncated },
      timings: { gnnMs: t1 - t0, pathsMs: t2 - t1 },
    };
  };
}

/**
 * Prior-conditioned models score documents through their title nodes and the prior; the others by their projection:
 * the paper's sparse product, or GFM-RAG's idf-weighted top-k ranker.
 */
function docScoresOf(model: GnnModel, graph: GnnGraph, nodes: Int32Array, query: GnnQuery, local: Float32Array, nodeScores: Float32Array): Float32Array {
  if (model.config.prior && query.prior) return priorDocScores(graph, docCandidates(graph, nodes, query), local, model.priorScales());
  if (model.config.projection === 'sparse') return sparseDocumentScores(graph, nodeScores);
  return documentScores(graph, nodeScores, model.config.docTopK);
}

function runForward(
  model: GnnModel,
  graph: GnnGraph,
  active: ActiveSubgraph,
  query: GnnQuery,
  keepEdges: boolean,
): { localScores: Float32Array; edgeLogits: Float32Array[] } {
  if (!active.nodes.length) return { localScores: new Float32Array(0), edgeLogits: [] };
  const batch = batchSubgraphs([active]);
  if (model.config.prior) attachPriorFeatures(batch, graph, [query]);
  return tf.tidy(() => {
    const out = model.forward(batch, [encodeQuery(model.config, query)], { edgeLogits: keepEdges });
    return {
      localScores: out.logits.dataSync() as Float32Array,
      edgeLogits: (out.edgeLogits ?? []).map((t) => t.dataSync() as Float32Array),
    };
  });
}

/** Node and document scores for many queries in one forward pass (evaluation, validation during training). */
export function scoreBatch(model: GnnModel, graph: GnnGraph, queries: GnnQuery[]): { nodeScores: Float32Array; docScores: Float32Array }[] {
  checkGraphFits(model, graph);
  const parts = queries.map((q) => activeSubgraph(graph, q.seeds, q.seedWeights, { layers: model.config.layers, maxEdges: model.config.maxActiveEdges }));
  const batch = batchSubgraphs(parts);
  if (model.config.prior) attachPriorFeatures(batch, graph, queries);
  const logits = batch.numNodes
    ? tf.tidy(
        () =>
          model
            .forward(
              batch,
              queries.map((q) => encodeQuery(model.config, q)),
            )
            .logits.dataSync() as Float32Array,
      )
    : new Float32Array(0);
  return parts.map((p, i) => {
    const nodeScores = new Float32Array(graph.numNodes).fill(-Infinity);
    const off = batch.nodeOffsets[i];
    p.nodes.forEach((v, j) => {
      nodeScores[v] = logits[off + j];
    });
    const local = logits.subarray(off, off + p.nodes.length);
    return { nodeScores, docScores: docScoresOf(model, graph, p.nodes, queries[i], local, nodeScores) };
  });
}
