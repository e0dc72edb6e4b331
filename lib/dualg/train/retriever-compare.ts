/**
 * The GNN against the heuristic at the retriever level: the `dualg` retriever's final document ranking (linking,
 * micro matching, the graph scorer, micro fusion, the hybrid fallback and fill-up: what `kf eval retrieval
 * --retriever dualg` measures) with the heuristic scorer -- the shipped default -- and with the GNN scorer, on the
 * same dev questions and the same knowledge base. The fair comparison once the GNN reads the hybrid's ranking
 * (QueryPrior.docHybrid): the heuristic retriever sees that ranking too, through its fill-up.
 * gnn-kfold: each question is searched with the fold model that did not train on it; a question outside the folds
 * (no entity linked when the folds were drawn: it trained no model) with the base model, which saw no dev question.
 * gnn-kfold-direct (when given): the same with the fold models fine-tuned from the untrained model; a question outside
 * the folds with the untrained model (it ranks as the heuristic).
 * Every searcher runs the settings the shipped `dualg` retriever runs on this index (o.settings: the benchmark's
 * k-fold choice, bench-settings.ts; MuSiQue partialLink 0.5), and names the choice in its identity as the retriever does.
 */
import { comparePaired, type PairedComparison } from '../../eval/stats';
import type { KnowledgeBase } from '../../pipeline/knowledge-base';
import { searcherParts } from '../retriever';
import { searcherSettings } from '../query/searcher-settings';
import { DualgSearcher } from '../query/searcher';
import { GnnModel } from '../gnn/model';
import { makeGnnScorer } from '../gnn/scorer';
import type { CorpusData, CorpusRunOptions } from './corpus-run';
import { PAIRED_METRICS, type Folds } from './compare';
import { meanMetrics, questionMetrics, type QuestionMetrics } from './evaluate';

export const RETRIEVER_METHODS = ['dualg-gnn-kfold', 'dualg-gnn-kfold-direct', 'dualg-gnn-base', 'dualg-heuristic'] as const;
type RetrieverMethod = (typeof RETRIEVER_METHODS)[number];
type PairedMetric = (typeof PAIRED_METRICS)[number];

/** The cut-off the retriever is asked for: the largest of the report's (all@8). */
const K = 8;

export interface RetrieverComparison {
  /** Every method of RETRIEVER_METHODS, dualg-gnn-kfold-direct only when its fold models were given. */
  means: Record<string, ReturnType<typeof meanMetrics>>;
  paired: Record<string, Record<PairedMetric, PairedComparison>>;
  perQuestion: Record<string, QuestionMetrics[]>;
}

export async function compareRetrievers(
  o: CorpusRunOptions,
  d: CorpusData,
  kb: KnowledgeBase,
  base: GnnModel,
  folds: Folds,
  direct?: Folds,
): Promise<RetrieverComparison> {
  const parts = searcherParts(o.graph);
  const settings = (scorer: 'gnn' | 'heuristic') => searcherSettings(o.settings ?? {}, scorer);
  const gnnSearcher = (m: GnnModel) =>
    new DualgSearcher(
      { ...parts, gnn: { graph: d.gg, scorer: makeGnnScorer(m, { paths: 0 }), ...(o.embedQuery ? { embedQuery: o.embedQuery } : {}) } },
      settings('gnn'),
      'dualg-gnn',
      o.choice,
    );
  const heuristic = new DualgSearcher(parts, settings('heuristic'), 'dualg', o.choice);
  const untrained = direct ? new GnnModel(d.config) : undefined;
  const methods = RETRIEVER_METHODS.filter((m) => direct || m !== 'dualg-gnn-kfold-direct');
  const searcherOf = foldSearchers(folds, folds.models.map(gnnSearcher), gnnSearcher(base));
  const directOf = direct && untrained ? foldSearchers(direct, direct.models.map(gnnSearcher), gnnSearcher(untrained)) : undefined;
  const rows = Object.fromEntries(methods.map((m) => [m, [] as QuestionMetrics[]])) as Record<RetrieverMethod, QuestionMetrics[]>;
  for (const q of o.questions) {
    const searchers: Partial<Record<RetrieverMethod, DualgSearcher>> = {
      'dualg-gnn-kfold': searcherOf(q.id),
      'dualg-gnn-kfold-direct': directOf?.(q.id),
      'dualg-gnn-base': searcherOf(undefined),
      'dualg-heuristic': heuristic,
    };
    for (const m of methods) {
      const r = await searchers[m]!.search(q.question, { k: K }, kb);
      // Ranked as `kf kfold` and `kf eval retrieval` rank: the hits' documents in order.
      rows[m].push(
        questionMetrics(
          q.id,
          r.hits.map((h) => h.docId),
          [...new Set(q.goldDocs)],
        ),
      );
    }
  }
  untrained?.dispose();
  const toMap = (m: RetrieverMethod, f: PairedMetric) => new Map(rows[m].map((r) => [r.id, r[f]]));
  const pair = (a: RetrieverMethod) =>
    Object.fromEntries(PAIRED_METRICS.map((f) => [f, comparePaired(toMap(a, f), toMap('dualg-heuristic', f))])) as Record<PairedMetric, PairedComparison>;
  const paired = Object.fromEntries(methods.filter((m) => m !== 'dualg-heuristic').map((m) => [`${m} vs dualg-heuristic`, pair(m)]));
  return {
    means: Object.fromEntries(methods.map((m) => [m, meanMetrics(rows[m])])),
    paired,
    perQuestion: rows,
  };
}

/** The searcher of a question: its fold's model (that did not train on it), else the fallback (a question outside the folds, or id undefined). */
function foldSearchers(folds: Folds, byFold: DualgSearcher[], fallback: DualgSearcher): (id: string | undefined) => DualgSearcher {
  return (id) => {
    const fold = id === undefined ? undefined : folds.foldOf.get(id);
    return fold === undefined ? fallback : byFold[fold];
  };
}
