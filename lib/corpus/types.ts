/**
 * The data shapes of job 1 (knowledge construction): files become documents,
 * documents become typed fragments. Everything downstream (index, agents, pool,
 * graphs) speaks in these types.
 */

/** The paper's four fragment types. `example` = a worked-example block. */
export type FragmentKind = 'text' | 'image' | 'table' | 'example';

/** An original asset kept for reading (read_media sends it to a VLM or OCR). */
export interface MediaAsset {
  /** Path relative to the corpus root, or to the index's `assets/` folder when extracted from a PDF (origin pdf-*). */
  path: string;
  mime: string;
  width?: number;
  height?: number;
  origin: 'file' | 'pdf-embedded' | 'pdf-render' | 'generated';
}

export interface TableData {
  header: string[];
  rows: string[][];
  /** True when rows were cut to keep a gigantic table bounded (the full size is in rowCount). */
  truncated?: boolean;
  rowCount?: number;
}

export interface Fragment {
  /** Stable id: `${docId}#${ordinal}` (same input -> same id, across builds). */
  id: string;
  docId: string;
  kind: FragmentKind;
  /** The text that takes part in retrieval: prose for text/example; the description for image/table. */
  text: string;
  /** 1-based page number for paged sources (PDF); undefined otherwise. */
  page?: number;
  /** Heading path, outermost first. */
  section: string[];
  /** Position in the document's reading order (0-based). */
  ordinal: number;
  prev?: string;
  next?: string;
  /** Ids of image/table fragments attached to (adjacent to) this text fragment. */
  attached: string[];
  /** For image/table fragments: the text fragment they are attached to. */
  anchor?: string;
  media?: MediaAsset;
  table?: TableData;
  caption?: string;
  /** Figure/table label as printed ("Figure 3", "Table 2"), used by find_figure. */
  label?: string;
  /** Text read from the image by OCR (offline description input; also what read_media sees offline). */
  ocrText?: string;
  /** How `text` of an image/table was produced. */
  describedBy?: 'vlm' | 'offline' | 'source';
}

export type DocumentFormat = 'markdown' | 'html' | 'pdf' | 'text';

export interface DocumentRecord {
  /** Stable id: the path relative to the corpus root without extension, or a benchmark-given id (a title). */
  id: string;
  title: string;
  /** Path relative to the corpus root, or `bench:<name>` for documents built from benchmark JSON. */
  source: string;
  format: DocumentFormat;
  pages?: number;
  /** Content hash of the source bytes: duplicate detection and incremental builds. */
  sha256: string;
  meta: Record<string, unknown>;
}

/** What happened to one page of a paged document: every page is accounted for. */
export interface PageStatus {
  page: number;
  source: 'text' | 'ocr' | 'empty' | 'error';
  chars: number;
  error?: string;
}

export interface IngestIssue {
  doc: string;
  page?: number;
  severity: 'error' | 'warning';
  code: string;
  message: string;
}

/** Result of ingesting one file. `doc` is absent when the file could not be read at all (see issues). */
export interface IngestResult {
  doc?: DocumentRecord;
  fragments: Fragment[];
  pages?: PageStatus[];
  issues: IngestIssue[];
  /** Counters for the build ledger (Appendix D). */
  stats: { images: number; tables: number; ocrPages: number; chars: number };
}
