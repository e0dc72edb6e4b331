/**
 * The base model against the heuristic on its own held-out training queries (the validation share of the
 * generated or synthetic queries, never trained on): does the model learn the distribution it is trained on?
 * Set beside the dev comparison, it tells "learns nothing" apart from "learns what does not carry over".
 */
import { comparePaired, type PairedComparison } from '../../eval/stats';
import { heuristicScores } from '../query/heuristic-scorer';
import { relationWords } from '../query/relation-words';
import type { GnnModel } from '../gnn/model';
import { makeGnnScorer } from '../gnn/scorer';
import type { CorpusData } from './corpus-run';
import { linkFor } from './query-adapter';
import { meanMetrics, questionMetrics, rankDocs, type QuestionMetrics } from './evaluate';

export interface HeldOutComparison {
  n: number;
  means: { 'gnn-base': ReturnType<typeof meanMetrics>; heuristic: ReturnType<typeof meanMetrics> };
  r2: PairedComparison;
  r5: PairedComparison;
}

export function compareOnHeldOut(d: CorpusData, base: GnnModel): HeldOutComparison {
  const score = makeGnnScorer(base, { paths: 0 });
  const gnn: QuestionMetrics[] = [];
  const heur: QuestionMetrics[] = [];
  for (const ex of d.synVal) {
    const text = ex.query.queryText;
    if (!text || !ex.targetDocs?.length) continue;
    const gold = Array.from(ex.targetDocs);
    gnn.push(questionMetrics(ex.id, rankDocs(score(d.gg, ex.query).docScores), gold));
    const link = linkFor(d.view, text, d.query);
    heur.push(questionMetrics(ex.id, rankDocs(heuristicScores(d.view, link.seeds, relationWords(text, link.covered), d.query.heuristic).docScores), gold));
  }
  const map = (rows: QuestionMetrics[], f: 'r2' | 'r5') => new Map(rows.map((r) => [r.id, r[f]]));
  return {
    n: gnn.length,
    means: { 'gnn-base': meanMetrics(gnn), heuristic: meanMetrics(heur) },
    r2: comparePaired(map(gnn, 'r2'), map(heur, 'r2')),
    r5: comparePaired(map(gnn, 'r5'), map(heur, 'r5')),
  };
}
