/**
 * The knowledge-base view (issue 9): the ONE interface through which every agent
 * tool (KnowForge Locator / Deep Reader) and every retriever (one-shot search,
 * DualG-MRAG) sees an indexed corpus for one question. The spec's limits are
 * applied here, in one place (`KB_LIMITS`), not in each tool.
 *
 * Implementations: `lib/pipeline/engine-knowledge-base.ts` (over the SearchEngine, the
 * default), test toys, and graph retrievers registered as search modes.
 */
import type { Fragment, FragmentKind, MediaAsset, TableData } from '../corpus/types';
import type { RankedEvidence } from './ranked-evidence';

/** The spec's limits (spec-knowforge.md, jobs 2 and 5). */
export const KB_LIMITS = {
  /** search_knowledge default top-k. */
  searchTopk: 8,
  /** Largest top-k a tool may ask for. */
  maxTopk: 50,
  /** list_books: at most 80 documents. */
  listBooks: 80,
  /** book_toc: at most 200 headings. */
  tocHeadings: 200,
  /** query_table: at most 20 rows per table. */
  tableRows: 20,
  /** fragment_context: the hit up to 1,500 characters, each neighbour up to 500. */
  hitChars: 1500,
  neighbourChars: 500,
  /** list_media / find_figure: at most this many entries. */
  mediaList: 50,
} as const;

/** A retrieval mode: the engine's four, or the name of a registered retriever ('dualg', 'ppr', ...). */
export type KbMode = 'bm25' | 'dense' | 'hybrid' | 'hybrid+graph' | (string & {});

export interface KbSearchOptions {
  mode?: KbMode;
  /** Default KB_LIMITS.searchTopk; clamped to KB_LIMITS.maxTopk. */
  k?: number;
  /** Only these fragment kinds. */
  types?: FragmentKind[];
  /** Restrict to these documents (single-document benchmarks pass the question's document). */
  docIds?: string[];
  /** Pre-computed query embedding (benchmarks batch them). */
  queryVector?: Float32Array;
  /**
   * What a method hands its own retrievers beyond these options, under its own keys (DualG-MRAG: the
   * query pattern its model stage parsed). The contract does not read it: a retriever reads the keys
   * of its method with its method's type (lib/<method>/), every other retriever ignores it.
   */
  extra?: Readonly<Record<string, unknown>>;
}

export interface KbDocument {
  id: string;
  title: string;
  pages?: number;
  fragments: number;
}

export interface KbHeading {
  /** Section path, outermost first. */
  path: string[];
  page?: number;
  /** First fragment under this heading. */
  fragmentId: string;
}

export interface KbTable {
  fragmentId: string;
  docId: string;
  page?: number;
  label?: string;
  caption?: string;
  header: string[];
  rowCount: number;
}

export interface KbMedia {
  fragmentId: string;
  docId: string;
  kind: FragmentKind;
  page?: number;
  label?: string;
  caption?: string;
  section: string[];
  asset?: MediaAsset;
}

export interface KbMediaFilter {
  doc?: string;
  heading?: string;
  kind?: FragmentKind;
  page?: number;
}

/** What a knowledge base says about itself (the hosted API's `overview`: the runner's persona reads it). */
export interface KbOverview {
  name: string;
  /** One line on what it holds. */
  goal: string;
  /** Its parts: a single document's top-level headings, else the document titles (at most 20). */
  modules: string[];
  documents: number;
  fragments: number;
}

/** A figure or table with what surrounds it on its page (the hosted API's `media-context`). */
export interface KbMediaContext {
  fragmentId: string;
  docId: string;
  kind: FragmentKind;
  page?: number;
  /** Its whole stored description. */
  desc: string;
  label?: string;
  caption?: string;
  /** Caption-like lines: its stored caption, then lines of the page that start with a figure or table label. */
  captions: string[];
  /** The body text printed around it on its page (at most KB_LIMITS.hitChars). */
  pageText: string;
  /** The other figures and tables of its page. */
  siblings: { fragmentId: string; kind: FragmentKind; page?: number; desc: string }[];
}

export interface KnowledgeBase {
  /** Identifies what was indexed (the artifact key of the index, or a test name). */
  readonly id: string;
  search(query: string, opts?: KbSearchOptions): Promise<RankedEvidence>;
  fragment(id: string): Fragment | undefined;
  /** Fragments within `window` positions before and after `id` in its document (not `id` itself). */
  neighbours(id: string, window?: number): Fragment[];
  /** Documents, optionally filtered by a keyword in the title (at most KB_LIMITS.listBooks). */
  documents(keyword?: string): KbDocument[];
  title(docId: string): string | undefined;
  /** Headings of a document (at most KB_LIMITS.tocHeadings). */
  toc(docId: string): KbHeading[];
  /** Tables, of one document or of all. */
  tables(docId?: string): KbTable[];
  /** Table rows whose text contains `item` (case-insensitive), at most KB_LIMITS.tableRows per table. */
  queryTable(item: string, tableId?: string): { table: KbTable; header: string[]; rows: string[][] }[];
  /** A whole table. */
  table(tableId: string): TableData | undefined;
  /** Image / table fragments matching the filter (at most KB_LIMITS.mediaList). */
  media(filter?: KbMediaFilter): KbMedia[];
  /** Figures / tables whose printed label matches ("Figure 3", "fig. 3", "Table 2"). */
  findFigure(label: string, docId?: string): KbMedia[];
  /** The stored asset of a media fragment (image file, rendered table). */
  asset(fragmentId: string): MediaAsset | undefined;
  /** What the knowledge base holds, in one paragraph's worth of fields (views without one: undefined). */
  overview?(): KbOverview;
  /** A figure or table in its page's context; undefined for an unknown id or a text fragment. */
  mediaContext?(fragmentId: string): KbMediaContext | undefined;
}
