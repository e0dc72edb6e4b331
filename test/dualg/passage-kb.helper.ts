/**
 * A knowledge base over a few passages (one text fragment each) whose hybrid search returns them in a fixed order,
 * whatever the query: enough for the DualG searcher's hybrid fallback, fill-up and the GNN's hybrid evidence.
 */
import type { Fragment } from '../../lib/corpus/types';
import type { SearchHit } from '../../lib/index/types';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';

export function passageKb(passages: readonly { id: string; text: string }[], order: readonly string[] = passages.map((p) => p.id)): KnowledgeBase {
  const frag = (docId: string): Fragment | undefined => {
    const p = passages.find((x) => x.id === docId);
    return p && { id: `${p.id}#0`, docId: p.id, kind: 'text', text: p.text, section: [], ordinal: 0, attached: [] };
  };
  const hits = order.map((id, i): SearchHit => ({
    fragmentId: `${id}#0`,
    docId: id,
    kind: 'text',
    rank: i + 1,
    score: 1 / (i + 1),
    scores: {},
    via: 'hybrid',
    text: frag(id)!.text,
    section: [],
    media: [],
  }));
  return {
    async search(query: string) {
      return { query, retriever: 'hybrid', hits, docs: hits.map((h) => ({ docId: h.docId, score: h.score })), timings: { totalMs: 0 } };
    },
    fragment: (id: string) => frag(id.split('#')[0]),
  } as unknown as KnowledgeBase;
}
