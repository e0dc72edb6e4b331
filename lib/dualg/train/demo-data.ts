/**
 * Training the GNN on the default demo world (issue 11, "demo-world questions
 * generated in bulk"): the demo graph's KG completion and synthetic link queries
 * (as for a text corpus, corpus-data.ts), plus bulk demo questions
 * (lib/demo/bulk/bulk-questions.ts: the evaluation templates on other entities and
 * instantiations, never an evaluation question). The evaluation questions are
 * only measured per epoch (monitor), never trained on and never used to pick
 * the epoch: a held-out share of the bulk questions picks it.
 *
 * Everything here calls the public training functions (corpusData,
 * questionExamples, trainGnn); the examples are built exactly as for the text
 * corpora, so the model sees the inputs the 'dualg' retriever gives it.
 */
import path from 'node:path';
import type { GraphSource } from '../graph/build';
import type { DualGraph } from '../graph/types';
import type { GnnConfig } from '../gnn/config';
import type { GnnModel } from '../gnn/model';
import { makeRng } from '../../util/rng';
import { corpusData, type BaseQueries, type CorpusData, type CorpusRunOptions } from './corpus-run';
import { questionExamples } from './corpus-data';
import type { TrainExample } from './examples';
import { trainGnn, type EpochRecord } from './trainer';
import { meanMetrics } from './evaluate';
import { comparePaired } from '../../eval/stats';

type QuestionRef = { id: string; question: string; goldDocs: string[] };

export interface DemoTrainOptions {
  /** Checkpoint folder name under `checkpoints` (e.g. demo-default). */
  name: string;
  graph: DualGraph;
  /** Document id -> its text (synthetic link queries read the sentence that names the linked document). */
  passages: Map<string, string>;
  /** Bulk training questions (never an evaluation question). */
  bulk: QuestionRef[];
  /** The preset's evaluation questions: measured, never trained on. */
  evaluation: QuestionRef[];
  checkpoints: string;
  seed: number;
  kgExamples: number;
  syntheticExamples: number;
  /** Graph queries beside the bulk questions: synthetic link queries (default), generated questions (generated-queries.ts) or both. */
  queries?: BaseQueries;
  /** Generated questions asked for (default: as many as syntheticExamples). */
  generatedExamples?: number;
  /** Share of the linked bulk questions held out to pick the best epoch. */
  validationShare: number;
  pretrainEpochs: number;
  epochs: number;
  config?: Partial<GnnConfig>;
  learningRate?: number;
  /** Stop after the epoch in which this many seconds have passed (checkpoint kept). */
  maxSeconds?: number;
  log: (line: string) => void;
}

export interface DemoData extends CorpusData {
  bulkTrain: TrainExample[];
  bulkVal: TrainExample[];
  bulkUnlinked: string[];
}

/** The options corpus-run.ts expects, with the evaluation questions as its "dev" questions (compare.ts scores those). */
export function demoCorpusOptions(o: DemoTrainOptions): CorpusRunOptions {
  return {
    name: o.name,
    graph: o.graph,
    passages: o.passages,
    questions: o.evaluation,
    out: '',
    checkpoints: o.checkpoints,
    seed: o.seed,
    folds: 1,
    kgExamples: o.kgExamples,
    syntheticExamples: o.syntheticExamples,
    queries: o.queries,
    generatedExamples: o.generatedExamples,
    pretrainEpochs: o.pretrainEpochs,
    epochs: o.epochs,
    foldEpochs: 0,
    config: o.config,
    learningRate: o.learningRate,
    log: o.log,
  };
}

/** KG completion, synthetic link queries, evaluation examples (corpusData) and the bulk questions split into train / validation. */
export function demoData(o: DemoTrainOptions): DemoData {
  const d = corpusData(demoCorpusOptions(o));
  const { examples, unlinked } = questionExamples(o.graph, d.view, o.bulk);
  const shuffled = makeRng(o.seed).fork('bulk-validation').shuffle(examples.slice());
  const nVal = Math.min(shuffled.length, Math.max(1, Math.round(shuffled.length * o.validationShare)));
  return { ...d, bulkTrain: shuffled.slice(nVal), bulkVal: shuffled.slice(0, nVal), bulkUnlinked: unlinked };
}

export interface DemoTrainResult {
  model: GnnModel;
  history: EpochRecord[];
  seconds: number;
  stoppedBy?: string;
  dir: string;
}

/** The checkpoint folders of a demo run: [with the bulk questions (where the retriever looks), graph-queries-only baseline (where it does not)]. */
export function trainingDirs(o: Pick<DemoTrainOptions, 'checkpoints' | 'name' | 'queries'>): [string, string] {
  return [path.join(o.checkpoints, o.name), path.join(o.checkpoints, 'baselines', `${o.name}-${o.queries ?? 'synthetic'}-only`)];
}

/**
 * One training run: KG-completion pre-training, then fine-tuning on the bulk questions plus the synthetic link
 * queries (`withBulk` false: the synthetic queries only, the baseline that shows what the bulk questions add).
 * The trainer picks the best epoch on held-out bulk questions (synthetic validation when withBulk is false).
 */
export async function trainOnDemo(o: DemoTrainOptions, d: DemoData, withBulk: boolean): Promise<DemoTrainResult> {
  const t0 = Date.now();
  // The baseline goes one folder deeper, where the retriever's checkpoint search (gnn/load.ts findCheckpointFor) does not look.
  const dir = trainingDirs(o)[withBulk ? 0 : 1];
  const r = await trainGnn({
    graph: d.gg,
    config: d.config,
    dir,
    seed: o.seed,
    learningRate: o.learningRate,
    batchSize: 8,
    pretrain: { epochs: o.pretrainEpochs, examples: d.kg },
    finetune: {
      epochs: o.epochs,
      examples: withBulk ? [...d.bulkTrain, ...d.synTrain] : d.synTrain,
      validation: withBulk ? d.bulkVal : d.synVal,
      monitor: d.dev,
    },
    trainedOn: withBulk ? `demo world: ${d.bulkTrain.length} bulk questions + ${d.baseQueries} (no dev question)` : `demo world: ${d.baseQueries}`,
    maxSeconds: o.maxSeconds,
    log: (l) => o.log(`${withBulk ? 'bulk' : `${o.queries ?? 'synthetic'}-only`}: ${l}`),
  });
  return { model: r.model, history: r.history, seconds: (Date.now() - t0) / 1000, stoppedBy: r.stoppedBy, dir };
}

/** Document id -> the text of its text-bearing fragments (paragraphs, worked examples, captions), in reading order. */
export function passagesOf(source: GraphSource): Map<string, string> {
  const out = new Map<string, string>();
  for (const d of source.documents()) {
    const parts = source.fragmentsOf(d.id).map((f) => [f.text, f.caption].filter(Boolean).join(' '));
    out.set(d.id, parts.filter(Boolean).join('\n'));
  }
  return out;
}

/**
 * The stricter held-out view: evaluation questions whose SET of gold documents no bulk question has (under any
 * template). The bulk rule only forbids the same template with the same gold documents; a question about another
 * attribute of the same entity keeps its gold documents, so on the rest a model may have learnt "this entity ->
 * these documents" from training. Scores on this subset show what carries over to unseen document combinations.
 */
export function unseenGoldSetIds(evaluation: readonly QuestionRef[], bulk: readonly QuestionRef[]): Set<string> {
  const key = (q: QuestionRef) => [...new Set(q.goldDocs)].sort().join('\u0001');
  const bulkSets = new Set(bulk.map(key));
  return new Set(evaluation.filter((q) => !bulkSets.has(key(q))).map((q) => q.id));
}

type Row = { id: string } & Record<'r2' | 'r5' | 'allFound2' | 'allFound5' | 'allFound8', number>;

/** Means per method and paired sign tests of `trained` against every other method, on the questions in `ids`. */
export function subsetComparison(perQuestion: Record<string, Row[]>, ids: ReadonlySet<string>, trained: string) {
  const rows = (m: string) => perQuestion[m].filter((r) => ids.has(r.id));
  const metric = (m: string, f: keyof Omit<Row, 'id'>) => new Map(rows(m).map((r) => [r.id, r[f]]));
  const means = Object.fromEntries(Object.keys(perQuestion).map((m) => [m, meanMetrics(rows(m))]));
  const paired = Object.fromEntries(
    Object.keys(perQuestion)
      .filter((m) => m !== trained)
      .map((m) => [
        `${trained} vs ${m}`,
        { r5: comparePaired(metric(trained, 'r5'), metric(m, 'r5')), allFound8: comparePaired(metric(trained, 'allFound8'), metric(m, 'allFound8')) },
      ]),
  );
  return { n: ids.size, means, paired };
}
