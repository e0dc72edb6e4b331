/**
 * Train the DualG GNN on one text corpus's graph and report (DG2).
 *   node --import tsx scripts/dualg-gnn-train.ts --bench 2wiki --index .kf-cache/indexes/2wiki-... [--out results/dualg-gnn/2wiki]
 * Base model: KG completion + synthetic link queries (no dev question); then
 * k-fold fine-tuning on the dev questions; comparison with the untrained GNN,
 * the heuristic and PPR on the same graph (paired sign tests); path check;
 * latency. Writes <out>/<bench>-gnn.json and a loss/recall figure. Run with nice.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { load2Wiki, loadHotpotqa, loadMusique } from '../lib/bench/text-multihop';
import { graphFor } from '../lib/dualg/graph-for';
import { corpusData, trainBase, trainFolds, type CorpusRunOptions } from '../lib/dualg/train/corpus-run';
import { compareOnDev } from '../lib/dualg/train/compare';
import { writeTrainingReport } from '../lib/report/gnn-training';
import { initTf } from '../lib/tf/backend';
import { defaultCheckpointRoot } from '../lib/dualg/gnn';

const LOADERS = { '2wiki': load2Wiki, musique: loadMusique, hotpotqa: loadHotpotqa } as const;

async function main(): Promise<void> {
  const { values: a } = parseArgs({
    options: {
      bench: { type: 'string' },
      index: { type: 'string' },
      out: { type: 'string' },
      data: { type: 'string', default: path.resolve('../shared/bench/text-multihop') },
      seed: { type: 'string', default: '1024' },
      folds: { type: 'string', default: '5' },
      kg: { type: 'string', default: '320' },
      synthetic: { type: 'string', default: '576' },
      'pretrain-epochs': { type: 'string', default: '1' },
      epochs: { type: 'string', default: '2' },
      'fold-epochs': { type: 'string', default: '1' },
      checkpoints: { type: 'string' },
      layers: { type: 'string', default: '2' },
      hidden: { type: 'string', default: '64' },
      lr: { type: 'string', default: '0.005' },
      replay: { type: 'string', default: '2' },
      'no-inner-validation': { type: 'boolean', default: false },
    },
  });
  const bench = a.bench as keyof typeof LOADERS;
  if (!LOADERS[bench] || !a.index) throw new Error('usage: --bench 2wiki|musique|hotpotqa --index <built index folder> [--out DIR]');
  const log = (l: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${l}`);
  const tf = await initTf();
  const data = LOADERS[bench]({ questions: path.join(a.data!, `${bench}_questions.dev.json`), corpus: path.join(a.data!, `${bench}_corpus.json`) });
  const graph = await graphFor({ indexDir: path.resolve(a.index), settings: {}, log });
  const o: CorpusRunOptions = {
    name: bench,
    graph,
    passages: new Map((data.passages ?? []).map((p) => [p.id, p.text])),
    questions: data.questions.filter((q) => q.goldDocs.length).map((q) => ({ id: q.id, question: q.question, goldDocs: q.goldDocs })),
    out: path.resolve(a.out ?? path.join('results', 'dualg-gnn', bench)),
    checkpoints: path.resolve(a.checkpoints ?? defaultCheckpointRoot()),
    seed: Number(a.seed),
    folds: Number(a.folds),
    kgExamples: Number(a.kg),
    syntheticExamples: Number(a.synthetic),
    pretrainEpochs: Number(a['pretrain-epochs']),
    epochs: Number(a.epochs),
    foldEpochs: Number(a['fold-epochs']),
    config: { layers: Number(a.layers), hidden: Number(a.hidden) },
    learningRate: Number(a.lr),
    replay: Number(a.replay),
    innerValidation: !a['no-inner-validation'],
    log,
  };
  const d = corpusData(o);
  log(`${bench}: graph ${d.gg.numNodes} entities, ${d.gg.src.length} edges, ${d.gg.numRelations} relations; backend ${tf.backend}`);
  log(`examples: kg ${d.kg.length}, synthetic ${d.synTrain.length} + ${d.synVal.length} val, dev ${d.dev.length} (unlinked ${d.unlinked.length})`);
  const base = await trainBase(o, d);
  log(`base model trained in ${base.seconds.toFixed(0)} s`);
  const folds = await trainFolds(o, d);
  log(`${o.folds} fold models trained in ${folds.seconds.toFixed(0)} s`);
  const cmp = compareOnDev(o, d, base.model, folds);
  const f = (x: number) => x.toFixed(3);
  for (const [m, v] of Object.entries(cmp.means)) {
    log(`${m}: R@2 ${f(v.r2)} R@5 ${f(v.r5)} all@2 ${f(v.allFound2)} all@5 ${f(v.allFound5)} all@8 ${f(v.allFound8)} (n=${v.n})`);
  }
  for (const [k, v] of Object.entries(cmp.paired)) {
    const p = (c: typeof v.r5) => `${c.won}/${c.lost}/${c.tied} p=${c.signTestP.toPrecision(3)}`;
    log(`${k}: won/lost/tied R@2 ${p(v.r2)}; R@5 ${p(v.r5)}; all@2 ${p(v.allFound2)}; all@5 ${p(v.allFound5)}; all@8 ${p(v.allFound8)}`);
  }
  const pc = cmp.paths;
  log(`paths (n=${pc.questionsWithGoldInTop8}): top path through a gold bridge ${pc.topPathThroughABridge}, through all gold ${pc.topPathThroughAllGold}`);
  const l = cmp.latencyMs;
  log(`latency GNN+paths p50 ${l.p50.toFixed(1)} ms p90 ${l.p90.toFixed(1)} ms (gnn p50 ${l.gnnP50.toFixed(1)}, paths p50 ${l.pathsP50.toFixed(1)})`);
  const report = {
    kind: 'dualg-gnn-training-report',
    bench,
    index: a.index,
    backend: tf.backend,
    config: d.config,
    seed: o.seed,
    counts: { kg: d.kg.length, syntheticTrain: d.synTrain.length, syntheticVal: d.synVal.length, dev: d.dev.length, unlinked: d.unlinked },
    seconds: { base: base.seconds, folds: folds.seconds },
    baseStoppedBy: base.stoppedBy,
    note:
      'dev figures: gnn-kfold = each question scored by the fold model that did not train on it; gnn-base never saw a dev question; ' +
      'scorer-level document rankings (no hybrid fill-up, no micro fusion)',
    baseHistory: base.history.map(({ batchLosses, ...h }) => ({ ...h, batchLossesEvery10: batchLosses.filter((_, i) => i % 10 === 0) })),
    ...cmp,
  };
  const files = await writeTrainingReport(o.out, `${bench}-gnn`, report, base.history, log);
  log(`wrote ${files.join(', ')}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
