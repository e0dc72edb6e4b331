/**
 * `kf train gnn`: train DualG's GNN on one text corpus's graph and report (DG2). Base model:
 * KG completion + question-shaped queries generated from the corpus's graph (--queries generated, the
 * default; or the earlier synthetic link queries) with no dev question; then k-fold fine-tuning on the dev
 * questions; comparison with the untrained GNN, the heuristic and PPR on the same graph (paired
 * sign tests), at the scorer level and at the retriever level (the dualg retriever with each scorer);
 * path check; latency. Every query carries the hybrid retriever's ranking (train/hybrid-evidence.ts). A second k-fold,
 * gnn-kfold-direct, fine-tunes each fold from the untrained model (the heuristic ranking) on dev questions only.
 * Queries are linked, and the retriever rows run, with the settings the shipped `dualg` retriever runs on the index
 * (its benchmark's k-fold choice, bench-settings.ts). Writes <out>/<bench>-gnn.json, <bench>-gnn.md
 * (GNN vs heuristic per question, sign tests) and a loss/recall figure; `kf train gnn pool` pools corpora.
 * --preset (train/preset-run.ts): cpu (default, the runs above) or paper (6x512, Enc(q) from the embeddings stage, no
 * prior, so the hybrid rank is not read); the preset, query encoder, embedding model and tfjs backend are in the report.
 */
import path from 'node:path';
import type { CommandContext, CommandSpec, ParsedArgs } from '../../pipeline/command';
import { bool, isNonNegInt, isNumber, isPositiveInt, str } from '../../pipeline/command';
import { load2Wiki, loadHotpotqa, loadMusique } from '../../bench/text-multihop';
import { graphFor } from '../graph-for';
import { BASE_QUERIES, corpusData, trainBase, trainFolds, type BaseQueries, type CorpusRunOptions } from '../train/corpus-run';
import { pooledMarkdown, pooledReport } from '../train/pooled-report';
import fs from 'node:fs';
import { compareOnDev } from '../train/compare';
import { compareOnHeldOut, type HeldOutComparison } from '../train/held-out-generated';
import { defaultCheckpointRoot } from '../gnn';
import { HYBRID_UNIT } from '../gnn/config';
import { writeTrainingReport } from './gnn-training';
import { initTf } from '../../tf/backend';
import { attachHybridEvidence, indexKnowledgeBase, kbHybridSearch } from '../train/hybrid-evidence';
import { compareRetrievers } from '../train/retriever-compare';
import { benchChoice, choiceLabel, withChoice } from '../bench-settings';
import type { meanMetrics } from '../train/evaluate';
import type { PairedComparison } from '../../eval/stats';
import type { Embedder } from '../../model-api/types';
import { GNN_PRESET_NAMES, presetLabel, type GnnPresetName } from '../gnn/preset';
import {
  backendWarning,
  embeddingCache,
  embedRunQueries,
  gnnRunIdentity,
  gnnRowLabel,
  runArchitecture,
  trainingEmbedder,
  type EmbeddingCache,
  type RunArchitecture,
} from '../train/preset-run';

const LOADERS = { '2wiki': load2Wiki, musique: loadMusique, hotpotqa: loadHotpotqa } as const;

export const command: CommandSpec = {
  name: 'train gnn',
  group: 'evaluate',
  summary: "Train DualG's GNN on a text corpus's graph (base model, then k-fold fine-tuning) and compare it with the heuristic and PPR",
  options: {
    bench: { type: 'string', required: true, description: 'text multi-hop benchmark', choices: Object.keys(LOADERS) },
    index: { type: 'string', required: true, description: 'built index folder of that corpus (kf index build / kf eval retrieval --offline)' },
    out: { type: 'string', description: 'report folder (default results/dualg-gnn/<bench>)' },
    data: { type: 'string', description: 'folder of <bench>_questions.dev.json and <bench>_corpus.json', default: '../shared/bench/text-multihop' },
    seed: { type: 'string', description: 'training seed', default: '1024', validate: isNonNegInt },
    folds: { type: 'string', description: 'folds of the fine-tuning on the dev questions', default: '5', validate: isPositiveInt },
    kg: { type: 'string', description: 'KG-completion examples', default: '320', validate: isNonNegInt },
    queries: {
      type: 'string',
      description: "the base model's training queries (never a dev question): generated questions from the graph, synthetic link queries, or both",
      default: 'generated',
      choices: [...BASE_QUERIES],
    },
    generated: {
      type: 'string',
      description: 'generated questions asked for (the same budget as the synthetic queries)',
      default: '576',
      validate: isNonNegInt,
    },
    paraphrase: {
      type: 'string',
      description:
        "share of generated questions' hops whose relation words are swapped for GloVe neighbours absent from the passage (0 = none; 0.5 is the a-priori rule)",
      default: '0',
      validate: (v) => isNumber(v) ?? (Number(v) >= 0 && Number(v) <= 1 ? undefined : `expected a share between 0 and 1, got "${v}"`),
    },
    synthetic: { type: 'string', description: 'synthetic link-query examples', default: '576', validate: isNonNegInt },
    preset: {
      type: 'string',
      description:
        'GNN preset (gnn/preset.ts): cpu = 2x64, hashed+GloVe query, heuristic prior; paper = 6x512, query from the embeddings stage (KF_EMBED_BASE_URL + KF_EMBED_MODEL), no prior -- meant for KF_TF_BACKEND=tensorflow-gpu',
      default: 'cpu',
      choices: [...GNN_PRESET_NAMES],
    },
    'pretrain-epochs': {
      type: 'string',
      description: 'KG-completion epochs (default 1; 0 with --preset paper, which cannot KG-pretrain)',
      validate: isNonNegInt,
    },
    epochs: { type: 'string', description: 'base-model epochs on the synthetic queries', default: '2', validate: isNonNegInt },
    'fold-epochs': { type: 'string', description: 'fine-tuning epochs per fold', default: '1', validate: isNonNegInt },
    checkpoints: { type: 'string', description: "checkpoint folder (default: the state folder's gnn checkpoints)" },
    layers: {
      type: 'string',
      description: "GNN layers (default: the preset's, cpu 2, paper 6; another value makes the run 'custom')",
      validate: isPositiveInt,
    },
    hidden: { type: 'string', description: "hidden width (default: the preset's, cpu 64, paper 512)", validate: isPositiveInt },
    lr: { type: 'string', description: 'learning rate', default: '0.005', validate: isNumber },
    'hybrid-unit': {
      type: 'string',
      description: "units of the learned hybrid-rank scalar in the document score (4 = the heuristic prior's scale; 1 = the raw scalar of the first run)",
      default: String(HYBRID_UNIT),
      validate: isNumber,
    },
    replay: { type: 'string', description: 'synthetic examples replayed per fold example', default: '2', validate: isNonNegInt },
    'no-inner-validation': { type: 'boolean', description: "no inner validation split of each fold's training questions" },
  },
  examples: [
    'kf train gnn --bench 2wiki --index <index dir>',
    'kf train gnn --bench 2wiki --index <index dir> --queries synthetic',
    'kf train gnn --bench 2wiki --index <index dir> --paraphrase 0.5',
    'kf train gnn --bench 2wiki --index <index dir> --pretrain-epochs 0 --epochs 0 --lr 0.002 --fold-epochs 3 --replay 0',
    'KF_TF_BACKEND=tensorflow-gpu KF_EMBED_BASE_URL=<url> KF_EMBED_MODEL=<sentence encoder> kf train gnn --preset paper --bench 2wiki --index <index dir> --out <dir>/2wiki',
    'kf train gnn pool <dir>/2wiki/2wiki-gnn.json <dir>/hotpotqa/hotpotqa-gnn.json <dir>/musique/musique-gnn.json --out <dir>',
  ],
  async run(args, ctx) {
    const arch = runArchitecture(str(args, 'preset') as GnnPresetName, {
      layers: optNum(args, 'layers'),
      hidden: optNum(args, 'hidden'),
      pretrainEpochs: optNum(args, 'pretrain-epochs'),
    });
    // Refused before any data is read or any model trained: the paper's Enc(q) needs the embeddings stage.
    const models = arch.config.queryEncoder === 'embeddings' ? trainingEmbedder(ctx.models({}, { cacheMode: 'off' })) : undefined;
    try {
      await trainAndReport(args, ctx, arch, models?.embedder);
    } finally {
      await models?.router.close();
    }
  },
};

const optNum = (args: ParsedArgs, name: string) => (str(args, name) === undefined ? undefined : Number(str(args, name)));
const log = (l: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${l}`);

/** The run's options: the corpus, the index's shipped retriever settings, the preset's architecture, the command's settings. */
async function runOptions(args: ParsedArgs, ctx: CommandContext, arch: RunArchitecture, cache?: EmbeddingCache, embedder?: Embedder) {
  const bench = str(args, 'bench') as keyof typeof LOADERS;
  const index = path.resolve(str(args, 'index')!);
  const dataDir = path.resolve(str(args, 'data') ?? '../shared/bench/text-multihop');
  const num = (name: string) => Number(str(args, name));
  const data = LOADERS[bench]({ questions: path.join(dataDir, `${bench}_questions.dev.json`), corpus: path.join(dataDir, `${bench}_corpus.json`) });
  // The environment's models build the graph when its settings call model stages (an endpoint's defaults).
  const models = ctx.models({}, { cacheMode: 'off' });
  const graph = await graphFor({ indexDir: index, settings: {}, log, models }, { buildWithModels: true }).finally(() => models.close().catch(() => undefined));
  // The settings the shipped `dualg` retriever runs on this index: its benchmark's k-fold choice, if any.
  const chosen = withChoice({}, benchChoice(index, {}));
  log(`retriever settings: ${choiceLabel(chosen.inForce)}`);
  const questions = data.questions.filter((q) => q.goldDocs.length).map((q) => ({ id: q.id, question: q.question, goldDocs: q.goldDocs }));
  // Enc(q) from the endpoint: its dimension, read from the first question's vector (cached, so never embedded twice).
  const inputDim = cache && questions.length ? (await cache.embed([questions[0].question]))[0].length : undefined;
  const o: CorpusRunOptions = {
    name: bench,
    graph,
    passages: new Map((data.passages ?? []).map((p) => [p.id, p.text])),
    questions,
    out: path.resolve(str(args, 'out') ?? path.join('results', 'dualg-gnn', bench)),
    checkpoints: path.resolve(str(args, 'checkpoints') ?? defaultCheckpointRoot()),
    seed: num('seed'),
    folds: num('folds'),
    kgExamples: num('kg'),
    syntheticExamples: num('synthetic'),
    queries: str(args, 'queries') as BaseQueries,
    generatedExamples: num('generated'),
    paraphrase: num('paraphrase'),
    pretrainEpochs: arch.pretrainEpochs,
    epochs: num('epochs'),
    foldEpochs: num('fold-epochs'),
    config: { ...arch.config, hybridUnit: num('hybrid-unit'), ...(inputDim ? { inputDim } : {}) },
    learningRate: num('lr'),
    replay: num('replay'),
    innerValidation: !bool(args, 'no-inner-validation'),
    settings: chosen.settings,
    ...(chosen.inForce ? { choice: chosen.inForce } : {}),
    ...(cache && embedder ? { embedQuery: async (t: string) => (await cache.embed([t]))[0], embeddedBy: embedder.id } : {}),
    log,
  };
  return { o, bench, index, chosen };
}

/** Train the base and fold models, compare every scorer at both levels, and write the per-corpus report. */
async function trainAndReport(args: ParsedArgs, ctx: CommandContext, arch: RunArchitecture, embedder?: Embedder) {
  const tf = await initTf();
  const warning = backendWarning(tf.backend, arch.preset);
  if (warning) log(warning);
  const cache = embedder ? embeddingCache(embedder) : undefined;
  const { o, bench, index, chosen } = await runOptions(args, ctx, arch, cache, embedder);
  const d = corpusData(o);
  const identity = gnnRunIdentity(arch, presetLabel(d.config), tf.backend, embedder);
  log(`GNN ${identity.label}: Enc(q) ${identity.queryEncoder}${embedder ? ` (${embedder.id})` : ''}, prior ${identity.prior}; backend ${tf.backend}`);
  log(`${bench}: graph ${d.gg.numNodes} entities, ${d.gg.src.length} edges, ${d.gg.numRelations} relations; backend ${tf.backend}`);
  log(`examples: kg ${d.kg.length}, base ${d.baseQueries} + ${d.synVal.length} val, dev ${d.dev.length} (unlinked ${d.unlinked.length})`);
  if (d.generated) log(`generated per shape ${JSON.stringify(d.generated.byKind)}, dropped by linking ${d.generated.dropped}`);
  const kb = await indexKnowledgeBase(index);
  const queries = [...d.synTrain, ...d.synVal, ...d.dev];
  if (cache) {
    const dim = await embedRunQueries(
      queries.map((e) => e.query),
      cache,
    );
    log(`Enc(q): ${cache.sent} distinct texts embedded by ${embedder!.id} (dimension ${dim}); no prior, so no hybrid evidence is attached`);
  } else {
    // The hybrid's ranking of every training and dev query, searched once, as the retriever searches at query time.
    const tHybrid = Date.now();
    const searched = await attachHybridEvidence(queries, d.gg.docIds, kbHybridSearch(kb));
    log(`hybrid evidence for ${searched} queries in ${((Date.now() - tHybrid) / 1000).toFixed(0)} s`);
  }
  const base = await trainBase(o, d);
  log(`base model trained in ${base.seconds.toFixed(0)} s`);
  const folds = await trainFolds(o, d);
  log(`${o.folds} fold models trained in ${folds.seconds.toFixed(0)} s (epochs chosen ${folds.chosenEpochs.join(', ')})`);
  const direct = await trainFolds(o, d, 'untrained');
  log(`${o.folds} direct fold models (from the untrained model) trained in ${direct.seconds.toFixed(0)} s (epochs chosen ${direct.chosenEpochs.join(', ')})`);
  const scorerLevel = compareOnDev(o, d, base.model, folds, direct);
  const retrieverLevel = await compareRetrievers(o, d, kb, base.model, folds, direct);
  const cmp = {
    ...scorerLevel,
    means: { ...scorerLevel.means, ...retrieverLevel.means },
    paired: { ...scorerLevel.paired, ...retrieverLevel.paired },
    perQuestion: { ...scorerLevel.perQuestion, ...retrieverLevel.perQuestion },
  };
  const heldOut = compareOnHeldOut(d, base.model);
  log(heldOutLine(heldOut));
  logComparison(cmp, log);
  const pc = cmp.paths;
  log(`paths (n=${pc.questionsWithGoldInTop8}): top path through a gold bridge ${pc.topPathThroughABridge}, through all gold ${pc.topPathThroughAllGold}`);
  const l = cmp.latencyMs;
  log(`latency GNN+paths p50 ${l.p50.toFixed(1)} ms p90 ${l.p90.toFixed(1)} ms (gnn p50 ${l.gnnP50.toFixed(1)}, paths p50 ${l.pathsP50.toFixed(1)})`);
  const report = {
    kind: 'dualg-gnn-training-report',
    bench,
    index: str(args, 'index')!,
    backend: tf.backend,
    gnn: identity,
    config: d.config,
    seed: o.seed,
    queries: o.queries,
    paraphrase: o.paraphrase,
    baseQueries: d.baseQueries,
    generated: d.generated,
    counts: { kg: d.kg.length, baseTrain: d.synTrain.length, baseVal: d.synVal.length, dev: d.dev.length, unlinked: d.unlinked },
    settings: choiceLabel(chosen.inForce),
    seconds: { base: base.seconds, folds: folds.seconds, directFolds: direct.seconds },
    chosenEpochs: { 'gnn-kfold': folds.chosenEpochs, 'gnn-kfold-direct': direct.chosenEpochs },
    baseStoppedBy: base.stoppedBy,
    note: reportNote(d.config.prior),
    baseHistory: base.history.map(({ batchLosses, ...h }) => ({ ...h, batchLossesEvery10: batchLosses.filter((_, i) => i % 10 === 0) })),
    heldOut,
    ...cmp,
  };
  const labels = { validation: `held-out base-model queries (${o.queries})`, monitor: 'dev questions (never trained on)' };
  const files = await writeTrainingReport(o.out, `${bench}-gnn`, report, base.history, log, labels);
  const md = path.join(o.out, `${bench}-gnn.md`);
  const rows = { bench, baseQueries: d.baseQueries, gnn: gnnRowLabel(identity), perQuestion: cmp.perQuestion };
  fs.writeFileSync(md, `${pooledMarkdown(pooledReport([rows]))}\n${heldOutLine(heldOut)}\n`);
  files.push(md);
  log(`wrote ${files.join(', ')}`);
}

/** What the report's rows are (the paper preset has no prior: its untrained model is not the heuristic, and it reads no hybrid rank). */
function reportNote(prior: boolean): string {
  return (
    'dev figures: gnn-kfold = each question scored by the fold model that did not train on it; gnn-base never saw a dev question; ' +
    (prior
      ? 'gnn-kfold-direct = as gnn-kfold, fold models fine-tuned from the untrained model on dev questions only (epoch 0 allowed); ' +
        'scorer level (gnn-*, heuristic, ppr): the graph scorer alone (no hybrid fill-up, no micro fusion; the GNN reads the hybrid rank); '
      : 'gnn-kfold-direct = as gnn-kfold, fold models fine-tuned from the untrained model (no prior: a random ranking, not the heuristic) on dev questions only; ' +
        'scorer level (gnn-*, heuristic, ppr): the graph scorer alone (no hybrid fill-up, no micro fusion; no prior, so the GNN reads neither the heuristic nor the hybrid rank); ') +
    "retriever level (dualg-*): the dualg retriever's final ranking with that scorer (hybrid fallback and fill-up, micro fusion)"
  );
}

/** Means and paired sign tests of every method, one line each. */
function logComparison(
  cmp: { means: Record<string, ReturnType<typeof meanMetrics>>; paired: Record<string, Record<string, PairedComparison>> },
  log: (l: string) => void,
) {
  const f = (x: number) => x.toFixed(3);
  for (const [m, v] of Object.entries(cmp.means)) {
    log(`${m}: R@2 ${f(v.r2)} R@5 ${f(v.r5)} all@2 ${f(v.allFound2)} all@5 ${f(v.allFound5)} all@8 ${f(v.allFound8)} (n=${v.n})`);
  }
  for (const [k, v] of Object.entries(cmp.paired)) {
    const p = (c: PairedComparison) => `${c.won}/${c.lost}/${c.tied} p=${c.signTestP.toPrecision(3)}`;
    log(`${k}: won/lost/tied R@2 ${p(v.r2)}; R@5 ${p(v.r5)}; all@2 ${p(v.allFound2)}; all@5 ${p(v.allFound5)}; all@8 ${p(v.allFound8)}`);
  }
}

/** The base model vs the heuristic on held-out base-model queries (its own distribution, never trained on). */
function heldOutLine(h: HeldOutComparison): string {
  const f = (x: number) => x.toFixed(3);
  const p = (c: HeldOutComparison['r2']) => `${c.won}/${c.lost}/${c.tied} p=${c.signTestP.toPrecision(3)}`;
  const [g, e] = [h.means['gnn-base'], h.means.heuristic];
  return `held-out base-model queries (n=${h.n}): gnn-base R@2 ${f(g.r2)} R@5 ${f(g.r5)}, heuristic R@2 ${f(e.r2)} R@5 ${f(e.r5)}; won/lost/tied R@2 ${p(h.r2)}, R@5 ${p(h.r5)}`;
}
