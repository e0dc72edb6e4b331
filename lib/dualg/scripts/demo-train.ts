/**
 * Train the DualG GNN on the default demo world and report (issue 11, item 5).
 *   nice -n 10 node --import tsx lib/dualg/scripts/demo-train.ts [--preset default] [--out results/dualg-gnn/demo]
 *   nice -n 10 node --import tsx lib/dualg/scripts/demo-train.ts --timing --layers 6 --hidden 512   (cost of a size, no training)
 * Training: KG completion + graph queries (--queries synthetic: link queries, the default; generated: question-shaped
 * queries from the demo graph, lib/dualg/train/generated-queries.ts; both) + bulk demo questions (lib/demo/bulk/bulk-questions.ts, never an
 * evaluation question); the best epoch is picked on held-out bulk questions. Evaluation: the preset's evaluation
 * questions (150 for default), never trained on, against the synthetic-only model, the untrained GNN, the untrained
 * heuristic and PPR on the same graph and seeds (paired sign tests). The checkpoint lands in
 * <checkpoints>/demo-<preset>, where the 'dualg' retriever finds it for this graph (the synthetic-only baseline under
 * <checkpoints>/baselines/, where it does not look). A rerun resumes from those folders' last/ checkpoints (an
 * interrupted run continues; a finished one only re-evaluates): --fresh deletes them first and trains anew.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { scriptArgs } from '../../util/script-args';
import { ensureDemoWorld, planWorld } from '../../demo';
import { bulkQuestions } from '../../demo/bulk/bulk-questions';
import { loadDemo } from '../../bench/demo';
import { demoIndexDir } from '../../bench/benchmarks/demo';
import { ensureIndex } from '../../index/build';
import { graphFor } from '../graph-for';
import { sourceFromIndexDir } from '../graph/source';
import { defaultCheckpointRoot } from '../gnn';
import {
  demoCorpusOptions,
  demoData,
  passagesOf,
  subsetComparison,
  trainingDirs,
  trainOnDemo,
  unseenGoldSetIds,
  type DemoTrainOptions,
} from '../train/demo-data';
import { compareOnDev } from '../train/compare';
import { BASE_QUERIES, type BaseQueries } from '../train/corpus-run';
import { KfError } from '../../util/errors';
import { writeTrainingReport } from '../commands/gnn-training';
import { trainStep } from '../train/step';
import { FINETUNE_LOSS } from '../train/losses';
import { GnnModel, makeGnnScorer } from '../gnn';
import type { DemoData } from '../train/demo-data';
import { percentile } from '../../util/percentile';
import { initTf, tf as tfjs } from '../../tf/backend';
import { gitInfo } from '../../util/git';
import type { PresetName } from '../../demo/types';
import type { PairedComparison } from '../../eval/stats';

const OPTIONS = {
  preset: { type: 'string', default: 'default' },
  index: { type: 'string' },
  out: { type: 'string' },
  checkpoints: { type: 'string' },
  seed: { type: 'string', default: '1024' },
  'bulk-seed': { type: 'string', default: 'demo-bulk' },
  rounds: { type: 'string', default: '4' },
  'max-bulk': { type: 'string', default: '1000' },
  kg: { type: 'string', default: '320' },
  synthetic: { type: 'string', default: '400' },
  // Graph queries beside the bulk questions: synthetic | generated | both (generated questions, lib/dualg/train/generated-queries.ts).
  queries: { type: 'string', default: 'synthetic' },
  generated: { type: 'string', default: '400' },
  'validation-share': { type: 'string', default: '0.1' },
  'pretrain-epochs': { type: 'string', default: '1' },
  epochs: { type: 'string', default: '2' },
  layers: { type: 'string', default: '2' },
  hidden: { type: 'string', default: '64' },
  lr: { type: 'string', default: '0.005' },
  'max-seconds': { type: 'string', default: '780' },
  'no-baseline': { type: 'boolean', default: false },
  fresh: { type: 'boolean', default: false },
  timing: { type: 'boolean', default: false },
  'timing-steps': { type: 'string', default: '5' },
  'timing-queries': { type: 'string', default: '20' },
  'timing-batch': { type: 'string', default: '8' },
} as const;

function baseQueriesArg(v: string | undefined): BaseQueries {
  if (!BASE_QUERIES.includes(v as BaseQueries))
    throw new KfError('bad_option', `--queries must be one of ${BASE_QUERIES.join(', ')}, got ${v}`, 'e.g. --queries generated');
  return v as BaseQueries;
}

const log = (l: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${l}`);

type Args = ReturnType<typeof scriptArgs<{ options: typeof OPTIONS }>>['values'];
type QuestionRef = { id: string; question: string; goldDocs: string[] };

/** The training options from the command line, over the demo world's graph and questions. */
function trainOptions(
  a: Args,
  w: { preset: PresetName; graph: DemoTrainOptions['graph']; indexDir: string; bulk: QuestionRef[]; evaluation: QuestionRef[] },
): DemoTrainOptions {
  const ref = (q: QuestionRef) => ({ id: q.id, question: q.question, goldDocs: q.goldDocs });
  return {
    name: `demo-${w.preset}`,
    graph: w.graph,
    passages: passagesOf(sourceFromIndexDir(w.indexDir)),
    bulk: w.bulk.map(ref),
    evaluation: w.evaluation.filter((q) => q.goldDocs.length).map(ref),
    checkpoints: path.resolve(a.checkpoints ?? defaultCheckpointRoot()),
    seed: Number(a.seed),
    kgExamples: Number(a.kg),
    syntheticExamples: Number(a.synthetic),
    queries: baseQueriesArg(a.queries),
    generatedExamples: Number(a.generated),
    validationShare: Number(a['validation-share']),
    pretrainEpochs: Number(a['pretrain-epochs']),
    epochs: Number(a.epochs),
    config: { layers: Number(a.layers), hidden: Number(a.hidden) },
    learningRate: Number(a.lr),
    maxSeconds: Number(a['max-seconds']),
    log,
  };
}

async function main(): Promise<void> {
  const { values: a } = scriptArgs(__filename, { options: OPTIONS });
  const t0 = Date.now();
  const loadAtStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const preset = a.preset as PresetName;
  const tf = await initTf();
  const world = await ensureDemoWorld({ preset });
  const evaluation = loadDemo({ questions: path.join(world.dir, 'questions.json') }).questions;
  const planned = planWorld({ preset }, true);
  if (JSON.stringify(planned.world.questions.map((q) => q.question)) !== JSON.stringify(evaluation.map((q) => q.question)))
    throw new Error(`the world in ${world.dir} is not the one planWorld({preset: ${preset}}) makes: regenerate it (kf demo generate)`);
  const bulk = bulkQuestions(planned, { seed: a['bulk-seed']!, rounds: Number(a.rounds), max: Number(a['max-bulk']) });
  log(`demo ${preset}: ${evaluation.length} evaluation questions; ${bulk.questions.length} bulk questions (dropped ${JSON.stringify(bulk.dropped)})`);
  const indexDir = path.resolve(a.index ?? demoIndexDir(preset));
  await ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: indexDir, embedder: 'fitted' });
  const graph = await graphFor({ indexDir, settings: {}, log });
  const o = trainOptions(a, { preset, graph, indexDir, bulk: bulk.questions, evaluation });
  const d = demoData(o);
  log(`graph ${d.gg.numNodes} entities, ${d.gg.src.length} edges, ${d.gg.numRelations} relations; backend ${tf.backend}`);
  log(
    `examples: kg ${d.kg.length}, ${d.baseQueries} + ${d.synVal.length} val, bulk ${d.bulkTrain.length} + ${d.bulkVal.length} val ` +
      `(unlinked ${d.bulkUnlinked.length}), evaluation ${d.dev.length} (unlinked ${d.unlinked.length})`,
  );
  if (a.timing) {
    const t = await timeGnnSize(d, {
      steps: Number(a['timing-steps']),
      queries: Number(a['timing-queries']),
      batch: Number(a['timing-batch']),
      budgetSeconds: Number(a['max-seconds']),
    });
    log(`timing ${JSON.stringify(t)}`);
    return;
  }
  if (a.fresh) for (const dir of trainingDirs(o)) fs.rmSync(dir, { recursive: true, force: true });
  const baseline = a['no-baseline'] ? undefined : await trainOnDemo(o, d, false);
  if (baseline) log(`${o.queries}-only model trained in ${baseline.seconds.toFixed(0)} s`);
  const trained = await trainOnDemo(o, d, true);
  log(`bulk-trained model in ${trained.seconds.toFixed(0)} s${trained.stoppedBy ? ` (stopped by ${trained.stoppedBy})` : ''}: ${trained.dir}`);
  const cmp = relabel(
    compareOnDev(demoCorpusOptions(o), d, (baseline ?? trained).model, { models: [trained.model], foldOf: new Map(d.dev.map((e) => [e.id, 0])) }),
    o.queries,
  );
  printComparison(cmp);
  const unseen = subsetComparison(cmp.perQuestion, unseenGoldSetIds(o.evaluation, o.bulk), 'gnn-bulk');
  log(`evaluation questions whose gold-document set no bulk question has: ${unseen.n}`);
  printComparison(unseen);
  const wallSeconds = (Date.now() - t0) / 1000;
  // CPU seconds of this process and the machine's load: on 2 shared cores the wall time depends on the other jobs.
  const cpu = process.cpuUsage();
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const load = { atStart: loadAtStart, atEnd: os.loadavg().map((x) => Math.round(x * 100) / 100) };
  log(
    `wall time ${wallSeconds.toFixed(0)} s (training ${(trained.seconds + (baseline?.seconds ?? 0)).toFixed(0)} s), cpu ${cpuSeconds.toFixed(0)} s, load ${JSON.stringify(load)}`,
  );
  const report = {
    kind: 'dualg-gnn-training-report',
    bench: `demo-${preset}`,
    git: gitInfo().commit,
    command: `node --import tsx lib/dualg/scripts/demo-train.ts ${process.argv.slice(2).join(' ')}`.trim(),
    index: indexDir,
    backend: tf.backend,
    config: d.config,
    seed: o.seed,
    bulk: { seed: a['bulk-seed'], rounds: Number(a.rounds), count: bulk.questions.length, dropped: bulk.dropped },
    queries: o.queries,
    generated: d.generated,
    counts: {
      kg: d.kg.length,
      syntheticTrain: d.synTrain.length,
      syntheticVal: d.synVal.length,
      bulkTrain: d.bulkTrain.length,
      bulkVal: d.bulkVal.length,
      bulkUnlinked: d.bulkUnlinked.length,
      evaluation: d.dev.length,
      evaluationUnlinked: d.unlinked,
    },
    seconds: { wall: wallSeconds, trained: trained.seconds, syntheticOnly: baseline?.seconds, cpu: cpuSeconds },
    load,
    stoppedBy: trained.stoppedBy,
    note:
      'gnn-bulk = the model trained with the bulk questions (one model; no evaluation question was trained on; compare.ts calls it gnn-kfold), ' +
      `${baselineName(o.queries)} = trained on KG completion + the graph queries only, no bulk question (${d.baseQueries}; compare.ts: gnn-base)` +
      (baseline ? '' : ' (not trained in this run: the bulk model again)') +
      '; scorer-level document rankings (no hybrid fill-up, no micro fusion); evaluation = the preset questions with gold documents',
    history: trained.history.map(({ batchLosses, ...h }) => ({ ...h, batchLossesEvery10: batchLosses.filter((_, i) => i % 10 === 0) })),
    ...cmp,
    unseenGoldSets: { note: 'the evaluation questions whose set of gold documents no bulk question has (any template)', ...unseen },
  };
  const out = path.resolve(a.out ?? path.join('results', 'dualg-gnn', 'demo'));
  const files = await writeTrainingReport(out, `demo-${preset}-gnn`, report, trained.history, log, {
    validation: 'held-out bulk questions',
    monitor: 'evaluation questions (never trained on)',
  });
  log(`wrote ${files.join(', ')}`);
}

/**
 * The cost of one model size on this graph without training it: seconds per fine-tuning step (batch of 8,
 * after one warm-up step), the implied epoch time over the bulk + synthetic examples, and the per-query
 * GNN + path latency on the evaluation questions. Bounded by `budgetSeconds`.
 */
async function timeGnnSize(d: DemoData, o: { steps: number; queries: number; batch: number; budgetSeconds: number }) {
  await initTf();
  const model = new GnnModel(d.config);
  const optimizer = tfjs.train.adam(0.005);
  const pool = [...d.bulkTrain, ...d.synTrain];
  const stepSeconds: number[] = [];
  const t0 = Date.now();
  for (let i = 0; i <= o.steps && (Date.now() - t0) / 1000 < o.budgetSeconds; i++) {
    const t = performance.now();
    trainStep(model, optimizer, d.gg, pool.slice(i * o.batch, (i + 1) * o.batch), FINETUNE_LOSS);
    if (i > 0) stepSeconds.push((performance.now() - t) / 1000);
    log(`step ${i}${i ? '' : ' (warm-up)'}: ${((performance.now() - t) / 1000).toFixed(2)} s`);
  }
  const score = makeGnnScorer(model, { paths: 5 });
  const ms: number[] = [];
  for (const ex of d.dev.slice(0, o.queries)) {
    if ((Date.now() - t0) / 1000 > o.budgetSeconds) break;
    const r = score(d.gg, ex.query);
    ms.push(r.timings.gnnMs + r.timings.pathsMs);
  }
  optimizer.dispose();
  model.dispose();
  const perStep = percentile(stepSeconds, 0.5) ?? NaN;
  const stepsPerEpoch = Math.ceil(pool.length / o.batch);
  return {
    layers: d.config.layers,
    hidden: d.config.hidden,
    batch: o.batch,
    stepsMeasured: stepSeconds.length,
    secondsPerStepP50: perStep,
    stepsPerEpoch,
    secondsPerEpochEstimate: perStep * stepsPerEpoch,
    queriesMeasured: ms.length,
    queryMsP50: percentile(ms, 0.5) ?? NaN,
    queryMsP90: percentile(ms, 0.9) ?? NaN,
    seconds: (Date.now() - t0) / 1000,
  };
}

type Printable = {
  means: Record<string, { n: number; r2: number; r5: number; allFound2: number; allFound5: number; allFound8: number }>;
  paired: Record<string, Record<string, PairedComparison>>;
  latencyMs?: ReturnType<typeof compareOnDev>['latencyMs'];
};

function printComparison(cmp: Printable): void {
  const f = (x: number) => x.toFixed(3);
  for (const [m, v] of Object.entries(cmp.means)) {
    log(`${m}: R@2 ${f(v.r2)} R@5 ${f(v.r5)} all@2 ${f(v.allFound2)} all@5 ${f(v.allFound5)} all@8 ${f(v.allFound8)} (n=${v.n})`);
  }
  for (const [k, v] of Object.entries(cmp.paired)) {
    const tests = Object.entries(v).map(([metric, c]) => `${metric} ${c.won}/${c.lost}/${c.tied} p=${c.signTestP.toPrecision(3)}`);
    log(`${k} (won/lost/tied, sign test): ${tests.join('; ')}`);
  }
  const l = cmp.latencyMs;
  if (l) log(`latency GNN+paths p50 ${l.p50.toFixed(1)} ms p90 ${l.p90.toFixed(1)} ms (gnn p50 ${l.gnnP50.toFixed(1)}, paths p50 ${l.pathsP50.toFixed(1)})`);
}

/** compare.ts names the trained model gnn-kfold and the graph-queries-only one gnn-base (its text-corpus roles); here they are neither. */
const baselineName = (q: BaseQueries = 'synthetic') => `gnn-${q}-only`;

function relabel(c: ReturnType<typeof compareOnDev>, queries?: BaseQueries) {
  const names: Record<string, string> = { 'gnn-kfold': 'gnn-bulk', 'gnn-base': baselineName(queries) };
  const rename = (k: string) => k.replace(/gnn-kfold|gnn-base/g, (m) => names[m]);
  const renameKeys = <T>(o: Record<string, T>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [rename(k), v]));
  return { ...c, means: renameKeys(c.means), paired: renameKeys(c.paired), perQuestion: renameKeys(c.perQuestion) };
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
