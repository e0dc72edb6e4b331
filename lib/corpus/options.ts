/**
 * Options of every ingester (Markdown, HTML, text, PDF) and of the directory walk.
 * One shape for all formats so `ingestFile` can pass them through untouched.
 */
import type { OcrPool } from './ocr';

export interface IngestOptions {
  /**
   * The corpus root: document ids are paths relative to it, and media references
   * may not leave it. Default: the folder of the file being ingested.
   */
  corpusRoot?: string;
  /** Override the document id (default: path relative to corpusRoot, no extension, forward slashes). */
  docId?: string;
  /** The file's bytes, when the caller already has them (tests, archives); default: read `file`. */
  content?: Buffer | string;
  /**
   * Where media extracted from PDFs (embedded images, rendered regions and pages) is
   * written; MediaAsset.path is relative to it. Without it, PDF image fragments are
   * still produced (page, caption, OCR text) but carry no `media` (and a warning says so).
   */
  assetsDir?: string;
  /** OCR cache folder (key: sha256 of the rendered page/image PNG). Without it nothing is cached. */
  cacheDir?: string;
  /** 'auto' (default): OCR PDF pages without a text layer. 'off': mark them empty with a warning. */
  ocr?: 'auto' | 'off';
  /** A shared OCR worker pool (ingestDirectory passes one); default: a pool is created and closed per call. */
  ocrPool?: OcrPool;
  /** Words under this Tesseract confidence (0-100) are dropped (photos give garbage around 30). Default 60. */
  minOcrConfidence?: number;
  /** Prose fragment size in characters: packed up to `target`, never above `max` (default 1200 / 1500). */
  fragmentChars?: { target?: number; max?: number };
  /** Tables longer than this keep the first rows only (`truncated`, `rowCount`). Default 500. */
  maxTableRows?: number;
  /** Embedded PDF images smaller than this many pixels on either side are decorations and skipped. Default 48. */
  minImagePixels?: number;
  /** Scale at which PDF pages are rendered for OCR and region snapshots (1 = 72 dpi). Default 2. */
  renderScale?: number;
  /** Called after each PDF page (progress display). */
  onPage?: (info: { doc: string; page: number; pages: number; source: string }) => void;
}

export interface ResolvedSizes {
  target: number;
  max: number;
}

export function fragmentSizes(opts: IngestOptions): ResolvedSizes {
  const target = opts.fragmentChars?.target ?? 1200;
  const max = Math.max(target, opts.fragmentChars?.max ?? 1500);
  return { target, max };
}

export const DEFAULT_MAX_TABLE_ROWS = 500;
export const DEFAULT_MIN_OCR_CONFIDENCE = 60;
