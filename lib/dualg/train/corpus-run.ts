/**
 * Train and evaluate the GNN on one text corpus's graph (2Wiki / MuSiQue /
 * HotpotQA): a base model from KG completion + synthetic link queries (no dev
 * question seen), then k-fold fine-tuning on the dev questions (each question is
 * scored by the fold model that did not train on it), compared on the same seeds
 * with the untrained GNN, the untrained graph heuristic and PPR (paired sign tests).
 */
import path from 'node:path';
import { initTf } from '../../tf/backend';
import { makeRng } from '../../util/rng';
import type { DualGraph } from '../graph/types';
import { toGnnGraph } from '../graph/to-gnn';
import { graphView, type GraphView } from '../query/graph-view';
import { DEFAULT_GNN_CONFIG, gnnConfig, type GnnConfig } from '../gnn/config';
import { queryInputDim } from '../gnn/query-encoder';
import type { GnnGraph } from '../types';
import { kgCompletionExamples, questionExamples, syntheticLinkExamples } from './corpus-data';
import type { TrainExample } from './examples';
import { trainGnn, type EpochRecord } from './trainer';
import { checkpointExists } from './checkpoint';
import type { GnnModel } from '../gnn/model';

export interface CorpusRunOptions {
  name: string;
  graph: DualGraph;
  passages: Map<string, string>;
  questions: { id: string; question: string; goldDocs: string[] }[];
  out: string;
  /** Checkpoint folders: <checkpoints>/<name>-base (found by the retriever) and <checkpoints>/kfold/<name>-fold-i (never picked up: they trained on dev). */
  checkpoints: string;
  seed: number;
  folds: number;
  kgExamples: number;
  syntheticExamples: number;
  pretrainEpochs: number;
  epochs: number;
  foldEpochs: number;
  config?: Partial<GnnConfig>;
  learningRate?: number;
  /** Pick each fold's epoch on a quarter of its training questions (default true; false: train on all, keep the last epoch). */
  innerValidation?: boolean;
  /** Synthetic queries replayed in each fold's fine-tuning, per dev question (against forgetting; default 2). */
  replay?: number;
  log: (line: string) => void;
}

export interface CorpusData {
  gg: GnnGraph;
  view: GraphView;
  config: GnnConfig;
  kg: TrainExample[];
  synTrain: TrainExample[];
  synVal: TrainExample[];
  dev: TrainExample[];
  unlinked: string[];
}

export function corpusData(o: CorpusRunOptions): CorpusData {
  const gg = toGnnGraph(o.graph);
  const view = graphView(o.graph);
  const rng = makeRng(o.seed);
  const kg = kgCompletionExamples(gg, rng.fork('kg'), o.kgExamples);
  const syn = syntheticLinkExamples(o.graph, view, (d) => o.passages.get(o.graph.docs[d].id), rng.fork('syn'), o.syntheticExamples);
  const nVal = Math.max(20, Math.round(syn.length * 0.1));
  const { examples: dev, unlinked } = questionExamples(o.graph, view, o.questions);
  const encoder = o.config?.queryEncoder ?? DEFAULT_GNN_CONFIG.queryEncoder;
  const config = gnnConfig({ inputDim: queryInputDim(encoder), numRelations: gg.numRelations, seed: o.seed, ...o.config });
  return { gg, view, config, kg, synTrain: syn.slice(nVal), synVal: syn.slice(0, nVal), dev, unlinked };
}

/** Base model: never sees a dev question (dev R@k per epoch is only monitored). */
export async function trainBase(o: CorpusRunOptions, d: CorpusData): Promise<{ model: GnnModel; history: EpochRecord[]; seconds: number; stoppedBy?: string }> {
  await initTf();
  const t0 = Date.now();
  const r = await trainGnn({
    graph: d.gg,
    config: d.config,
    dir: path.join(o.checkpoints, `${o.name}-base`),
    seed: o.seed,
    learningRate: o.learningRate,
    batchSize: 8,
    pretrain: { epochs: o.pretrainEpochs, examples: d.kg },
    finetune: { epochs: o.epochs, examples: d.synTrain, validation: d.synVal, monitor: d.dev },
    trainedOn: `${o.name} graph: ${o.pretrainEpochs ? `${d.kg.length} KG-completion triples + ` : ''}${d.synTrain.length} synthetic link queries (no dev question)`,
    log: o.log,
  });
  return { model: r.model, history: r.history, seconds: (Date.now() - t0) / 1000, stoppedBy: r.stoppedBy };
}

/** k folds over the linked dev questions; fold i fine-tunes the base model on the other folds (plus synthetic queries against forgetting). */
export async function trainFolds(o: CorpusRunOptions, d: CorpusData): Promise<{ models: GnnModel[]; foldOf: Map<string, number>; seconds: number }> {
  const t0 = Date.now();
  const order = makeRng(o.seed)
    .fork('folds')
    .shuffle(d.dev.map((e) => e.id));
  const foldOf = new Map(order.map((id, i) => [id, i % o.folds]));
  const models: GnnModel[] = [];
  const replay = makeRng(o.seed)
    .fork('replay')
    .sample(d.synTrain, Math.round((o.replay ?? 2) * d.dev.length));
  for (let f = 0; f < o.folds; f++) {
    const train = d.dev.filter((e) => foldOf.get(e.id) !== f);
    const held = d.dev.filter((e) => foldOf.get(e.id) === f);
    // An inner split of the training folds picks the epoch (epoch 0 = the base model included): the held-out fold never does.
    const inner = makeRng(o.seed + f)
      .fork('inner')
      .shuffle(train);
    const nVal = o.innerValidation === false ? 0 : Math.round(inner.length / 4);
    const fit = inner.slice(nVal);
    const r = await trainGnn({
      graph: d.gg,
      config: d.config,
      dir: path.join(o.checkpoints, 'kfold', `${o.name}-fold-${f}`),
      seed: o.seed + f,
      learningRate: (o.learningRate ?? 5e-3) / 2,
      batchSize: 8,
      initFrom: baseCheckpoint(o),
      finetune: { epochs: o.foldEpochs, examples: [...fit, ...fit, ...replay], validation: nVal ? inner.slice(0, nVal) : undefined, monitor: held },
      trainedOn: `${o.name} dev questions outside fold ${f} of ${o.folds} (${fit.length}) + ${replay.length} synthetic link queries, from the base model`,
      log: (l) => o.log(`fold ${f}: ${l}`),
    });
    models.push(r.model);
  }
  return { models, foldOf, seconds: (Date.now() - t0) / 1000 };
}

/** The base model's best epoch, or its last when it had no validation (e.g. KG pre-training only). */
function baseCheckpoint(o: CorpusRunOptions): string {
  const base = path.join(o.checkpoints, `${o.name}-base`);
  return checkpointExists(path.join(base, 'best')) ? path.join(base, 'best') : path.join(base, 'last');
}
