/**
 * What the KnowForge role tools work on for ONE question: the knowledge-base
 * view, the search mode of the configuration, and the logs every tool writes
 * (every search result goes to the pool and to the retrieval metrics; every
 * read result is appended to the pool as a reading note).
 */
import type { SearchHit } from '../../index/types';
import type { KbMode, KnowledgeBase } from '../../pipeline/knowledge-base';
import type { TraceEvent } from '../../pipeline/types';
import type { ReadMediaFn } from '../../answer/vision';
import type { BlockFormat } from '../../answer/block-format';

/** One search as the pool and the retrieval metrics see it. */
export interface SearchLogEntry {
  query: string;
  /** Who ran it: 'locator' | 'bridge' | 'p0' | 'oneshot'. */
  by: string;
  topk: number;
  hits: SearchHit[];
  ms: number;
}

/** One reading result (fragment_context, read_media, media_context), appended to the pool as a note. */
export interface ReadLogEntry {
  tool: string;
  fragmentIds: string[];
  /** What the reader was told, in one short paragraph (the note the synthesizer sees). */
  note: string;
}

/** Answers one question about one media asset (the vision stage); see lib/answer/vision.ts. */
export type { ReadMediaFn };

export interface KfToolContext {
  kb: KnowledgeBase;
  /** Retrieval mode of search_knowledge (the configuration's index mode or retriever name). */
  mode: KbMode;
  /** Restriction to the question's document (single-document benchmarks). */
  docIds?: string[];
  /** Who the searches of this loop are attributed to (locator, p0). */
  searchBy: string;
  searches: SearchLogEntry[];
  reads: ReadLogEntry[];
  /** The vision stage (read_media); absent = read_media answers from the stored description only. */
  readMedia?: ReadMediaFn;
  /** Ids one read_media call looks at (default MAX_MEDIA_PER_READ); the rest come back as skipped. */
  readMediaMax?: number;
  /** A search whose best hit scores below this is listed with the weak-relevance note first (absent: no note). */
  weakRelevanceGate?: number;
  /** How search results are shown: the harness's JSON listing, or the runner's material blocks (setting blockFormat). */
  blockFormat?: BlockFormat;
  /** Runner layout: the number each fragment got when a search first listed it (a later listing skips it, as the runner does). */
  listed: Map<string, number>;
  /** Runner layout: the pool's number of each fragment, for a reader that lists no search of its own (read_media names assets by it). */
  poolNumbers?: ReadonlyMap<string, number>;
  trace?(event: TraceEvent): void;
}

export function newToolContext(
  kb: KnowledgeBase,
  opts: {
    mode: KbMode;
    docIds?: string[];
    searchBy: string;
    readMedia?: ReadMediaFn;
    readMediaMax?: number;
    weakRelevanceGate?: number;
    blockFormat?: BlockFormat;
    poolNumbers?: ReadonlyMap<string, number>;
    trace?: (e: TraceEvent) => void;
  },
): KfToolContext {
  return {
    kb,
    mode: opts.mode,
    docIds: opts.docIds,
    searchBy: opts.searchBy,
    searches: [],
    reads: [],
    readMedia: opts.readMedia,
    readMediaMax: opts.readMediaMax,
    weakRelevanceGate: opts.weakRelevanceGate,
    blockFormat: opts.blockFormat,
    listed: new Map(),
    poolNumbers: opts.poolNumbers,
    trace: opts.trace,
  };
}

/** Collapse whitespace and cut to n characters with an ellipsis. */
export function clip(s: string | undefined, n: number): string {
  const t = (s ?? '').replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, Math.max(0, n - 1))}…`;
}
