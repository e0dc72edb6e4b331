/** One optimisation step on a batch of examples, and the validation pass. */
import { tf } from '../../tf/backend';
import { KfError } from '../../util/errors';
import type { GnnGraph } from '../types';
import { activeSubgraph } from '../gnn/active-subgraph';
import { batchSubgraphs } from '../gnn/batch';
import type { GnnModel } from '../gnn/model';
import { scoreBatch } from '../gnn/scorer';
import { batchLoss, docListLoss, type DocListPart, type LossWeights } from './losses';
import { encodeQuery } from '../gnn/query-encoder';
import { attachPriorFeatures, docCandidates } from '../gnn/prior-features';
import type { SubgraphBatch } from '../gnn/batch';
import { nodeTargets, recallAtK, type TrainExample } from './examples';

/** The loss of one step (NaN / infinite = KfError 'gnn_nan_loss'; the caller's last checkpoint stays). */
/** `only`: train just the parameters whose names it accepts (e.g. leave a graph's relation embeddings alone when training on another graph). */
export function trainStep(
  model: GnnModel,
  optimizer: tf.Optimizer,
  graph: GnnGraph,
  examples: TrainExample[],
  w: LossWeights,
  only?: (name: string) => boolean,
): number {
  const c = model.config;
  const parts = examples.map((ex) =>
    activeSubgraph(graph, ex.query.seeds, ex.query.seedWeights, { layers: c.layers, maxEdges: c.maxActiveEdges, exclude: ex.exclude }),
  );
  const batch = batchSubgraphs(parts);
  if (!batch.numNodes) return 0;
  const targets = new Float32Array(batch.numNodes);
  parts.forEach((p, i) => targets.set(nodeTargets(graph, p, examples[i]), batch.nodeOffsets[i]));
  const qv = examples.map((ex) => encodeQuery(model.config, ex.query));
  const docWeight = model.config.prior ? (w.doc ?? 0) : 0;
  if (model.config.prior)
    attachPriorFeatures(
      batch,
      graph,
      examples.map((ex) => ex.query),
    );
  const docParts = docWeight ? docListParts(graph, batch, examples) : [];
  const lossOf = () => {
    const logits = model.forward(batch, qv).logits;
    const node = batchLoss(logits, targets, batch, w);
    return docWeight ? (node.add(docListLoss(logits, model.priorScaleTensor(), docParts, w.shrink).mul(docWeight)) as tf.Scalar) : node;
  };
  const vars = only ? [...model.params.entries()].filter(([n]) => only(n)).map(([, v]) => v) : model.trainableVariables();
  const cost = optimizer.minimize(lossOf, true, vars);
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

/** Per example with gold documents: its candidates in batch coordinates (prior-conditioned models). */
function docListParts(graph: GnnGraph, batch: SubgraphBatch, examples: TrainExample[]): DocListPart[] {
  const out: DocListPart[] = [];
  examples.forEach((ex, q) => {
    if (!ex.targetDocs?.length || !ex.query.prior) return;
    const gold = new Set(ex.targetDocs);
    const c = docCandidates(graph, batch.parts[q].nodes, ex.query);
    const off = batch.nodeOffsets[q];
    out.push({
      titleNode: c.titleLocal.map((v) => (v >= 0 ? v + off : -1)),
      prior: c.prior,
      recip: c.recip,
      hybrid: c.hybrid,
      gold: c.docs.map((d) => gold.has(d)),
    });
  });
  return out;
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
