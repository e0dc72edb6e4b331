/**
 * The prior of the prior-conditioned GNN: what the untrained heuristic knows about
 * one query. The GNN then learns a correction on top of it instead of relearning,
 * from a few thousand queries, what the heuristic's rules already encode:
 *  - document prior: the heuristic's score scaled so its best document is 1, and
 *    the reciprocal of its rank;
 *  - edge features: for an edge read from a mention, the share of the question's
 *    relation words among the words just before the mention ([0]) and in its
 *    sentence ([1]) -- "mother" before a name says that name is the bridge;
 *  - hybrid evidence: the reciprocal rank of each document among the hybrid (BM25 +
 *    dense) retriever's first hits. Graph and text evidence are complementary and
 *    how far to trust each differs by corpus (no fixed fusion helped on all three
 *    text corpora, experiments/dualg/README.md), so the model learns the weight.
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

/**
 * `hybrid`: the hybrid retriever's evidence (hybridRecip). Without it (the default, empty) the model reads no text
 * evidence: training and search must give it alike (train/hybrid-evidence.ts, searcher.ts).
 */
export function queryPrior(
  view: GraphView,
  seeds: SeedInput[],
  relWords: RelationWord[],
  s: HeuristicSettings = HEURISTIC_DEFAULTS,
  hybrid: Map<number, number> = new Map(),
): PriorResult {
  const h = heuristicScores(view, seeds, relWords, s);
  const ranked = [...h.docScores.entries()].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const top = ranked[0]?.[1] ?? 1;
  const docPrior = new Map(ranked.map(([d, v]) => [d, v / top]));
  const docRecip = new Map(ranked.map(([d], i) => [d, 1 / (1 + i)]));
  return { prior: { docPrior, docRecip, docHybrid: hybrid, edgeFeatures: edgeFeatureReader(view, relWords) }, heuristicDocScores: h.docScores };
}

/**
 * Hybrid hits the prior reads: the pool the searcher already fetches for fragment choice and fill-up
 * (SEARCHER_DEFAULTS.pool), fixed a priori, so the feature costs no extra search.
 */
export const HYBRID_PRIOR_HITS = 20;

/** Document index -> 1 / (1 + rank) over the distinct documents of the first HYBRID_PRIOR_HITS hits, in hit order. */
export function hybridRecip(hits: readonly { docId: string }[], docIndex: ReadonlyMap<string, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const h of hits.slice(0, HYBRID_PRIOR_HITS)) {
    const d = docIndex.get(h.docId);
    if (d !== undefined && !out.has(d)) out.set(d, 1 / (1 + out.size));
  }
  return out;
}

const NONE: readonly [number, number] = [0, 0];

/**
 * Whether a space-separated word list holds `w` as one of its words: what a Set of its words answers, without
 * building one per edge (up to 10K active edges per query; splitting every context cost ~15 ms at 201K fragments).
 */
export function hasWord(words: string, w: string): boolean {
  if (!w || w.includes(' ')) return words.split(' ').includes(w);
  for (let i = words.indexOf(w); i >= 0; i = words.indexOf(w, i + 1)) {
    const end = i + w.length;
    if ((i === 0 || words[i - 1] === ' ') && (end === words.length || words[end] === ' ')) return true;
  }
  return false;
}

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
      out = [relationShare(relWords, (w) => !!t.lead && hasWord(t.lead, w)), relationShare(relWords, (w) => !!t.context && hasWord(t.context, w))];
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
