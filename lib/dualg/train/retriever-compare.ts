/**
 * The GNN against the heuristic at the retriever level: the `dualg` retriever's final document ranking (linking,
 * micro matching, the graph scorer, micro fusion, the hybrid fallback and fill-up: what `kf eval retrieval
 * --retriever dualg` measures) with the heuristic scorer -- the shipped default -- and with the GNN scorer, on the
 * same dev questions and the same knowledge base. The fair comparison once the GNN reads the hybrid's ranking
 * (QueryPrior.docHybrid): the heuristic retriever sees that ranking too, through its fill-up.
 * gnn-kfold: each question is searched with the fold model that did not train on it; a question outside the folds
 * (no entity linked when the folds were drawn: it trained no model) with the base model, which saw no dev question.
 */
import { comparePaired, type PairedComparison } from '../../eval/stats';
import type { KnowledgeBase } from '../../pipeline/knowledge-base';
import { searcherParts, searcherSettings } from '../retriever';
import { DualgSearcher } from '../query/searcher';
import type { GnnModel } from '../gnn/model';
import { makeGnnScorer } from '../gnn/scorer';
import type { CorpusData, CorpusRunOptions } from './corpus-run';
import { PAIRED_METRICS } from './compare';
import { meanMetrics, questionMetrics, type QuestionMetrics } from './evaluate';

export const RETRIEVER_METHODS = ['dualg-gnn-kfold', 'dualg-gnn-base', 'dualg-heuristic'] as const;
type RetrieverMethod = (typeof RETRIEVER_METHODS)[number];
type PairedMetric = (typeof PAIRED_METRICS)[number];

/** The cut-off the retriever is asked for: the largest of the report's (all@8). */
const K = 8;

export interface RetrieverComparison {
  means: Record<RetrieverMethod, ReturnType<typeof meanMetrics>>;
  paired: Record<string, Record<PairedMetric, PairedComparison>>;
  perQuestion: Record<RetrieverMethod, QuestionMetrics[]>;
}

export async function compareRetrievers(
  o: CorpusRunOptions,
  d: CorpusData,
  kb: KnowledgeBase,
  base: GnnModel,
  folds: { models: GnnModel[]; foldOf: Map<string, number> },
): Promise<RetrieverComparison> {
  const parts = searcherParts(o.graph);
  const gnnSearcher = (m: GnnModel) =>
    new DualgSearcher({ ...parts, gnn: { graph: d.gg, scorer: makeGnnScorer(m, { paths: 0 }) } }, searcherSettings({}, 'gnn'), 'dualg-gnn');
  const heuristic = new DualgSearcher(parts, searcherSettings({}, 'heuristic'), 'dualg');
  const baseSearcher = gnnSearcher(base);
  const foldSearchers = folds.models.map(gnnSearcher);
  const rows = Object.fromEntries(RETRIEVER_METHODS.map((m) => [m, [] as QuestionMetrics[]])) as Record<RetrieverMethod, QuestionMetrics[]>;
  for (const q of o.questions) {
    const fold = folds.foldOf.get(q.id);
    const searchers: Record<RetrieverMethod, DualgSearcher> = {
      'dualg-gnn-kfold': fold === undefined ? baseSearcher : foldSearchers[fold],
      'dualg-gnn-base': baseSearcher,
      'dualg-heuristic': heuristic,
    };
    for (const m of RETRIEVER_METHODS) {
      const r = await searchers[m].search(q.question, { k: K }, kb);
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
  const toMap = (m: RetrieverMethod, f: PairedMetric) => new Map(rows[m].map((r) => [r.id, r[f]]));
  const pair = (a: RetrieverMethod) =>
    Object.fromEntries(PAIRED_METRICS.map((f) => [f, comparePaired(toMap(a, f), toMap('dualg-heuristic', f))])) as Record<PairedMetric, PairedComparison>;
  return {
    means: Object.fromEntries(RETRIEVER_METHODS.map((m) => [m, meanMetrics(rows[m])])) as RetrieverComparison['means'],
    paired: { 'dualg-gnn-kfold vs dualg-heuristic': pair('dualg-gnn-kfold'), 'dualg-gnn-base vs dualg-heuristic': pair('dualg-gnn-base') },
    perQuestion: rows,
  };
}
