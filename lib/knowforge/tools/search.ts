/**
 * search_knowledge: the one search every finding role (Locator, P0) and the
 * bridge judge's follow-ups go through. Each run is logged (pool + retrieval
 * metrics) and traced; the model sees a compact listing of the hits.
 */
import { KB_LIMITS } from '../../pipeline/knowledge-base';
import type { SearchHit } from '../../index/types';
import { fillPrompt } from '../../util/prompts';
import { clip, type KfToolContext, type SearchLogEntry } from './context';
import { renderRunnerListing } from './search-listing';

/** Characters of a hit's text shown to the finding role (it cannot read: enough to judge relevance). */
export const HIT_PREVIEW_CHARS = 300;

export async function runSearch(ctx: KfToolContext, query: string, topk: number, by: string): Promise<SearchLogEntry> {
  const k = Math.min(Math.max(1, Math.floor(topk || KB_LIMITS.searchTopk)), KB_LIMITS.maxTopk);
  const t0 = Date.now();
  const r = await ctx.kb.search(query, { k, mode: ctx.mode, docIds: ctx.docIds });
  const entry: SearchLogEntry = { query, by, topk: k, hits: r.hits, ms: Date.now() - t0 };
  ctx.searches.push(entry);
  ctx.trace?.({
    kind: 'search',
    by,
    query,
    mode: r.retriever,
    topk: k,
    hits: r.hits.map((h) => ({ id: h.fragmentId, doc: h.docId, kind: h.kind, page: h.page, score: round(h.score), via: h.via })),
    timings: r.timings,
    ...(r.notes?.length ? { notes: r.notes } : {}),
  });
  return entry;
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}

/** Whether a search's best hit is under the weak-relevance gate (no gate: never). */
function isWeak(ctx: KfToolContext, entry: SearchLogEntry): boolean {
  const top = entry.hits.reduce((m, h) => Math.max(m, h.score), 0);
  return ctx.weakRelevanceGate !== undefined && top < ctx.weakRelevanceGate;
}

/** The tool result of a search in the context's layout: the runner's material blocks (a string) or the harness's JSON listing. */
export function searchResult(ctx: KfToolContext, entry: SearchLogEntry): Record<string, unknown> | string {
  return ctx.blockFormat === 'runner' ? renderRunnerListing(ctx, entry, isWeak(ctx, entry)) : renderHits(ctx, entry);
}

/** The harness's listing of a search's hits (the weak-relevance note first when the best hit is below the gate). */
export function renderHits(ctx: KfToolContext, entry: SearchLogEntry): Record<string, unknown> {
  const weak = isWeak(ctx, entry);
  return {
    ...(weak ? { note: fillPrompt('weak-relevance', {}).trim() } : {}),
    query: entry.query,
    hits: entry.hits.map((h: SearchHit) => ({
      id: h.fragmentId,
      doc: ctx.kb.title(h.docId) ?? h.docId,
      kind: h.kind,
      ...(h.page !== undefined ? { page: h.page } : {}),
      ...(h.section.length ? { section: h.section.join(' > ') } : {}),
      ...(h.via === 'expansion' ? { via: `related to ${h.anchorId}` } : {}),
      text: clip(h.text, HIT_PREVIEW_CHARS),
      ...(h.media.some((m) => m.fragmentId !== h.fragmentId)
        ? { media: h.media.filter((m) => m.fragmentId !== h.fragmentId).map((m) => `${m.kind} ${m.fragmentId}${m.label ? ` (${m.label})` : ''}`) }
        : {}),
    })),
  };
}
