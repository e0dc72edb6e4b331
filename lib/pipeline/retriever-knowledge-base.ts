/**
 * A knowledge-base view over a bare `Retriever` (a search function plus,
 * optionally, fragment lookup and document titles). The runner uses it when an
 * injected provider (tests, notebooks) gives a retriever instead of an opened
 * index, so pipelines always read `ctx.kb`. Listing tools (toc, tables, media)
 * see nothing here: they need the full index (lib/pipeline/engine-knowledge-base.ts).
 */
import type { Fragment, MediaAsset, TableData } from '../corpus/types';
import type { Retriever, RetrievalMode } from '../index/types';
import { KB_LIMITS, type KbDocument, type KbHeading, type KbMedia, type KbSearchOptions, type KbTable, type KnowledgeBase } from './knowledge-base';
import { docScoresFromHits, type RankedEvidence } from './ranked-evidence';

export interface RetrieverKnowledgeBaseOptions {
  id?: string;
  fragment?: (fragmentId: string) => Fragment | undefined;
  docTitle?: (docId: string) => string | undefined;
}

export function retrieverKnowledgeBase(retriever: Retriever, opts: RetrieverKnowledgeBaseOptions = {}): KnowledgeBase {
  return {
    id: opts.id ?? 'retriever',
    async search(query: string, o: KbSearchOptions = {}): Promise<RankedEvidence> {
      const k = Math.min(Math.max(1, Math.floor(o.k ?? KB_LIMITS.searchTopk)), KB_LIMITS.maxTopk);
      const r = await retriever.search(query, {
        topk: k,
        mode: o.mode as RetrievalMode | undefined,
        docIds: o.docIds,
        ...(o.queryVector ? { queryVector: o.queryVector } : {}),
      });
      const hits = o.types ? r.hits.filter((h) => o.types!.includes(h.kind)) : r.hits;
      const totalMs = (r.timings?.roundMs ?? 0) + (r.timings?.embedMs ?? 0);
      return { query, retriever: String(o.mode ?? 'default'), hits, docs: docScoresFromHits(hits), timings: { ...r.timings, totalMs } };
    },
    fragment: (id) => opts.fragment?.(id),
    neighbours: () => [],
    documents: (): KbDocument[] => [],
    title: (docId) => opts.docTitle?.(docId),
    toc: (): KbHeading[] => [],
    tables: (): KbTable[] => [],
    queryTable: () => [],
    table: (): TableData | undefined => undefined,
    media: (): KbMedia[] => [],
    findFigure: (): KbMedia[] => [],
    asset: (): MediaAsset | undefined => undefined,
  };
}
