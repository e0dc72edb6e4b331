/**
 * Training queries are built exactly as the 'dualg' retriever builds them at
 * search time (lib/dualg/query/searcher.ts): entity linking on the graph view
 * (with the retriever's partial-name linking setting, so a benchmark's k-fold
 * choice -- bench-settings.ts, MuSiQue's partialLink 0.5 -- links training and
 * dev queries as the shipped retriever links them), seed weights normalised to
 * sum 1, the hashed query vector, and the heuristic prior under the retriever's
 * heuristic settings. A model trained on other seeds or another encoding would
 * see a different input at search time.
 */
import type { GnnQuery } from '../types';
import type { GraphView } from '../query/graph-view';
import { linkQuery, type LinkResult } from '../query/link';
import { hashedQueryVector } from '../query/scorer';
import { queryPrior, uncoveredText } from '../query/prior';
import { relationWords } from '../query/relation-words';
import type { SearcherSettings } from '../query/searcher';
import { searcherSettings } from '../query/searcher-settings';

/** The retriever settings a query's linking and heuristic prior depend on. */
export type QuerySettings = Pick<SearcherSettings, 'partialLink' | 'heuristic'>;

/**
 * The query settings of retriever settings (index.settings after the benchmark choice, bench-settings.ts withChoice),
 * read by the retriever's own reader (query/searcher-settings.ts): absent values the defaults, bad ones refused.
 */
export function querySettings(o: { settings?: Record<string, unknown> }): QuerySettings {
  const s = searcherSettings(o.settings ?? {}, 'heuristic');
  return { partialLink: s.partialLink, heuristic: s.heuristic };
}

/** What an index without a benchmark choice runs (SEARCHER_DEFAULTS). */
export const QUERY_DEFAULTS: QuerySettings = querySettings({});

/** Entity linking of a text as the retriever links it under these settings (the rule NER's names, trigram nearest names). */
export function linkFor(view: GraphView, text: string, s: QuerySettings = QUERY_DEFAULTS): LinkResult {
  return linkQuery(view, text, undefined, undefined, s.partialLink);
}

/** The GnnQuery of a text, or undefined when no entity of the graph is linked (the retriever falls back to hybrid then). */
export function gnnQueryFor(view: GraphView, text: string, s: QuerySettings = QUERY_DEFAULTS): GnnQuery | undefined {
  const link = linkFor(view, text, s);
  const seeds = link.seeds;
  if (!seeds.length) return undefined;
  const total = seeds.reduce((a, x) => a + x.weight, 0) || 1;
  return {
    seeds: Int32Array.from(seeds.map((x) => x.entity)),
    seedWeights: Float32Array.from(seeds.map((x) => x.weight / total)),
    queryVector: hashedQueryVector(text),
    queryText: text,
    relationText: uncoveredText(text, link.covered),
    prior: queryPrior(view, seeds, relationWords(text, link.covered), s.heuristic).prior,
  };
}
