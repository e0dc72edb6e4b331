/**
 * Training losses over a batch of query subgraphs (each query's nodes are one
 * contiguous slice of the batch, so every loss is computed per query):
 *   BCE with self-adversarial negatives (NBFNet / GFM-RAG): positives weight 1,
 *     negatives (all active non-targets: "strict" negatives) weighted by
 *     softmax(logit / T) without gradient through the weights;
 *   list ranking: -log( sum_pos sigmoid(p) / sum_all sigmoid(p) ).
 * Summing the positives' probabilities (instead of GFM-RAG's per-positive
 * average) forgives noisy entity targets: a gold passage lists many entities.
 */
import { tf } from '../../tf/backend';
import type { SubgraphBatch } from '../gnn/batch';

export interface LossWeights {
  bce: number;
  rank: number;
  /** Weight of the document-level list loss of prior-conditioned models (0 / absent: none). */
  doc?: number;
  /** Weight of the mean squared title-node logit in the list loss: keeps the learned correction to the prior small. */
  shrink?: number;
  /** Adversarial temperature of the negatives' weights. */
  temperature: number;
}

export const PRETRAIN_LOSS: LossWeights = { bce: 1, rank: 0, temperature: 1 };
export const FINETUNE_LOSS: LossWeights = { bce: 0.3, rank: 0.7, temperature: 0.2 };
/**
 * Prior-conditioned models learn the document order directly. No node BCE: its positives are every entity of a
 * gold passage, and an entity a gold passage mentions titles another, non-gold passage, whose score it would raise.
 */
export const PRIOR_FINETUNE_LOSS: LossWeights = { bce: 0, rank: 0, temperature: 0.2, doc: 1, shrink: 0.05 };

// tfjs has no stopGradient: an identity whose gradient is zero.
const stopGradient = tf.customGrad(((x: tf.Tensor) => ({ value: x.clone(), gradFunc: (dy: tf.Tensor) => tf.zerosLike(dy) })) as unknown as Parameters<
  typeof tf.customGrad
>[0]) as (x: tf.Tensor) => tf.Tensor;

// tf.logSigmoid's gradient reads a disposed tensor on the wasm backend: the stable form from basic ops.
function logSigmoid(x: tf.Tensor): tf.Tensor {
  return x.minimum(0).sub(tf.log1p(tf.exp(x.abs().neg())));
}

/** Mean loss over the batch's queries that have at least one positive. `targets` is 1 for positive nodes, per batch node. */
export function batchLoss(logits: tf.Tensor1D, targets: Float32Array, batch: SubgraphBatch, w: LossWeights): tf.Scalar {
  const losses: tf.Scalar[] = [];
  for (let q = 0; q < batch.numQueries; q++) {
    const off = batch.nodeOffsets[q],
      n = batch.nodeOffsets[q + 1] - off;
    const t = targets.subarray(off, off + n);
    const npos = t.reduce((a, b) => a + b, 0);
    if (npos === 0 || npos === n) continue;
    const l = logits.slice(off, n);
    const pos = tf.tensor1d(t),
      neg = tf.sub(1, pos);
    let loss = tf.scalar(0);
    if (w.bce > 0) {
      const scaled = l.div(w.temperature);
      const masked = scaled.add(pos.mul(-1e9));
      const negW = stopGradient(tf.softmax(masked)).mul(neg);
      const posLoss = tf.neg(logSigmoid(l)).mul(pos).sum();
      const negLoss = tf
        .neg(logSigmoid(tf.neg(l)))
        .mul(negW)
        .sum();
      loss = loss.add(
        posLoss
          .add(negLoss)
          .div(npos + 1)
          .mul(w.bce),
      );
    }
    if (w.rank > 0) {
      const p = tf.sigmoid(l);
      const rank = tf.neg(tf.log(p.mul(pos).sum().div(p.sum()).add(1e-12)));
      loss = loss.add(rank.mul(w.rank));
    }
    losses.push(loss as tf.Scalar);
  }
  if (!losses.length) return tf.scalar(0);
  return tf.addN(losses).div(losses.length) as tf.Scalar;
}

/** One query's scored documents in the batch (gnn/prior-features.ts DocCandidates, plus which are gold). */
export interface DocListPart {
  /** Batch node index of each document's title node, -1 when it is not active. */
  titleNode: number[];
  prior: number[];
  recip: number[];
  hybrid: number[];
  gold: boolean[];
}

/**
 * List loss over documents, the mean over gold passages g of -log softmax(s)[g] among g and the non-gold passages, with s = doc x prior + recip x reciprocal rank +
 * hybrid x hybrid reciprocal rank + (the title node's logit, or `absent`): the order the retriever ranks by (gnn/prior-features.ts). Queries whose
 * candidates are all gold or hold no gold are left out.
 */
export function docListLoss(logits: tf.Tensor1D, scales: tf.Tensor, parts: DocListPart[], shrink = 0): tf.Scalar {
  const losses: tf.Scalar[] = [];
  const padded = tf.concat([logits, scales.slice([2], [1])]);
  const pad = logits.shape[0];
  for (const p of parts) {
    const npos = p.gold.filter(Boolean).length;
    if (npos === 0 || npos === p.gold.length) continue;
    const node = tf.gather(
      padded,
      tf.tensor1d(
        p.titleNode.map((v) => (v >= 0 ? v : pad)),
        'int32',
      ),
    );
    const s = node
      .add(tf.tensor1d(p.prior).mul(scales.slice([0], [1])))
      .add(tf.tensor1d(p.recip).mul(scales.slice([1], [1])))
      .add(tf.tensor1d(p.hybrid).mul(scales.slice([3], [1])));
    // Each gold passage against all non-gold ones (the other gold passages masked out): a shared softmax over the
    // gold set would be satisfied by one easy gold passage (the seed's title) while the bridge sinks.
    const perGold = p.gold.flatMap((g, i) => {
      if (!g) return [];
      const mask = tf.tensor1d(p.gold.map((o, j) => (o && j !== i ? -1e9 : 0)));
      return [tf.logSumExp(s.add(mask)).sub(s.slice([i], [1]).reshape([]))];
    });
    const list = tf.addN(perGold).div(perGold.length);
    losses.push((shrink > 0 ? list.add(node.square().mean().mul(shrink)) : list) as tf.Scalar);
  }
  if (!losses.length) return tf.scalar(0);
  return tf.addN(losses).div(losses.length) as tf.Scalar;
}
