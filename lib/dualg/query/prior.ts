/**
 * The prior of the prior-conditioned GNN: what the untrained heuristic knows about
 * one query. The GNN then learns a correction on top of it instead of relearning,
 * from a few thousand queries, what the heuristic's rules already encode:
 *  - document prior: the heuristic's score scaled so its best document is 1, and
 *    the reciprocal of its rank;
 *  - edge features: for an edge read from a mention, the share of the question's
 *    relation words among the words just before the mention ([0]) and in its
 *    sentence ([1]) -- "mother" before a name says that name is the bridge.
 * GnnGraph edge e comes from triple e mod m (lib/dualg/graph/to-gnn.ts).
 */
import type { QueryPrior } from '../types';
import type { GraphView } from './graph-view';
import { heuristicScores, HEURISTIC_DEFAULTS, type HeuristicSettings, type SeedInput } from './heuristic-scorer';
import { relationShare, type RelationWord } from './relation-words';
import { wordTokens } from '../graph/names';

export interface PriorResult {
  prior: QueryPrior;
  /** The heuristic's own document scores (the 'untrained' ranking the prior came from). */
  heuristicDocScores: Map<number, number>;
}

export function queryPrior(view: GraphView, seeds: SeedInput[], relWords: RelationWord[], s: HeuristicSettings = HEURISTIC_DEFAULTS): PriorResult {
  const h = heuristicScores(view, seeds, relWords, s);
  const ranked = [...h.docScores.entries()].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const top = ranked[0]?.[1] ?? 1;
  const docPrior = new Map(ranked.map(([d, v]) => [d, v / top]));
  const docRecip = new Map(ranked.map(([d], i) => [d, 1 / (1 + i)]));
  return { prior: { docPrior, docRecip, edgeFeatures: edgeFeatureReader(view, relWords) }, heuristicDocScores: h.docScores };
}

const NONE: readonly [number, number] = [0, 0];

function edgeFeatureReader(view: GraphView, relWords: RelationWord[]): (edge: number) => readonly [number, number] {
  const triples = view.g.triples;
  const cache = new Map<number, readonly [number, number]>();
  return (edge) => {
    if (!relWords.length || !triples.length) return NONE;
    const ti = edge % triples.length;
    const hit = cache.get(ti);
    if (hit) return hit;
    const t = triples[ti];
    let out = NONE;
    if (t.lead || t.context) {
      const near = new Set(t.lead ? t.lead.split(' ') : []);
      const far = new Set(t.context ? t.context.split(' ') : []);
      out = [relationShare(relWords, (w) => near.has(w)), relationShare(relWords, (w) => far.has(w))];
    }
    cache.set(ti, out);
    return out;
  };
}

/** The question's words outside the linked names (`covered` word positions), in order: its relation text. */
export function uncoveredText(question: string, covered: Set<number>): string {
  return wordTokens(question)
    .filter((_, i) => !covered.has(i))
    .map((t) => t.norm)
    .join(' ');
}
