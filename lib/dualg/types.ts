/**
 * DualG-MRAG shared shapes. The graph side (lib/dualg/graph/, query/) builds a
 * DualGraph; the GNN side (lib/dualg/gnn/, train/, paths) reads it as a
 * GnnGraph (plain typed arrays, so message passing is a gather / segment-sum).
 */

/** The macro graph as the GNN sees it: directed edges with relation ids (inverse relations included as their own ids). */
export interface GnnGraph {
  numNodes: number;
  /** Relation vocabulary size, inverse relations included. */
  numRelations: number;
  src: Int32Array;
  dst: Int32Array;
  rel: Int32Array;
  /** Optional edge weights (equivalence edges carry their cosine). */
  weight?: Float32Array;
  /** Entity -> document incidence (sparse COO): entity node[i] occurs in document doc[i] with weight[i]. */
  nodeDoc: { node: Int32Array; doc: Int32Array; weight: Float32Array };
  numDocs: number;
  /** Document ids by index. */
  docIds: string[];
  /** Node and relation surface text (query-conditioned relation embeddings, path verbalisation). */
  nodeText: string[];
  relationText: string[];
}

/** One query's input to the GNN: seed entities (the seed mask m_q) with weights, and the query encoding. */
export interface GnnQuery {
  seeds: Int32Array;
  seedWeights: Float32Array;
  /** Enc(q): the query embedding (dimension = the checkpoint's input dim). */
  queryVector: Float32Array;
}
