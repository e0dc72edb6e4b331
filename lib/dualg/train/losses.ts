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
  /** Adversarial temperature of the negatives' weights. */
  temperature: number;
}

export const PRETRAIN_LOSS: LossWeights = { bce: 1, rank: 0, temperature: 1 };
export const FINETUNE_LOSS: LossWeights = { bce: 0.3, rank: 0.7, temperature: 0.2 };

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
