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
  /** Document index -> the entity node its title names (-1 when none); the prior-conditioned ranker scores a document through it. */
  docTitleNode?: Int32Array;
}

/** One query's input to the GNN: seed entities (the seed mask m_q) with weights, and the query encoding. */
export interface GnnQuery {
  seeds: Int32Array;
  seedWeights: Float32Array;
  /** Enc(q): the query embedding (dimension = the checkpoint's input dim). */
  queryVector: Float32Array;
  /** The query's text (what the embeddings stage encodes for models built with queryEncoder 'embeddings'). */
  queryText?: string;
  /** Enc(q) from the embeddings stage (a sentence encoder); read by models built with queryEncoder 'embeddings'. */
  queryEmbedding?: Float32Array;
  /** The question's words outside the linked names (the relation it asks about; read by 'hashed+glove' models). */
  relationText?: string;
  /** The untrained graph scorer's view of this query (models built with `prior: true` read it; others ignore it). */
  prior?: QueryPrior;
}

/**
 * What the untrained heuristic knows about one query, as inputs of a prior-conditioned GNN
 * (lib/dualg/query/prior.ts builds it): a score per document and per-edge relation evidence.
 */
export interface QueryPrior {
  /** Document index -> the heuristic's score scaled to [0, 1] (its best document = 1). */
  docPrior: Map<number, number>;
  /** Document index -> 1 / (1 + its rank in the heuristic's order) (rank 0 = best). */
  docRecip: Map<number, number>;
  /**
   * Document index -> 1 / (1 + its rank among the distinct documents of the hybrid (BM25 + dense) retriever's first
   * HYBRID_PRIOR_HITS hits), absent when outside them: the text evidence beside the graph's (query/prior.ts hybridRecip).
   */
  docHybrid: Map<number, number>;
  /** Per global GnnGraph edge: how well the words before the mention ([0]) and its sentence ([1]) fit the question's relation words. */
  edgeFeatures(edge: number): readonly [number, number];
}

/** Node features: the heuristic's scaled score and reciprocal rank, and the hybrid retriever's reciprocal rank. */
export const PRIOR_NODE_FEATURES = 3;
/** What the prior-conditioned GNN reads, as labels and refusals name it (a checkpoint records the feature count). */
export const PRIOR_FEATURES_LABEL = 'heuristic + hybrid rank';
export const PRIOR_EDGE_FEATURES = 2;
