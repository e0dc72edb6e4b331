/**
 * Trained GNN (k-fold) vs the synthetic-only base model, the untrained GNN, the
 * untrained graph heuristic and PPR on the same graph and seeds, per question,
 * with paired sign tests; plus the path check (does the decoded top path pass
 * through the gold passages when the gold is retrieved?) and GNN + path latency.
 * gnn-kfold-direct (when its fold models are given): fold models fine-tuned from the untrained model on the other
 * folds' dev questions only (corpus-run.ts trainFolds 'untrained'). The heuristic row links and scores under the
 * settings the queries were built with (CorpusData.query: the retriever's, a benchmark's k-fold choice included).
 */
import { comparePaired, type PairedComparison } from '../../eval/stats';
import { heuristicScores } from '../query/heuristic-scorer';
import { pprScores } from '../query/ppr';
import { relationWords } from '../query/relation-words';
import { GnnModel } from '../gnn/model';
import { makeGnnScorer } from '../gnn/scorer';
import type { CorpusData, CorpusRunOptions } from './corpus-run';
import { linkFor } from './query-adapter';
import { meanMetrics, questionMetrics, rankDocs, zeroMetrics, type QuestionMetrics } from './evaluate';
import { percentile } from '../../util/percentile';

export const METHODS = ['gnn-kfold', 'gnn-kfold-direct', 'gnn-base', 'gnn-untrained', 'heuristic', 'ppr'] as const;
export const PAIRED_METRICS = ['r2', 'r5', 'allFound2', 'allFound5', 'allFound8'] as const;
type PairedMetric = (typeof PAIRED_METRICS)[number];
type Method = (typeof METHODS)[number];

/** Fold models and the fold of each question (compare on the model that did not train on it). */
export interface Folds {
  models: GnnModel[];
  foldOf: Map<string, number>;
}

export interface Comparison {
  /** Every method of METHODS, gnn-kfold-direct only when its fold models were given. */
  means: Record<string, ReturnType<typeof meanMetrics>>;
  paired: Record<string, Record<PairedMetric, PairedComparison>>;
  /** Over questions with a bridge passage whose gold is all in the top 8: the top path reaches all gold / a gold bridge. */
  paths: { questionsWithGoldInTop8: number; topPathThroughAllGold: number; topPathThroughABridge: number; share: number; shareAny: number };
  latencyMs: { p50: number; p90: number; gnnP50: number; pathsP50: number; n: number };
  perQuestion: Record<string, QuestionMetrics[]>;
}

export function compareOnDev(o: CorpusRunOptions, d: CorpusData, base: GnnModel, folds: Folds, direct?: Folds): Comparison {
  const untrained = new GnnModel(d.config);
  const methods = METHODS.filter((m) => direct || m !== 'gnn-kfold-direct');
  const rows = Object.fromEntries(methods.map((m) => [m, [] as QuestionMetrics[]])) as Record<Method, QuestionMetrics[]>;
  const lat: number[] = [],
    gnnMs: number[] = [],
    pathMs: number[] = [];
  let goldIn8 = 0,
    throughAll = 0,
    throughAny = 0;
  const byId = new Map(d.dev.map((e) => [e.id, e]));
  const scorers = {
    base: makeGnnScorer(base, { paths: 0 }),
    untrained: makeGnnScorer(untrained, { paths: 0 }),
    folds: folds.models.map((m) => makeGnnScorer(m, { paths: 5 })),
    direct: (direct?.models ?? []).map((m) => makeGnnScorer(m, { paths: 0 })),
  };
  for (const q of o.questions) {
    const ex = byId.get(q.id);
    if (!ex) {
      for (const m of methods) rows[m].push(zeroMetrics(q.id));
      continue;
    }
    const gold = Array.from(ex.targetDocs!);
    const k = scorers.folds[folds.foldOf.get(q.id)!](d.gg, ex.query);
    lat.push(k.timings.gnnMs + k.timings.pathsMs);
    gnnMs.push(k.timings.gnnMs);
    pathMs.push(k.timings.pathsMs);
    const rankedK = rankDocs(k.docScores);
    rows['gnn-kfold'].push(questionMetrics(q.id, rankedK, gold));
    if (direct) rows['gnn-kfold-direct'].push(questionMetrics(q.id, rankDocs(scorers.direct[direct.foldOf.get(q.id)!](d.gg, ex.query).docScores), gold));
    rows['gnn-base'].push(questionMetrics(q.id, rankDocs(scorers.base(d.gg, ex.query).docScores), gold));
    rows['gnn-untrained'].push(questionMetrics(q.id, rankDocs(scorers.untrained(d.gg, ex.query).docScores), gold));
    const link = linkFor(d.view, q.question, d.query);
    rows.heuristic.push(
      questionMetrics(q.id, rankDocs(heuristicScores(d.view, link.seeds, relationWords(q.question, link.covered), d.query.heuristic).docScores), gold),
    );
    rows.ppr.push(questionMetrics(q.id, rankDocs(pprScores(d.view, link.seeds).docScores), gold));
    // Path check on questions with a bridge (a gold passage no seed entity titles) whose gold is all in the top 8.
    const seedTitled = new Set(Array.from(ex.query.seeds, (s) => o.graph.docs.findIndex((x) => x.titleEntity === s)));
    const bridges = gold.filter((g) => !seedTitled.has(g));
    if (bridges.length && gold.every((g) => rankedK.slice(0, 8).includes(g))) {
      goldIn8++;
      const docs = new Set(k.paths[0]?.docs ?? []);
      if (gold.every((g) => docs.has(d.gg.docIds[g]))) throughAll++;
      if (bridges.some((g) => docs.has(d.gg.docIds[g]))) throughAny++;
    }
  }
  untrained.dispose();
  return {
    means: Object.fromEntries(methods.map((m) => [m, meanMetrics(rows[m])])),
    paired: pairedTests(rows, !!direct),
    paths: {
      questionsWithGoldInTop8: goldIn8,
      topPathThroughAllGold: throughAll,
      topPathThroughABridge: throughAny,
      share: goldIn8 ? throughAll / goldIn8 : NaN,
      shareAny: goldIn8 ? throughAny / goldIn8 : NaN,
    },
    latencyMs: {
      p50: percentile(lat, 0.5) ?? NaN,
      p90: percentile(lat, 0.9) ?? NaN,
      gnnP50: percentile(gnnMs, 0.5) ?? NaN,
      pathsP50: percentile(pathMs, 0.5) ?? NaN,
      n: lat.length,
    },
    perQuestion: rows,
  };
}

/** The sign tests of the per-corpus report: each trained model against the scorers it could replace. */
function pairedTests(rows: Record<Method, QuestionMetrics[]>, direct: boolean): Comparison['paired'] {
  const toMap = (m: Method, f: keyof Omit<QuestionMetrics, 'id'>) => new Map(rows[m].map((r) => [r.id, r[f]]));
  const paired: Comparison['paired'] = {};
  const pair = (a: Method, b: Method) =>
    Object.fromEntries(PAIRED_METRICS.map((f) => [f, comparePaired(toMap(a, f), toMap(b, f))])) as Record<PairedMetric, PairedComparison>;
  for (const other of ['gnn-base', 'gnn-untrained', 'heuristic', 'ppr'] as const) paired[`gnn-kfold vs ${other}`] = pair('gnn-kfold', other);
  // The base model never saw a dev question: its comparisons are the figures with dev kept out of training entirely.
  for (const other of ['gnn-untrained', 'heuristic', 'ppr'] as const) paired[`gnn-base vs ${other}`] = pair('gnn-base', other);
  if (direct) for (const other of ['heuristic', 'gnn-kfold'] as const) paired[`gnn-kfold-direct vs ${other}`] = pair('gnn-kfold-direct', other);
  return paired;
}
