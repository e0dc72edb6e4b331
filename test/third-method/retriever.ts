/**
 * The third method's retriever: documents ranked by how many question words their title and first
 * passage share, each represented by its first fragment. Written against the retriever contract only.
 */
import type { SearchHit } from '../../lib/index/types';
import { docScoresFromHits } from '../../lib/pipeline/ranked-evidence';
import type { RetrieverEntry } from '../../lib/pipeline/retrievers';
import { sharedWords } from './notebook-kit';

export const THIRD_RETRIEVER: RetrieverEntry = {
  name: 'third-overlap',
  description: 'third method: documents by word overlap with their title and first fragment (a test of the plug-in path)',
  create: async () => async (query, opts, kb) => {
    const hits: SearchHit[] = [];
    const scored = kb
      .documents()
      .filter((d) => !opts.docIds || opts.docIds.includes(d.id))
      .map((d) => {
        const first = kb.toc(d.id)[0]?.fragmentId;
        const f = first === undefined ? undefined : kb.fragment(first);
        const score = sharedWords(query, `${d.title} ${f?.text ?? ''}`);
        return { f, score };
      })
      .sort((a, b) => b.score - a.score || (a.f?.id ?? '').localeCompare(b.f?.id ?? ''));
    for (const { f, score } of scored) {
      if (!f) continue;
      hits.push({
        fragmentId: f.id,
        docId: f.docId,
        kind: f.kind,
        rank: hits.length + 1,
        score,
        scores: { fused: score },
        via: 'bm25',
        text: f.text,
        section: f.section,
        media: [],
      });
      if (hits.length >= opts.k) break;
    }
    return { query, retriever: 'third-overlap', hits, docs: docScoresFromHits(hits), timings: { totalMs: 0 }, notes: ['third method retriever'] };
  },
};
