/**
 * Training queries are built exactly as the 'dualg' retriever builds them at
 * search time (lib/dualg/query/searcher.ts): entity linking on the graph view,
 * seed weights normalised to sum 1, and the hashed query vector. A model trained
 * on other seeds or another encoding would see a different input at search time.
 */
import type { GnnQuery } from '../types';
import type { GraphView } from '../query/graph-view';
import { linkQuery } from '../query/link';
import { hashedQueryVector } from '../query/scorer';
import { queryPrior, uncoveredText } from '../query/prior';
import { relationWords } from '../query/relation-words';

/** The GnnQuery of a text, or undefined when no entity of the graph is linked (the retriever falls back to hybrid then). */
export function gnnQueryFor(view: GraphView, text: string): GnnQuery | undefined {
  const link = linkQuery(view, text);
  const seeds = link.seeds;
  if (!seeds.length) return undefined;
  const total = seeds.reduce((a, x) => a + x.weight, 0) || 1;
  return {
    seeds: Int32Array.from(seeds.map((x) => x.entity)),
    seedWeights: Float32Array.from(seeds.map((x) => x.weight / total)),
    queryVector: hashedQueryVector(text),
    queryText: text,
    relationText: uncoveredText(text, link.covered),
    prior: queryPrior(view, seeds, relationWords(text, link.covered)).prior,
  };
}
