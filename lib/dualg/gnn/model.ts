/**
 * The query-dependent NBFNet of GFM-RAG / DualG-MRAG in TensorFlow.js, with two node updates (GnnConfig.update).
 *
 * 'paper' (the paper's equations 5-8; the paper preset):
 *   h_v(0)   = Enc'(q) if v in m_q (the binary seed mask), 0 otherwise   (Enc' = a linear projection to d)
 *   m_uv     = h_u(l) * g_l(h_r)        g_l(h_r) = E_rel[r] W_l^rel     (DistMult, layer-specific relation projection)
 *   h_v(l+1) = W_l^self h_v(l) + W_l^agg sum_u m_uv + b_l                (sum pooling, then one linear layer)
 *   P_q(v)   = MLP(h_v(L))
 *
 * 'rich' (the cpu preset's variant):
 *   h_v(0)   = w_v * Enc'(q) for seeds v (Enc' = a linear projection of the query vector), 0 otherwise
 *   r_l(q)   = (E_rel W_l^rel) * (1 + tanh(Enc'(q) U_l))   (layer-specific, query-conditioned relations)
 *   m_uv     = h_u(l-1) * r_l(q)[rel(u,v)] * w_uv           (DistMult)
 *   h_v(l)   = h_v(l-1) + relu(LN(W_l [h_v(l-1); sum_u m_uv + h_v(0)] + b_l))   (boundary, shortcut)
 *   P_q(v)   = MLP([h_v(L); Enc'(q)])
 * Prior-conditioned (config.prior, gnn/prior-features.ts): h_v(0) also gets x_v W_x (the heuristic's score of
 * the document v titles and the hybrid retriever's rank of it), each message is gated by (1 + f_uv W_l^f) (relation-word fit of the mention), and the
 * output layer starts at zero so that an untrained model ranks documents exactly as the heuristic does.
 * forward() builds tensors without tidy: call it inside tf.tidy or optimizer.minimize.
 */
import { tf } from '../../tf/backend';
import type { GnnConfig } from './config';
import type { SubgraphBatch } from './batch';
import { PRIOR_EDGE_FEATURES, PRIOR_NODE_FEATURES } from '../types';
import { glorotStd, normalInit } from './init';
import type { PriorScales } from './prior-features';

export interface ForwardOutput {
  /** Node logits, one per batch node. */
  logits: tf.Tensor1D;
  /** Per layer: m_uv . h_v(l) for each batch edge (path decoding's flow logits). */
  edgeLogits?: tf.Tensor1D[];
}

interface ParamSpec {
  name: string;
  shape: number[];
  std: number | 'zeros' | 'ones' | number[];
}

/** The paper's update: the query projection, relation embeddings, per layer g_l and one linear layer, MLP(h). */
function paperParamSpecs(c: GnnConfig): ParamSpec[] {
  const d = c.hidden;
  const specs: ParamSpec[] = [
    { name: 'query.W', shape: [c.inputDim, d], std: glorotStd(c.inputDim, d) },
    { name: 'query.b', shape: [d], std: 'zeros' },
    { name: 'relation.E', shape: [c.numRelations, d], std: 1 },
  ];
  for (let l = 0; l < c.layers; l++)
    specs.push(
      { name: `layer${l}.relW`, shape: [d, d], std: glorotStd(d, d) },
      { name: `layer${l}.Wself`, shape: [d, d], std: glorotStd(2 * d, d) },
      { name: `layer${l}.Wagg`, shape: [d, d], std: glorotStd(2 * d, d) },
      { name: `layer${l}.b`, shape: [d], std: 'zeros' },
    );
  specs.push(
    { name: 'mlp.W1node', shape: [d, d], std: glorotStd(d, d) },
    { name: 'mlp.b1', shape: [d], std: 'zeros' },
    { name: 'mlp.W2', shape: [d, 1], std: glorotStd(d, 1) },
    { name: 'mlp.b2', shape: [1], std: 'zeros' },
  );
  return specs;
}

function paramSpecs(c: GnnConfig): ParamSpec[] {
  if (c.update === 'paper') return paperParamSpecs(c);
  const d = c.hidden;
  const specs: ParamSpec[] = [
    { name: 'query.W', shape: [c.inputDim, d], std: glorotStd(c.inputDim, d) },
    { name: 'query.b', shape: [d], std: 'zeros' },
    { name: 'relation.E', shape: [c.numRelations, d], std: 1 },
  ];
  for (let l = 0; l < c.layers; l++) {
    specs.push(
      { name: `layer${l}.relW`, shape: [d, d], std: glorotStd(d, d) },
      { name: `layer${l}.relU`, shape: [d, d], std: glorotStd(d, d) * 0.5 },
      // W_l [h; agg] as two halves: wasm's Concat cost more than the second matmul.
      { name: `layer${l}.Wself`, shape: [d, d], std: glorotStd(2 * d, d) },
      { name: `layer${l}.Wagg`, shape: [d, d], std: glorotStd(2 * d, d) },
      { name: `layer${l}.b`, shape: [d], std: 'zeros' },
      { name: `layer${l}.lnGain`, shape: [d], std: 'ones' },
      { name: `layer${l}.lnBias`, shape: [d], std: 'zeros' },
    );
    if (c.prior) specs.push({ name: `layer${l}.edgeW`, shape: [PRIOR_EDGE_FEATURES, d], std: 'zeros' });
  }
  specs.push(
    { name: 'mlp.W1node', shape: [d, d], std: glorotStd(2 * d, d) },
    { name: 'mlp.W1query', shape: [d, d], std: glorotStd(2 * d, d) },
    { name: 'mlp.b1', shape: [d], std: 'zeros' },
    { name: 'mlp.W2', shape: [d, 1], std: c.prior ? 'zeros' : glorotStd(d, 1) },
    { name: 'mlp.b2', shape: [1], std: 'zeros' },
  );
  if (c.prior) {
    specs.push(
      // The hybrid-rank row starts at zero: a model trained without hybrid evidence (feature 0, no gradient) ignores it at search time.
      { name: 'prior.nodeW', shape: [PRIOR_NODE_FEATURES, d], std: priorNodeInit(c) },
      // Document score = doc x prior + recip x reciprocal rank + absent | logit + hybrid x hybrid reciprocal rank:
      // the heuristic's order while logits and the hybrid scale are 0.
      { name: 'prior.scales', shape: [4], std: [4, 1, 0, 0] },
    );
  }
  return specs;
}

/**
 * prior.nodeW: the heuristic's two rows as before the hybrid feature existed (same seed stream and scale, so the
 * rest of the model starts where earlier checkpoints started), zeros for the hybrid rank (the last row).
 */
function priorNodeInit(c: GnnConfig): number[] {
  const d = c.hidden;
  const heuristic = normalInit(c.seed, 'prior.nodeW', (PRIOR_NODE_FEATURES - 1) * d, glorotStd(PRIOR_NODE_FEATURES - 1, d));
  return [...heuristic, ...new Array<number>(d).fill(0)];
}

// tf.variable names are global: each model instance gets its own prefix.
let modelCount = 0;

export class GnnModel {
  readonly config: GnnConfig;
  readonly params = new Map<string, tf.Variable>();

  constructor(config: GnnConfig) {
    this.config = config;
    for (const s of paramSpecs(config)) {
      const size = s.shape.reduce((a, b) => a * b, 1);
      const values = Array.isArray(s.std)
        ? Float32Array.from(s.std)
        : s.std === 'zeros'
          ? new Float32Array(size)
          : s.std === 'ones'
            ? new Float32Array(size).fill(1)
            : normalInit(config.seed, s.name, size, s.std);
      this.params.set(s.name, tf.variable(tf.tensor(values, s.shape), true, `gnn${++modelCount}/${s.name}`));
    }
  }

  p(name: string): tf.Variable {
    const v = this.params.get(name);
    if (!v) throw new Error(`GNN parameter ${name} missing`);
    return v;
  }

  trainableVariables(): tf.Variable[] {
    return [...this.params.values()];
  }

  /** The projected query Enc'(q): [B, d]. */
  encodeQueries(queryVectors: Float32Array[]): tf.Tensor2D {
    const B = queryVectors.length,
      D = this.config.inputDim;
    const flat = new Float32Array(B * D);
    queryVectors.forEach((q, i) => {
      if (q.length !== D) throw new Error(`query vector has dimension ${q.length}, the GNN expects ${D}`);
      flat.set(q, i * D);
    });
    return tf.tensor2d(flat, [B, D]).matMul(this.p('query.W')).add(this.p('query.b'));
  }

  forward(batch: SubgraphBatch, queryVectors: Float32Array[], opts: { edgeLogits?: boolean } = {}): ForwardOutput {
    if (this.config.update === 'paper') return this.forwardPaper(batch, queryVectors, opts);
    const N = batch.numNodes,
      E = batch.src.length;
    const zq = this.encodeQueries(queryVectors);
    const nodeQ = tf.tensor1d(batch.nodeQuery, 'int32');
    const zqNode = tf.gather(zq, nodeQ);
    let h0 = zqNode.mul(tf.tensor2d(batch.seedWeight, [N, 1])) as tf.Tensor2D;
    const prior = this.config.prior;
    if (prior) h0 = h0.add(tf.tensor2d(batch.nodeFeat ?? new Float32Array(N * PRIOR_NODE_FEATURES), [N, PRIOR_NODE_FEATURES]).matMul(this.p('prior.nodeW')));
    const edgeFeat = prior ? tf.tensor2d(batch.edgeFeat ?? new Float32Array(E * PRIOR_EDGE_FEATURES), [E, PRIOR_EDGE_FEATURES]) : undefined;
    let h: tf.Tensor2D = h0;
    const edgeLogits: tf.Tensor1D[] = [];
    const src = tf.tensor1d(batch.src, 'int32'),
      dst = tf.tensor1d(batch.dst, 'int32');
    const rel = tf.tensor1d(batch.rel, 'int32'),
      edgeQ = tf.tensor1d(batch.edgeQuery, 'int32');
    const w = tf.tensor2d(batch.weight, [E, 1]);
    for (let l = 0; l < this.config.layers; l++) {
      let agg: tf.Tensor2D = h0;
      let msg: tf.Tensor2D | undefined;
      if (E > 0) {
        const relBase = this.p('relation.E').matMul(this.p(`layer${l}.relW`));
        const gate = zq
          .matMul(this.p(`layer${l}.relU`))
          .tanh()
          .add(1);
        // One query (search time): its gate broadcasts over the edges instead of being gathered once per edge.
        let relE = tf.gather(relBase, rel).mul(batch.numQueries === 1 ? gate : tf.gather(gate, edgeQ));
        if (edgeFeat) relE = relE.mul(edgeFeat.matMul(this.p(`layer${l}.edgeW`)).add(1));
        msg = tf.gather(h, src).mul(relE).mul(w) as tf.Tensor2D;
        agg = tf.unsortedSegmentSum(msg, dst, N).add(h0) as tf.Tensor2D;
      }
      const upd = h
        .matMul(this.p(`layer${l}.Wself`))
        .add(agg.matMul(this.p(`layer${l}.Wagg`)))
        .add(this.p(`layer${l}.b`)) as tf.Tensor2D;
      const next = h.add(tf.relu(this.layerNorm(upd, l))) as tf.Tensor2D;
      if (opts.edgeLogits) edgeLogits.push(msg ? msg.mul(tf.gather(next, dst)).sum(1) : tf.zeros([0]));
      h = next;
    }
    // MLP([h; Enc'(q)]): the query half is computed once per query, then gathered per node.
    const queryPart = tf.gather(zq.matMul(this.p('mlp.W1query')), nodeQ);
    const hidden = tf.relu(h.matMul(this.p('mlp.W1node')).add(queryPart).add(this.p('mlp.b1')));
    const logits = hidden.matMul(this.p('mlp.W2')).add(this.p('mlp.b2')).reshape([N]) as tf.Tensor1D;
    return opts.edgeLogits ? { logits, edgeLogits } : { logits };
  }

  /** The paper's update (see the file head): binary seed mask, DistMult with g_l, sum then one linear layer, MLP(h). */
  private forwardPaper(batch: SubgraphBatch, queryVectors: Float32Array[], opts: { edgeLogits?: boolean }): ForwardOutput {
    const N = batch.numNodes,
      E = batch.src.length;
    const zq = this.encodeQueries(queryVectors);
    const mask = batch.seedWeight.map((w) => (w > 0 ? 1 : 0));
    const h0 = tf.gather(zq, tf.tensor1d(batch.nodeQuery, 'int32')).mul(tf.tensor2d(mask, [N, 1])) as tf.Tensor2D;
    const src = tf.tensor1d(batch.src, 'int32'),
      dst = tf.tensor1d(batch.dst, 'int32'),
      rel = tf.tensor1d(batch.rel, 'int32');
    let h = h0;
    const edgeLogits: tf.Tensor1D[] = [];
    for (let l = 0; l < this.config.layers; l++) {
      const msg = E > 0 ? (tf.gather(h, src).mul(tf.gather(this.p('relation.E').matMul(this.p(`layer${l}.relW`)), rel)) as tf.Tensor2D) : undefined;
      const agg = msg ? (tf.unsortedSegmentSum(msg, dst, N) as tf.Tensor2D) : (tf.zerosLike(h) as tf.Tensor2D);
      const next = h
        .matMul(this.p(`layer${l}.Wself`))
        .add(agg.matMul(this.p(`layer${l}.Wagg`)))
        .add(this.p(`layer${l}.b`)) as tf.Tensor2D;
      if (opts.edgeLogits) edgeLogits.push(msg ? msg.mul(tf.gather(next, dst)).sum(1) : tf.zeros([0]));
      h = next;
    }
    const hidden = tf.relu(h.matMul(this.p('mlp.W1node')).add(this.p('mlp.b1')));
    const logits = hidden.matMul(this.p('mlp.W2')).add(this.p('mlp.b2')).reshape([N]) as tf.Tensor1D;
    return opts.edgeLogits ? { logits, edgeLogits } : { logits };
  }

  /** The document-score scalars of a prior-conditioned model (gnn/prior-features.ts). */
  priorScales(): PriorScales {
    const [doc, recip, absent, hybrid] = this.p('prior.scales').dataSync();
    return { doc, recip, absent, hybrid: hybrid * this.config.hybridUnit };
  }

  /** prior.scales as the document score uses them (the hybrid scalar in its units, config.hybridUnit): a tensor for the losses. */
  priorScaleTensor(): tf.Tensor1D {
    return this.p('prior.scales').mul(tf.tensor1d([1, 1, 1, this.config.hybridUnit])) as tf.Tensor1D;
  }

  private layerNorm(x: tf.Tensor2D, l: number): tf.Tensor2D {
    const { mean, variance } = tf.moments(x, 1, true);
    return x
      .sub(mean)
      .div(variance.add(1e-5).sqrt())
      .mul(this.p(`layer${l}.lnGain`))
      .add(this.p(`layer${l}.lnBias`));
  }

  /** Parameter values by name (checkpoints). */
  async getWeights(): Promise<Map<string, { shape: number[]; values: Float32Array }>> {
    const out = new Map<string, { shape: number[]; values: Float32Array }>();
    for (const [name, v] of this.params) out.set(name, { shape: v.shape.slice(), values: (await v.data()) as Float32Array });
    return out;
  }

  setWeights(weights: Map<string, { shape: number[]; values: Float32Array }>): void {
    for (const [name, v] of this.params) {
      const w = weights.get(name);
      if (!w) throw new Error(`checkpoint lacks parameter ${name}`);
      if (w.shape.join('x') !== v.shape.join('x')) throw new Error(`parameter ${name}: checkpoint shape ${w.shape.join('x')} != model ${v.shape.join('x')}`);
      tf.tidy(() => v.assign(tf.tensor(w.values, w.shape)));
    }
  }

  dispose(): void {
    for (const v of this.params.values()) v.dispose();
    this.params.clear();
  }
}
