/**
 * Train and evaluate the GNN on one text corpus's graph (2Wiki / MuSiQue /
 * HotpotQA): a base model from KG completion + queries made from the corpus alone
 * (question-shaped queries generated from its graph, and/or synthetic link queries;
 * no dev question seen), then k-fold fine-tuning on the dev questions (each question is
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
import { generatedExamples, generateQueries, type GeneratedKind } from './generated-queries';
import type { TrainExample } from './examples';
import { paraphraseLabel, relationParaphraser } from './relation-paraphrase';
import { loadGloveSync } from '../../index/embedders/glove-table';
import { trainGnn, type EpochRecord } from './trainer';
import { checkpointExists } from './checkpoint';
import type { GnnModel } from '../gnn/model';
import type { BenchChoice } from '../bench-settings';
import { querySettings, type QuerySettings } from './query-adapter';

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
  /**
   * What the base model fine-tunes on (never a dev question): 'synthetic' link queries (passage sentence naming a
   * linked title), 'generated' question-shaped queries (generated-queries.ts), or 'both'. Default 'synthetic'.
   */
  queries?: BaseQueries;
  /** Share of generated questions' hops whose relation words are paraphrased away from the passage's (relation-paraphrase.ts; default 0). */
  paraphrase?: number;
  /** Generated queries asked for (default: as many as syntheticExamples). */
  generatedExamples?: number;
  pretrainEpochs: number;
  epochs: number;
  foldEpochs: number;
  config?: Partial<GnnConfig>;
  learningRate?: number;
  /** Pick each fold's epoch on a quarter of its training questions (default true; false: train on all, keep the last epoch). */
  innerValidation?: boolean;
  /** Synthetic queries replayed in each fold's fine-tuning, per dev question (against forgetting; default 2). */
  replay?: number;
  /**
   * The retriever settings the shipped `dualg` retriever runs on this index: the benchmark's k-fold choice under
   * no explicit setting (bench-settings.ts withChoice; MuSiQue: partialLink 0.5). Training and dev queries are
   * linked and their heuristic prior built under them, and the retriever-level rows run them. Default: {} (the defaults).
   */
  settings?: Record<string, unknown>;
  /** The benchmark choice in force (named in the retriever rows' identity), if any. */
  choice?: BenchChoice;
  /**
   * The paper preset's Enc(q) (preset-run.ts): the embeddings stage's vector of a question, for the retriever rows'
   * searchers (training queries carry theirs already), and the embedding model's id for the checkpoints' labels.
   */
  embedQuery?: (text: string) => Promise<Float32Array>;
  embeddedBy?: string;
  log: (line: string) => void;
}

export type BaseQueries = 'synthetic' | 'generated' | 'both';
export const BASE_QUERIES: readonly BaseQueries[] = ['synthetic', 'generated', 'both'];

export interface CorpusData {
  gg: GnnGraph;
  view: GraphView;
  config: GnnConfig;
  kg: TrainExample[];
  /** The base model's training and validation queries (synthetic link queries, generated queries or both). */
  synTrain: TrainExample[];
  synVal: TrainExample[];
  /** What synTrain is, in words (checkpoint label and report). */
  baseQueries: string;
  /** Generated queries per shape, and how many linking dropped (absent when none were generated). */
  generated?: { byKind: Partial<Record<GeneratedKind, number>>; dropped: number };
  dev: TrainExample[];
  unlinked: string[];
  /** Linking and heuristic settings every query was built with (the retriever's, o.settings). */
  query: QuerySettings;
}

/** Where a fold's fine-tuning starts: the base model (gnn-kfold) or the untrained prior-conditioned model, ranking as the heuristic (gnn-kfold-direct). */
export type FoldStart = 'base' | 'untrained';

export interface FoldModels {
  models: GnnModel[];
  foldOf: Map<string, number>;
  seconds: number;
  /** The epoch each fold's inner validation chose (0 = the starting model unchanged). */
  chosenEpochs: number[];
}

export function corpusData(o: CorpusRunOptions): CorpusData {
  const gg = toGnnGraph(o.graph);
  const view = graphView(o.graph);
  const rng = makeRng(o.seed);
  const query = querySettings(o);
  const kg = kgCompletionExamples(gg, rng.fork('kg'), o.kgExamples);
  const base = baseQueries(o, view, rng, query);
  const nVal = Math.max(20, Math.round(base.examples.length * 0.1));
  const { examples: dev, unlinked } = questionExamples(o.graph, view, o.questions, query);
  const encoder = o.config?.queryEncoder ?? DEFAULT_GNN_CONFIG.queryEncoder;
  // 'embeddings' (the paper preset): the endpoint's dimension, given in o.config.inputDim by the caller.
  const inputDim = o.config?.inputDim ?? queryInputDim(encoder);
  const config = gnnConfig({ inputDim, numRelations: gg.numRelations, seed: o.seed, ...o.config });
  const synTrain = base.examples.slice(nVal);
  const label = `${synTrain.length} ${base.label}`;
  return { gg, view, config, kg, synTrain, synVal: base.examples.slice(0, nVal), baseQueries: label, generated: base.generated, dev, unlinked, query };
}

/** The base model's queries, shuffled together (the first tenth, at least 20, validates). */
function baseQueries(o: CorpusRunOptions, view: GraphView, rng: ReturnType<typeof makeRng>, query: QuerySettings) {
  const mode = o.queries ?? 'synthetic';
  const text = (d: number) => o.passages.get(o.graph.docs[d].id);
  const syn = mode === 'generated' ? [] : syntheticLinkExamples(o.graph, view, text, rng.fork('syn'), o.syntheticExamples, query);
  if (mode === 'synthetic') return { examples: syn, label: 'synthetic link queries' };
  const share = o.paraphrase ?? 0;
  const paraphrase = share > 0 ? relationParaphraser(loadGloveSync(), { share }) : undefined;
  const queries = generateQueries(o.graph, text, rng.fork('generated'), o.generatedExamples ?? o.syntheticExamples, paraphrase);
  const { examples, dropped } = generatedExamples(view, queries, query);
  const byKind: Partial<Record<GeneratedKind, number>> = {};
  for (const q of queries) byKind[q.kind] = (byKind[q.kind] ?? 0) + 1;
  const gen = share > 0 ? `generated questions (${paraphraseLabel(share)})` : 'generated questions';
  const label = mode === 'generated' ? gen : `${gen} and synthetic link queries`;
  return { examples: rng.fork('base-order').shuffle([...examples, ...syn]), label, generated: { byKind, dropped } };
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
    trainedOn: `${o.name} graph: ${o.pretrainEpochs ? `${d.kg.length} KG-completion triples + ` : ''}${d.baseQueries} (no dev question)${embeddedBy(o)}`,
    log: o.log,
  });
  return { model: r.model, history: r.history, seconds: (Date.now() - t0) / 1000, stoppedBy: r.stoppedBy };
}

/**
 * k folds over the linked dev questions; fold i fine-tunes on the other folds and scores fold i. `start` 'base'
 * (gnn-kfold): from the base model, plus replayed base-model queries against forgetting. 'untrained'
 * (gnn-kfold-direct): from the untrained prior-conditioned model, which ranks exactly as the heuristic, on the other
 * folds' dev questions only (no replay: nothing learned on generated questions to keep). Either way an inner split
 * of the training folds picks the epoch, epoch 0 (the starting model unchanged) included; the held-out fold never does.
 */
export async function trainFolds(o: CorpusRunOptions, d: CorpusData, start: FoldStart = 'base'): Promise<FoldModels> {
  const t0 = Date.now();
  const order = makeRng(o.seed)
    .fork('folds')
    .shuffle(d.dev.map((e) => e.id));
  const foldOf = new Map(order.map((id, i) => [id, i % o.folds]));
  const models: GnnModel[] = [];
  const chosenEpochs: number[] = [];
  const replay =
    start === 'base'
      ? makeRng(o.seed)
          .fork('replay')
          .sample(d.synTrain, Math.round((o.replay ?? 2) * d.dev.length))
      : [];
  const untrained = d.config.prior ? 'the untrained prior-conditioned model (the heuristic ranking)' : 'the untrained model (no prior: a random ranking)';
  const from = start === 'base' ? 'from the base model' : `from ${untrained}`;
  for (let f = 0; f < o.folds; f++) {
    const train = d.dev.filter((e) => foldOf.get(e.id) !== f);
    const held = d.dev.filter((e) => foldOf.get(e.id) === f);
    const inner = makeRng(o.seed + f)
      .fork('inner')
      .shuffle(train);
    const nVal = o.innerValidation === false ? 0 : Math.round(inner.length / 4);
    const fit = inner.slice(nVal);
    const r = await trainGnn({
      graph: d.gg,
      config: d.config,
      dir: path.join(o.checkpoints, start === 'base' ? 'kfold' : 'kfold-direct', `${o.name}-fold-${f}`),
      seed: o.seed + f,
      learningRate: (o.learningRate ?? 5e-3) / 2,
      batchSize: 8,
      ...(start === 'base' ? { initFrom: baseCheckpoint(o) } : {}),
      finetune: { epochs: o.foldEpochs, examples: [...fit, ...fit, ...replay], validation: nVal ? inner.slice(0, nVal) : undefined, monitor: held },
      trainedOn: `${o.name} dev questions outside fold ${f} of ${o.folds} (${fit.length})${replay.length ? ` + ${replay.length} replayed base-model queries` : ''}, ${from}${embeddedBy(o)}`,
      log: (l) => o.log(`${start === 'base' ? 'fold' : 'direct fold'} ${f}: ${l}`),
    });
    models.push(r.model);
    chosenEpochs.push(r.best?.epoch ?? o.foldEpochs);
  }
  return { models, foldOf, seconds: (Date.now() - t0) / 1000, chosenEpochs };
}

/** ", queries embedded by <model>" for the paper preset's checkpoints (nothing for the cpu preset). */
function embeddedBy(o: CorpusRunOptions): string {
  return o.embeddedBy ? `, queries embedded by ${o.embeddedBy}` : '';
}

/** The base model's best epoch, or its last when it had no validation (e.g. KG pre-training only). */
function baseCheckpoint(o: CorpusRunOptions): string {
  const base = path.join(o.checkpoints, `${o.name}-base`);
  return checkpointExists(path.join(base, 'best')) ? path.join(base, 'best') : path.join(base, 'last');
}
