/**
 * Seeded GNN training: KG-completion pre-training, then fine-tuning on
 * questions (validation recall per epoch, best epoch kept). A checkpoint is
 * written after every epoch to <dir>/last (and <dir>/best on a new best); a run
 * started again on the same folder resumes after the last completed epoch.
 * A NaN loss stops with KfError 'gnn_nan_loss' and leaves <dir>/last intact.
 */
import path from 'node:path';
import { initTf, tf } from '../../tf/backend';
import { makeRng } from '../../util/rng';
import { KfError } from '../../util/errors';
import type { GnnGraph } from '../types';
import type { GnnConfig } from '../gnn/config';
import { GnnModel } from '../gnn/model';
import { checkpointExists, readCheckpoint, writeCheckpoint, type TrainingProgress } from './checkpoint';
import type { TrainExample } from './examples';
import { FINETUNE_LOSS, PRETRAIN_LOSS, PRIOR_FINETUNE_LOSS, type LossWeights } from './losses';
import { gnnGraphFingerprint } from './fingerprint';
import { trainStep, validate, type Validation } from './step';

export interface TrainOptions {
  graph: GnnGraph;
  config: GnnConfig;
  /** Checkpoint folder (last/, best/ inside). */
  dir: string;
  seed?: number;
  learningRate?: number;
  batchSize?: number;
  pretrain?: { epochs: number; examples: TrainExample[] };
  /** validation picks the best epoch; monitor is only measured and reported (e.g. held-out questions). */
  finetune?: { epochs: number; examples: TrainExample[]; validation?: TrainExample[]; monitor?: TrainExample[] };
  /** Start from this checkpoint's weights (same graph) when not resuming, e.g. k-fold fine-tuning from a base model. */
  initFrom?: string;
  /** What the examples are, in words (recorded in the checkpoint; labels show it): e.g. "2wiki graph: 518 synthetic link queries". */
  trainedOn?: string;
  /** Stop (after the current epoch, checkpoint written) once this many seconds have passed. */
  maxSeconds?: number;
  log?: (line: string) => void;
}

export interface EpochRecord {
  phase: 'pretrain' | 'finetune';
  epoch: number;
  meanLoss: number;
  batchLosses: number[];
  val?: Validation;
  monitor?: Validation;
  seconds: number;
}

export interface TrainResult {
  model: GnnModel;
  history: EpochRecord[];
  resumed: boolean;
  stoppedBy?: string;
  best?: TrainingProgress['best'];
  graphFingerprint: string;
}

type Phase = {
  name: 'pretrain' | 'finetune';
  epochs: number;
  examples: TrainExample[];
  loss: LossWeights;
  validation?: TrainExample[];
  monitor?: TrainExample[];
};

export async function trainGnn(o: TrainOptions): Promise<TrainResult> {
  await initTf();
  const fingerprint = gnnGraphFingerprint(o.graph);
  const model = new GnnModel(o.config);
  const optimizer = tf.train.adam(o.learningRate ?? 5e-3);
  const state = await resume(o, model, optimizer, fingerprint);
  const phases: Phase[] = [
    { name: 'pretrain', epochs: o.pretrain?.epochs ?? 0, examples: o.pretrain?.examples ?? [], loss: PRETRAIN_LOSS },
    {
      name: 'finetune',
      epochs: o.finetune?.epochs ?? 0,
      examples: o.finetune?.examples ?? [],
      // The document list loss needs the queries' priors (question-shaped examples carry them).
      loss: o.config.prior && o.finetune?.examples.some((e) => e.query.prior) ? PRIOR_FINETUNE_LOSS : FINETUNE_LOSS,
      validation: o.finetune?.validation,
      monitor: o.finetune?.monitor,
    },
  ];
  const t0 = Date.now();
  let stoppedBy: string | undefined;
  outer: for (const phase of phases) {
    const doneKey = phase.name === 'pretrain' ? 'pretrainEpochs' : 'finetuneEpochs';
    if (phase.name === 'finetune' && state.progress.finetuneEpochs === 0 && phase.epochs > 0 && phase.validation?.length) {
      // Epoch 0 competes too: fine-tuning that never beats the starting model on validation keeps the starting model.
      const val = validate(model, o.graph, phase.validation);
      state.progress.best = { metric: SELECTION, value: selectionScore(val), epoch: 0 };
      o.log?.(`gnn finetune epoch 0 (before fine-tuning): val R@2 ${val.r2.toFixed(3)} R@5 ${val.r5.toFixed(3)} (n=${val.n})`);
      await save(path.join(o.dir, 'best'), model, optimizer, fingerprint, state, o.trainedOn);
    }
    for (let epoch = state.progress[doneKey] + 1; epoch <= phase.epochs && phase.examples.length; epoch++) {
      const rec = runEpoch(o, model, optimizer, phase, epoch);
      state.history.push(rec);
      state.progress[doneKey] = epoch;
      o.log?.(epochLine(rec, phase.epochs));
      if (rec.val && (!state.progress.best || selectionScore(rec.val) > state.progress.best.value)) {
        state.progress.best = { metric: SELECTION, value: selectionScore(rec.val), epoch };
        await save(path.join(o.dir, 'best'), model, optimizer, fingerprint, state, o.trainedOn);
      }
      await save(path.join(o.dir, 'last'), model, optimizer, fingerprint, state, o.trainedOn);
      if (o.maxSeconds !== undefined && (Date.now() - t0) / 1000 > o.maxSeconds) {
        stoppedBy = `time budget ${o.maxSeconds} s`;
        break outer;
      }
    }
  }
  // A run with nothing to train (0 epochs) still leaves its starting model, so k-fold fine-tuning and the retriever can start from it.
  if (!checkpointExists(path.join(o.dir, 'last'))) await save(path.join(o.dir, 'last'), model, optimizer, fingerprint, state, o.trainedOn);
  if (state.progress.best && checkpointExists(path.join(o.dir, 'best'))) model.setWeights(readCheckpoint(path.join(o.dir, 'best')).params);
  optimizer.dispose();
  return { model, history: state.history, resumed: state.resumed, stoppedBy, best: state.progress.best, graphFingerprint: fingerprint };
}

/** The best epoch is the one with the highest validation R@2 + R@5 (R@5 alone saturates near 1 on 2Wiki). */
const SELECTION = 'val R@2 + R@5';
const selectionScore = (v: Validation) => v.r2 + v.r5;

function runEpoch(o: TrainOptions, model: GnnModel, optimizer: tf.Optimizer, phase: Phase, epoch: number): EpochRecord {
  const t = Date.now();
  const rng = makeRng(o.seed ?? model.config.seed).fork(`${phase.name}/${epoch}`);
  const order = rng.shuffle(phase.examples.map((_, i) => i));
  const bs = o.batchSize ?? 8;
  const losses: number[] = [];
  for (let i = 0; i < order.length; i += bs) {
    losses.push(
      trainStep(
        model,
        optimizer,
        o.graph,
        order.slice(i, i + bs).map((j) => phase.examples[j]),
        phase.loss,
      ),
    );
  }
  const val = phase.validation?.length ? validate(model, o.graph, phase.validation) : undefined;
  const monitor = phase.monitor?.length ? validate(model, o.graph, phase.monitor) : undefined;
  const meanLoss = losses.reduce((a, b) => a + b, 0) / Math.max(1, losses.length);
  return {
    phase: phase.name,
    epoch,
    meanLoss,
    batchLosses: losses,
    ...(val ? { val } : {}),
    ...(monitor ? { monitor } : {}),
    seconds: (Date.now() - t) / 1000,
  };
}

function epochLine(rec: EpochRecord, of: number): string {
  const v = (name: string, x?: Validation) => (x ? `, ${name} R@2 ${x.r2.toFixed(3)} R@5 ${x.r5.toFixed(3)} (n=${x.n})` : '');
  const metrics = `${v('val', rec.val)}${v('monitor', rec.monitor)}`;
  return `gnn ${rec.phase} epoch ${rec.epoch}/${of}: loss ${rec.meanLoss.toFixed(4)}${metrics} (${rec.seconds.toFixed(1)} s)`;
}

interface RunState {
  progress: TrainingProgress;
  history: EpochRecord[];
  resumed: boolean;
}

async function save(dir: string, model: GnnModel, optimizer: tf.Optimizer, graphFingerprint: string, state: RunState, trainedOn?: string): Promise<void> {
  const opt = await optimizer.getWeights();
  const optimizerValues = await Promise.all(
    opt.map(async (w) => ({ name: w.name, shape: w.tensor.shape.slice(), values: (await w.tensor.data()) as Float32Array })),
  );
  writeCheckpoint(dir, {
    manifest: { graphFingerprint, config: model.config, progress: state.progress, stats: { history: state.history, ...(trainedOn ? { trainedOn } : {}) } },
    params: await model.getWeights(),
    optimizer: optimizerValues,
  });
}

/** Continue from <dir>/last when it exists (same graph, same architecture), else start fresh. */
async function resume(o: TrainOptions, model: GnnModel, optimizer: tf.Optimizer, fingerprint: string): Promise<RunState> {
  const last = path.join(o.dir, 'last');
  if (!checkpointExists(last)) {
    if (o.initFrom) {
      model.setWeights(readCheckpoint(o.initFrom, { graphFingerprint: fingerprint }).params);
      o.log?.(`gnn: starting from the weights in ${o.initFrom}`);
    }
    return { progress: { pretrainEpochs: 0, finetuneEpochs: 0 }, history: [], resumed: false };
  }
  const ck = readCheckpoint(last, { graphFingerprint: fingerprint });
  for (const k of ['layers', 'hidden', 'inputDim', 'numRelations'] as const) {
    if (ck.manifest.config[k] !== o.config[k]) {
      throw new KfError(
        'gnn_checkpoint_mismatch',
        `the checkpoint in ${last} has ${k} = ${ck.manifest.config[k]}, this run asks for ${o.config[k]}`,
        'use another --out folder or the same settings to resume',
        { concerns: last },
      );
    }
  }
  // A checkpoint trained on other examples (e.g. synthetic link queries vs generated questions) is not this run's to continue.
  const ckOn = ck.manifest.stats?.trainedOn;
  if (o.trainedOn && typeof ckOn === 'string' && ckOn !== o.trainedOn) {
    throw new KfError(
      'gnn_checkpoint_mismatch',
      `the checkpoint in ${last} was trained on "${ckOn}", this run trains on "${o.trainedOn}"`,
      'use another checkpoint folder (--checkpoints) or delete that one to train anew',
      { concerns: last },
    );
  }
  model.setWeights(ck.params);
  if (ck.optimizer.length) await optimizer.setWeights(ck.optimizer.map((w) => ({ name: w.name, tensor: tf.tensor(w.values, w.shape) })));
  o.log?.(`gnn: resuming from ${last} (pre-training epochs done ${ck.manifest.progress.pretrainEpochs}, fine-tuning ${ck.manifest.progress.finetuneEpochs})`);
  const history = (ck.manifest.stats?.history ?? []) as EpochRecord[];
  return { progress: ck.manifest.progress, history, resumed: true };
}
