/**
 * GNN retriever settings. The paper (GFM-RAG configs) uses 6 layers x 512; the
 * default here is 2 layers x 64 because training has to fit in ~20 minutes on 2
 * shared CPU cores (wasm backend) and retrieval in ~50 ms: cost grows with
 * L * |E_active| * d^2. GFM-RAG reports that two layers already carry most of the
 * gain; on the 2Wiki graph (37K entities, 348K directed edges) the bridge is one
 * hop (seed title -mentions-> bridge title entity -> its passage), a 2-hop active
 * subgraph has ~1.7K edges at the median while 3 hops reach hubs and hit a 20K
 * edge cap at the median (measured: 3 layers ~12x slower per query).
 */
import { KfError } from '../../util/errors';
import { queryInputDim, type QueryEncoder } from './query-encoder';

export interface GnnConfig {
  /** Message-passing layers L (= hops the retriever can reason over). */
  layers: number;
  /** Hidden width d. */
  hidden: number;
  /** Dimension of the query input (gnn/query-encoder.ts queryInputDim). */
  inputDim: number;
  /** Relation vocabulary size of the graph the checkpoint is built for (inverse relations included). */
  numRelations: number;
  /** Cap on active-subgraph edges per query (hubs are expanded last): bounds latency and memory. */
  maxActiveEdges: number;
  /** Document ranker: top-k entities, each weighted by its probability times 1/df (GFM-RAG's idf-weighted ranker). */
  docTopK: number;
  /** Flow temperature tau_flow of path decoding. */
  flowTemperature: number;
  /** Initialisation seed. */
  seed: number;
  /**
   * Prior-conditioned (lib/dualg/query/prior.ts): the heuristic's document scores enter as node features and
   * as a learned-scale term of the document score, relation-word fit of each mention gates its messages, and
   * the output layer starts at zero -- an untrained model ranks exactly as the heuristic, training learns the
   * correction. False: the plain GFM-RAG model (idf-weighted entity-to-document ranker), as checkpoints from
   * before this setting existed.
   */
  prior: boolean;
  /** Enc(q): the hashed bag of words, or that plus GloVe of the relation words (gnn/query-encoder.ts); sets inputDim. */
  queryEncoder: QueryEncoder;
  /**
   * Units of the learned hybrid scalar of a prior-conditioned model's document score: the hybrid term is
   * hybridUnit x prior.scales[3] x the hybrid's reciprocal rank. HYBRID_UNIT (the heuristic prior's initial scale)
   * puts the hybrid on the prior's scale, so one step of the optimiser moves both alike; 1 = the raw scalar (the
   * first run, see experiments/dualg/README.md), what checkpoints without this setting use.
   */
  hybridUnit: number;
  /**
   * The node update (model.ts). 'paper': the paper's rule (eq. 5-8): h_v(0) = Enc'(q) on the binary seed mask m_q,
   * messages DistMult(h_u, g_l(h_r)) with a layer-specific relation projection g_l, h_v(l+1) = one linear layer over
   * [h_v(l); sum of messages], P_q(v) = MLP(h_v(L)). 'rich' (the cpu preset's, a variant): weighted seeds,
   * query-gated relations, edge weights, the boundary term h_v(0), a residual and LayerNorm, MLP([h_v(L); Enc'(q)]).
   * Absent (checkpoints from before this setting): 'rich'.
   */
  update: GnnUpdate;
  /**
   * Node scores -> document scores (doc-scores.ts). 'sparse': the paper's sparse entity-to-document product over
   * every reached entity, sum of P_q(v) x M[v, d] with P_q(v) = sigmoid of the node logit; 'topk-idf' (a variant):
   * GFM-RAG's ranker, the docTopK best entities each adding sigmoid x 1/df x M[v, d]. Absent: 'topk-idf'.
   */
  projection: GnnProjection;
}

export const GNN_UPDATES = ['paper', 'rich'] as const;
export type GnnUpdate = (typeof GNN_UPDATES)[number];
export const GNN_PROJECTIONS = ['sparse', 'topk-idf'] as const;
export type GnnProjection = (typeof GNN_PROJECTIONS)[number];

/** The initial scale of the heuristic prior in the document score (model.ts prior.scales[0]). */
export const HYBRID_UNIT = 4;

export const DEFAULT_GNN_CONFIG: Omit<GnnConfig, 'inputDim' | 'numRelations'> = {
  layers: 2,
  hidden: 64,
  maxActiveEdges: 10000,
  docTopK: 20,
  flowTemperature: 1.0,
  seed: 1024,
  prior: true,
  queryEncoder: 'hashed+glove',
  hybridUnit: HYBRID_UNIT,
  update: 'rich',
  projection: 'topk-idf',
};

export function gnnConfig(partial: Partial<GnnConfig> & { inputDim: number; numRelations: number }): GnnConfig {
  const c: GnnConfig = { ...DEFAULT_GNN_CONFIG, ...partial };
  // Checkpoints from before these settings existed read as the plain model with the hashed encoder.
  c.prior = partial.prior ?? DEFAULT_GNN_CONFIG.prior;
  // The encoder follows the input size unless named: 164 = hashed + GloVe, anything else (64, a test's toy size) = the given vector.
  // 'embeddings' is always named (its size is the endpoint's).
  c.queryEncoder = partial.queryEncoder ?? (partial.inputDim === queryInputDim('hashed+glove') ? 'hashed+glove' : 'hashed');
  if (c.queryEncoder === 'hashed+glove' && c.inputDim !== queryInputDim('hashed+glove'))
    throw new KfError(
      'bad_option',
      `GNN queryEncoder hashed+glove needs inputDim ${queryInputDim('hashed+glove')} (got ${c.inputDim})`,
      'leave inputDim to queryInputDim()',
    );
  c.update = partial.update ?? DEFAULT_GNN_CONFIG.update;
  c.projection = partial.projection ?? DEFAULT_GNN_CONFIG.projection;
  if (c.update === 'paper' && c.prior)
    throw new KfError('bad_option', "the paper's GNN update reads no heuristic prior", 'set prior = false with update = "paper" (the paper preset does)');
  if (!(c.hybridUnit > 0)) throw new KfError('bad_option', `GNN hybridUnit must be > 0 (got ${c.hybridUnit})`, `use ${HYBRID_UNIT} (the default) or 1`);
  const positiveInts: (keyof GnnConfig)[] = ['layers', 'hidden', 'inputDim', 'numRelations', 'maxActiveEdges', 'docTopK'];
  for (const k of positiveInts) {
    const v = c[k] as number;
    if (!Number.isInteger(v) || v < 1)
      throw new KfError('bad_option', `GNN setting ${k} must be a positive integer (got ${v})`, 'fix the GNN settings', { concerns: k });
  }
  if (!(c.flowTemperature > 0)) throw new KfError('bad_option', `GNN flowTemperature must be > 0 (got ${c.flowTemperature})`, 'use e.g. 1.0');
  return c;
}
