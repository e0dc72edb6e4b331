/**
 * Trained GNN (k-fold) vs the synthetic-only base model, the untrained GNN, the
 * untrained graph heuristic and PPR on the same graph and seeds, per question,
 * with paired sign tests; plus the path check (does the decoded top path pass
 * through the gold passages when the gold is retrieved?) and GNN + path latency.
 */
import { comparePaired, type PairedComparison } from '../../eval/stats';
import { heuristicScores, HEURISTIC_DEFAULTS } from '../query/heuristic-scorer';
import { linkQuery } from '../query/link';
import { pprScores } from '../query/ppr';
import { relationWords } from '../query/relation-words';
import { GnnModel } from '../gnn/model';
import { makeGnnScorer } from '../gnn/scorer';
import type { CorpusData, CorpusRunOptions } from './corpus-run';
import { meanMetrics, questionMetrics, rankDocs, zeroMetrics, type QuestionMetrics } from './evaluate';
import { percentile } from '../../util/percentile';

export const METHODS = ['gnn-kfold', 'gnn-base', 'gnn-untrained', 'heuristic', 'ppr'] as const;
export const PAIRED_METRICS = ['r2', 'r5', 'allFound2', 'allFound5', 'allFound8'] as const;
type PairedMetric = (typeof PAIRED_METRICS)[number];
type Method = (typeof METHODS)[number];

export interface Comparison {
  means: Record<Method, ReturnType<typeof meanMetrics>>;
  paired: Record<string, Record<PairedMetric, PairedComparison>>;
  /** Over questions with a bridge passage whose gold is all in the top 8: the top path reaches all gold / a gold bridge. */
  paths: { questionsWithGoldInTop8: number; topPathThroughAllGold: number; topPathThroughABridge: number; share: number; shareAny: number };
  latencyMs: { p50: number; p90: number; gnnP50: number; pathsP50: number; n: number };
  perQuestion: Record<Method, QuestionMetrics[]>;
}

export function compareOnDev(o: CorpusRunOptions, d: CorpusData, base: GnnModel, folds: { models: GnnModel[]; foldOf: Map<string, number> }): Comparison {
  const untrained = new GnnModel(d.config);
  const rows = Object.fromEntries(METHODS.map((m) => [m, [] as QuestionMetrics[]])) as Record<Method, QuestionMetrics[]>;
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
  };
  for (const q of o.questions) {
    const ex = byId.get(q.id);
    if (!ex) {
      for (const m of METHODS) rows[m].push(zeroMetrics(q.id));
      continue;
    }
    const gold = Array.from(ex.targetDocs!);
    const k = scorers.folds[folds.foldOf.get(q.id)!](d.gg, ex.query);
    lat.push(k.timings.gnnMs + k.timings.pathsMs);
    gnnMs.push(k.timings.gnnMs);
    pathMs.push(k.timings.pathsMs);
    const rankedK = rankDocs(k.docScores);
    rows['gnn-kfold'].push(questionMetrics(q.id, rankedK, gold));
    rows['gnn-base'].push(questionMetrics(q.id, rankDocs(scorers.base(d.gg, ex.query).docScores), gold));
    rows['gnn-untrained'].push(questionMetrics(q.id, rankDocs(scorers.untrained(d.gg, ex.query).docScores), gold));
    const link = linkQuery(d.view, q.question);
    rows.heuristic.push(
      questionMetrics(q.id, rankDocs(heuristicScores(d.view, link.seeds, relationWords(q.question, link.covered), HEURISTIC_DEFAULTS).docScores), gold),
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
  const toMap = (m: Method, f: keyof Omit<QuestionMetrics, 'id'>) => new Map(rows[m].map((r) => [r.id, r[f]]));
  const paired: Comparison['paired'] = {};
  const pair = (a: Method, b: Method) =>
    Object.fromEntries(PAIRED_METRICS.map((f) => [f, comparePaired(toMap(a, f), toMap(b, f))])) as Record<PairedMetric, PairedComparison>;
  for (const other of METHODS.slice(1)) paired[`gnn-kfold vs ${other}`] = pair('gnn-kfold', other);
  // The base model never saw a dev question: its comparisons are the figures with dev kept out of training entirely.
  for (const other of ['gnn-untrained', 'heuristic', 'ppr'] as const) paired[`gnn-base vs ${other}`] = pair('gnn-base', other);
  return {
    means: Object.fromEntries(METHODS.map((m) => [m, meanMetrics(rows[m])])) as Comparison['means'],
    paired,
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
