/**
 * The hybrid retriever's evidence for training queries (QueryPrior.docHybrid): the prior-conditioned GNN reads the
 * hybrid (BM25 + dense) ranking of the passages beside the heuristic's, so every training query -- generated
 * questions, synthetic link queries, dev questions of the k-fold -- gets it from the very search the retriever
 * makes at query time (query/searcher.ts: `kb.search(query, { mode: 'hybrid', ... })`), once per query text:
 * the examples keep it, so no epoch searches again.
 */
import { openIndex } from '../../index/open';
import { engineKnowledgeBase } from '../../pipeline/index-view';
import type { KnowledgeBase } from '../../pipeline/knowledge-base';
import { HYBRID_PRIOR_HITS, hybridRecip } from '../query/prior';
import type { TrainExample } from './examples';

/** The hybrid's hits for a query text, best first (only their document ids are read). */
export type HybridSearch = (text: string) => Promise<readonly { docId: string }[]>;

/** The hybrid search of a knowledge base, as the retriever calls it (k = the pool the prior reads). */
export function kbHybridSearch(kb: KnowledgeBase): HybridSearch {
  return async (text) => (await kb.search(text, { mode: 'hybrid', k: HYBRID_PRIOR_HITS })).hits;
}

/** The knowledge base of a built index, opened as `kf kfold` and `kf eval retrieval` open it (no context expansion). */
export async function indexKnowledgeBase(indexDir: string): Promise<KnowledgeBase> {
  return engineKnowledgeBase(await openIndex(indexDir), { forced: { withContext: false } });
}

/**
 * Set docHybrid on every example that has a prior and a query text (KG-completion examples have neither: the
 * feature stays 0 for them). `cache` (text -> hits) is shared across calls, so a text is searched once.
 * Returns how many examples got hybrid evidence.
 */
export async function attachHybridEvidence(
  examples: readonly TrainExample[],
  docIds: readonly string[],
  search: HybridSearch,
  cache: Map<string, readonly { docId: string }[]> = new Map(),
): Promise<number> {
  const docIndex = new Map(docIds.map((id, i) => [id, i]));
  let n = 0;
  for (const ex of examples) {
    const text = ex.query.queryText;
    const prior = ex.query.prior;
    if (!text || !prior) continue;
    let hits = cache.get(text);
    if (!hits) cache.set(text, (hits = await search(text)));
    ex.query = { ...ex.query, prior: { ...prior, docHybrid: hybridRecip(hits, docIndex) } };
    n++;
  }
  return n;
}
