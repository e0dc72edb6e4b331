/** One optimisation step on a batch of examples, and the validation pass. */
import { tf } from '../../tf/backend';
import { KfError } from '../../util/errors';
import type { GnnGraph } from '../types';
import { activeSubgraph } from '../gnn/active-subgraph';
import { batchSubgraphs } from '../gnn/batch';
import type { GnnModel } from '../gnn/model';
import { scoreBatch } from '../gnn/scorer';
import { batchLoss, type LossWeights } from './losses';
import { nodeTargets, recallAtK, type TrainExample } from './examples';

/** The loss of one step (NaN / infinite = KfError 'gnn_nan_loss'; the caller's last checkpoint stays). */
export function trainStep(model: GnnModel, optimizer: tf.Optimizer, graph: GnnGraph, examples: TrainExample[], w: LossWeights): number {
  const c = model.config;
  const parts = examples.map((ex) =>
    activeSubgraph(graph, ex.query.seeds, ex.query.seedWeights, { layers: c.layers, maxEdges: c.maxActiveEdges, exclude: ex.exclude }),
  );
  const batch = batchSubgraphs(parts);
  if (!batch.numNodes) return 0;
  const targets = new Float32Array(batch.numNodes);
  parts.forEach((p, i) => targets.set(nodeTargets(graph, p, examples[i]), batch.nodeOffsets[i]));
  const qv = examples.map((ex) => ex.query.queryVector);
  const cost = optimizer.minimize(() => batchLoss(model.forward(batch, qv).logits, targets, batch, w), true, model.trainableVariables());
  const value = cost ? cost.dataSync()[0] : 0;
  cost?.dispose();
  if (!Number.isFinite(value)) {
    throw new KfError(
      'gnn_nan_loss',
      `GNN training loss became ${value} (batch of ${examples
        .map((e) => e.id)
        .slice(0, 3)
        .join(', ')}...)`,
      'lower the learning rate or check the query vectors / graph weights for NaN; the last good checkpoint was kept',
      { concerns: examples[0]?.id },
    );
  }
  return value;
}

export interface Validation {
  n: number;
  r2: number;
  r5: number;
  allFound5: number;
}

export function validate(model: GnnModel, graph: GnnGraph, examples: TrainExample[], batchSize = 16): Validation {
  let r2 = 0,
    r5 = 0,
    all5 = 0,
    n = 0;
  for (let i = 0; i < examples.length; i += batchSize) {
    const chunk = examples.slice(i, i + batchSize).filter((e) => e.targetDocs?.length);
    const scores = scoreBatch(
      model,
      graph,
      chunk.map((e) => e.query),
    );
    scores.forEach((s, j) => {
      const gold = chunk[j].targetDocs!;
      const rec5 = recallAtK(s.docScores, gold, 5);
      r2 += recallAtK(s.docScores, gold, 2);
      r5 += rec5;
      all5 += rec5 === 1 ? 1 : 0;
      n++;
    });
  }
  return n ? { n, r2: r2 / n, r5: r5 / n, allFound5: all5 / n } : { n: 0, r2: 0, r5: 0, allFound5: 0 };
}
