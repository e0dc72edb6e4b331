/**
 * Leave-one-corpus-out training of the prior-conditioned GNN: its inputs other than relation ids (the heuristic
 * prior, the relation-word fit of edges, GloVe of the relation words) mean the same on every corpus, so the model can
 * learn from the dev questions of the OTHER corpora and be scored on a corpus none of whose questions it saw.
 * Relation embeddings (ids differ per graph) stay at their initial values.
 *   node --import tsx lib/dualg/scripts/gnn-cross.ts [--epochs 4] [--lr 0.002]
 */
import path from 'node:path';
import { scriptArgs } from '../../util/script-args';
import { load2Wiki, loadHotpotqa, loadMusique } from '../../bench/text-multihop';
import { graphFor } from '../graph-for';
import { toGnnGraph } from '../graph/to-gnn';
import { graphView } from '../query/graph-view';
import { gnnConfig, DEFAULT_GNN_CONFIG } from '../gnn/config';
import { queryInputDim } from '../gnn/query-encoder';
import { GnnModel } from '../gnn/model';
import { scoreBatch } from '../gnn/scorer';
import { questionExamples } from '../train/corpus-data';
import type { TrainExample } from '../train/examples';
import { trainStep, validate } from '../train/step';
import { PRIOR_FINETUNE_LOSS } from '../train/losses';
import { questionMetrics, rankDocs, meanMetrics, type QuestionMetrics } from '../train/evaluate';
import { comparePaired } from '../../eval/stats';
import { initTf, tf } from '../../tf/backend';
import { makeRng } from '../../util/rng';
import type { GnnGraph } from '../types';

const CORPORA = {
  '2wiki': { load: load2Wiki, index: '.kf-cache/indexes/2wiki-6838828558a390f0' },
  musique: { load: loadMusique, index: '.kf-cache/indexes/musique-829fa179d8008aa3' },
  hotpotqa: { load: loadHotpotqa, index: '.kf-cache/indexes/hotpotqa-656466437149acc0' },
} as const;
type Name = keyof typeof CORPORA;
const SHARED = (name: string) => !/^relation\.E$|\.relW$|\.relU$/.test(name);

interface Corpus {
  name: Name;
  gg: GnnGraph;
  dev: TrainExample[];
}

async function loadCorpus(name: Name, data: string): Promise<Corpus> {
  const c = CORPORA[name];
  const d = c.load({ questions: path.join(data, `${name}_questions.dev.json`), corpus: path.join(data, `${name}_corpus.json`) });
  const g = await graphFor({ indexDir: path.resolve(c.index), settings: {} });
  const view = graphView(g);
  const qs = d.questions.filter((q) => q.goldDocs.length).map((q) => ({ id: q.id, question: q.question, goldDocs: q.goldDocs }));
  return { name, gg: toGnnGraph(g), dev: questionExamples(g, view, qs).examples };
}

function metricsOf(model: GnnModel, c: Corpus): QuestionMetrics[] {
  const out: QuestionMetrics[] = [];
  for (let i = 0; i < c.dev.length; i += 16) {
    const chunk = c.dev.slice(i, i + 16);
    scoreBatch(
      model,
      c.gg,
      chunk.map((e) => e.query),
    ).forEach((s, j) => out.push(questionMetrics(chunk[j].id, rankDocs(s.docScores), Array.from(chunk[j].targetDocs!))));
  }
  return out;
}

async function main(): Promise<void> {
  const { values: a } = scriptArgs(__filename, {
    options: { epochs: { type: 'string', default: '4' }, lr: { type: 'string', default: '0.002' }, seed: { type: 'string', default: '1024' } },
  });
  await initTf();
  const data = path.resolve('../shared/bench/text-multihop');
  const corpora = await Promise.all((Object.keys(CORPORA) as Name[]).map((n) => loadCorpus(n, data)));
  const R = corpora[0].gg.numRelations;
  if (corpora.some((c) => c.gg.numRelations !== R)) throw new Error('the corpora have different relation vocabulary sizes');
  const seed = Number(a.seed);
  for (const held of corpora) {
    const train = corpora.filter((c) => c !== held);
    const config = gnnConfig({ inputDim: queryInputDim(DEFAULT_GNN_CONFIG.queryEncoder), numRelations: R, seed });
    const model = new GnnModel(config);
    const base = metricsOf(model, held); // untrained = the heuristic
    const opt = tf.train.adam(Number(a.lr));
    // Epoch selection on the training corpora only (a quarter of their questions held back).
    const rng = makeRng(seed).fork(held.name);
    const split = train.map((c) => {
      const order = rng.shuffle(c.dev);
      const n = Math.round(order.length / 4);
      return { c, fit: order.slice(n), val: order.slice(0, n) };
    });
    const score = () => split.reduce((s, x) => s + validate(model, x.c.gg, x.val).r2, 0);
    let best = { epoch: 0, value: score(), weights: await model.getWeights() };
    for (let epoch = 1; epoch <= Number(a.epochs); epoch++) {
      for (const x of split) {
        const order = rng.fork(`${epoch}/${x.c.name}`).shuffle(x.fit);
        for (let i = 0; i < order.length; i += 8) trainStep(model, opt, x.c.gg, order.slice(i, i + 8), PRIOR_FINETUNE_LOSS, SHARED);
      }
      const v = score();
      console.log(`held out ${held.name}: epoch ${epoch} validation R@2 sum ${v.toFixed(3)} (epoch 0: ${best.epoch === 0 ? best.value.toFixed(3) : '-'})`);
      if (v > best.value) best = { epoch, value: v, weights: await model.getWeights() };
    }
    model.setWeights(best.weights);
    const trained = metricsOf(model, held);
    const f = (rows: QuestionMetrics[]) => {
      const m = meanMetrics(rows);
      return `R@2 ${m.r2.toFixed(3)} R@5 ${m.r5.toFixed(3)} all@2 ${m.allFound2.toFixed(3)} all@8 ${m.allFound8.toFixed(3)}`;
    };
    const pair = (k: keyof Omit<QuestionMetrics, 'id'>) => {
      const c = comparePaired(new Map(trained.map((r) => [r.id, r[k]])), new Map(base.map((r) => [r.id, r[k]])));
      return `${k} ${c.won}/${c.lost}/${c.tied} p=${c.signTestP.toPrecision(3)}`;
    };
    console.log(`${held.name}: best epoch ${best.epoch}; trained on ${train.map((c) => c.name).join('+')}: ${f(trained)} | heuristic ${f(base)}`);
    console.log(`${held.name}: trained vs heuristic ${['r2', 'r5', 'allFound2', 'allFound8'].map((k) => pair(k as 'r2')).join('; ')}`);
    opt.dispose();
    model.dispose();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e instanceof Error ? e.stack : e);
    process.exit(1);
  },
);
