/**
 * OCR with tesseract.js (offline: the English LSTM model shipped in
 * @tesseract.js-data/eng, never a download): a small pool of workers (OCR is
 * ~5 s per dense page, the machine has 2 cores) and a cache on disk keyed by
 * the sha256 of the PNG, so rebuilding an index re-reads nothing.
 *
 * Recognition (recognizePage, shared with lib/corpus/offline/ocr-service.ts): one pass
 * in tesseract's default page mode, plus a sparse-text pass for numbers only
 * on images where a chart axis lacks value labels (about 6% of the images of
 * the MMLongBench-Doc dev PDFs; see ocr-layout.ts wantsSparseNumbers).
 *
 * The cache stores the raw recognition (word boxes with confidences), never
 * text: the text is derived on every read (confidence filter, layout-aware
 * reading order and chart pairs of ocr-layout.ts), so neither the filter nor
 * the layout can leave stale text in this cache, and changing them costs no
 * OCR. Whatever stores DERIVED text (an index's described fragments) must key
 * on OCR_LAYOUT_VERSION to be recomputed when the layout changes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError, errorMessage } from '../util/errors';
import { sha256 } from '../util/hash';
import { writeFileAtomic } from '../util/fsx';
import { isNumberWord, ocrLayout, unionBox, wantsSparseNumbers, type OcrLayoutLine } from './ocr-layout';

export interface OcrWord {
  text: string;
  conf: number;
  /** Pixel box in the image: x0, y0, x1, y1. */
  bbox: [number, number, number, number];
}
export interface OcrLine {
  words: OcrWord[];
  /** Line height in pixels (font size proxy). */
  height: number;
}
export interface OcrParagraph {
  lines: OcrLine[];
  bbox: [number, number, number, number];
}
export interface OcrPage {
  width: number;
  height: number;
  confidence: number;
  paragraphs: OcrParagraph[];
  /**
   * Numbers read by the second, sparse-text pass (chart value labels the
   * first pass missed; see recognizePage). null: the pass was not needed.
   * Absent: a record written before the pass existed; the pool completes it.
   */
  sparseNumbers?: OcrWord[] | null;
}

/** A paragraph after the confidence filter. */
export interface OcrTextBlock {
  text: string;
  /** Median line height in pixels. */
  lineHeight: number;
  lines: number;
  bbox: [number, number, number, number];
}

// Bump when the recognition settings change: cached results of other settings are not reused.
// (The page mode actually used is tesseract's API default, single block (PSM 6), not the CLI's
// PSM 3 the name says; renaming would re-OCR every cached page for nothing.)
// Records without `sparseNumbers` (written before that pass existed) are completed in place, not
// recognised again: the first pass of the record is still what this version computes.
const CACHE_VERSION = 'tess7-eng-best_int-lstm-psm3-v1';

/** The part of a tesseract.js worker used here (the pool's workers and lib/corpus/offline/ocr-service.ts's). */
export interface OcrEngine {
  recognize(image: Buffer, options?: Record<string, unknown>, output?: Record<string, unknown>): Promise<{ data: unknown }>;
  setParameters?(params: Record<string, unknown>): Promise<unknown>;
}

/**
 * Recognise an image: tesseract's default page mode (a single block: lines,
 * paragraphs, the word boxes the layout needs), then, only when the first pass
 * shows a chart axis with some value labels missing (wantsSparseNumbers), a
 * second pass in sparse-text mode (PSM 11) whose numbers fill the gaps.
 */
export async function recognizePage(worker: OcrEngine, png: Buffer): Promise<OcrPage> {
  // debug: tesseract's diagnostics ("Estimating resolution as ...") go to the result, not the console.
  const r = await worker.recognize(png, {}, { text: false, blocks: true, debug: true });
  return completeSparseNumbers(worker, png, ocrPageFromTesseract(r.data as TesseractBlocksData));
}

/** Decide (and run if needed) the sparse-numbers pass of a page that has not had it (a fresh or an older cached result). */
export async function completeSparseNumbers(worker: OcrEngine, png: Buffer, page: OcrPage): Promise<OcrPage> {
  if (page.sparseNumbers !== undefined) return page;
  if (!wantsSparseNumbers(page)) return { ...page, sparseNumbers: null };
  try {
    const r = await worker.recognize(png, { tessedit_pageseg_mode: '11' }, { text: false, blocks: true, debug: true });
    const words = ocrPageFromTesseract(r.data as TesseractBlocksData).paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words));
    return { ...page, sparseNumbers: words.filter((w) => isNumberWord(w.text)) };
  } catch {
    // tesseract.js restores per-call parameters only on success: put the worker back in its default mode.
    await worker.setParameters?.({ tessedit_pageseg_mode: '6' }).catch(() => undefined);
    return { ...page, sparseNumbers: null };
  }
}

function engLangPath(): string {
  let pkg: string;
  try {
    pkg = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  } catch (e) {
    throw new KfError(
      'ocr_unavailable',
      'the OCR model package @tesseract.js-data/eng is not installed',
      'run npm install (it ships the English traineddata; nothing is downloaded)',
      { cause: e },
    );
  }
  return path.join(pkg, '4.0.0_best_int');
}

type TesseractWorker = import('tesseract.js').Worker;

interface Job {
  png: Buffer;
  /** A cached first pass that only needs its sparse-numbers pass. */
  page?: OcrPage;
  resolve: (p: OcrPage) => void;
  reject: (e: unknown) => void;
}

export interface OcrStats {
  /** Images recognised (not from the cache). */
  recognised: number;
  cacheHits: number;
  /** Milliseconds spent inside tesseract (sum over workers). */
  ms: number;
  /** Images that needed the second, sparse-numbers pass (fresh, or completing an older cache record). */
  sparsePasses: number;
}

export class OcrPool {
  private workers: Promise<TesseractWorker>[] = [];
  private idle: TesseractWorker[] = [];
  private queue: Job[] = [];
  private closed = false;
  readonly stats: OcrStats = { recognised: 0, cacheHits: 0, ms: 0, sparsePasses: 0 };

  constructor(readonly opts: { size?: number; cacheDir?: string } = {}) {}

  get size(): number {
    return Math.max(1, this.opts.size ?? 2);
  }

  private cacheFile(key: string): string | undefined {
    return this.opts.cacheDir ? path.join(this.opts.cacheDir, key.slice(0, 2), `${key}.json`) : undefined;
  }

  /** The cache key of an image: content hash + recognition settings. */
  static key(png: Buffer): string {
    return sha256(Buffer.concat([Buffer.from(CACHE_VERSION), png]));
  }

  /** Cached result only (no OCR): used to report whether a rebuild would re-run OCR. */
  cached(png: Buffer): OcrPage | undefined {
    const f = this.cacheFile(OcrPool.key(png));
    if (!f || !fs.existsSync(f)) return undefined;
    try {
      return JSON.parse(fs.readFileSync(f, 'utf8')) as OcrPage;
    } catch {
      return undefined; // a torn cache file: recognise again
    }
  }

  async recognize(png: Buffer): Promise<OcrPage> {
    if (this.closed) throw new KfError('ocr_closed', 'the OCR pool was closed', 'create a new OcrPool');
    let hit = this.cached(png);
    if (hit) {
      this.stats.cacheHits++;
      if (hit.sparseNumbers !== undefined) return hit;
      // A record from before the sparse-numbers pass: decide it now (OCR only when a chart needs it).
      if (!wantsSparseNumbers(hit)) hit = { ...hit, sparseNumbers: null };
    }
    const page =
      hit?.sparseNumbers === null
        ? hit
        : await new Promise<OcrPage>((resolve, reject) => {
            this.queue.push({ png, page: hit, resolve, reject });
            this.pump();
          });
    const f = this.cacheFile(OcrPool.key(png));
    if (f) {
      try {
        writeFileAtomic(f, JSON.stringify(page));
      } catch {
        /* a cache write failure only costs time later */
      }
    }
    return page;
  }

  private async spawn(): Promise<TesseractWorker> {
    const Tesseract = require('tesseract.js') as typeof import('tesseract.js');
    try {
      return await Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, { langPath: engLangPath(), gzip: true, cacheMethod: 'none' });
    } catch (e) {
      throw new KfError(
        'ocr_unavailable',
        `cannot start an OCR worker: ${errorMessage(e)}`,
        'check that tesseract.js and @tesseract.js-data/eng are installed',
        { cause: e },
      );
    }
  }

  private pump(): void {
    while (this.queue.length && this.idle.length) {
      const w = this.idle.pop()!;
      const job = this.queue.shift()!;
      void this.run(w, job);
    }
    if (this.queue.length && this.workers.length < this.size) {
      const p = this.spawn();
      this.workers.push(p);
      p.then(
        (w) => {
          this.idle.push(w);
          this.pump();
        },
        (e) => {
          // Fail the waiting jobs (all would fail the same way) and forget the broken worker.
          this.workers.splice(this.workers.indexOf(p), 1);
          for (const j of this.queue.splice(0)) j.reject(e);
        },
      );
    }
  }

  private async run(w: TesseractWorker, job: Job): Promise<void> {
    const t0 = Date.now();
    try {
      const page = job.page
        ? await completeSparseNumbers(w as unknown as OcrEngine, job.png, job.page)
        : await recognizePage(w as unknown as OcrEngine, job.png);
      if (!job.page) this.stats.recognised++;
      if (page.sparseNumbers) this.stats.sparsePasses++;
      this.stats.ms += Date.now() - t0;
      job.resolve(page);
    } catch (e) {
      job.reject(new KfError('ocr_failed', `OCR failed: ${errorMessage(e)}`, 'the image may be corrupt; the page is reported as an error', { cause: e }));
    } finally {
      this.idle.push(w);
      this.pump();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const ws = await Promise.allSettled(this.workers);
    this.workers = [];
    this.idle = [];
    await Promise.allSettled(ws.map((r) => (r.status === 'fulfilled' ? r.value.terminate() : undefined)));
  }
}

interface RawBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
/** What tesseract.js recognize() returns with the `blocks` output (the part read here). */
export interface TesseractBlocksData {
  confidence: number;
  blocks: { paragraphs: { bbox: RawBox; lines: { bbox: RawBox; words: { text: string; confidence: number; bbox: RawBox }[] }[] }[] }[] | null;
  imageColor?: unknown;
}

const box = (b: RawBox): [number, number, number, number] => [b.x0, b.y0, b.x1, b.y1];

/** Tesseract's blocks output -> the word boxes kept (and cached) here; the OCR text is derived from them on read. */
export function ocrPageFromTesseract(d: TesseractBlocksData): OcrPage {
  const paragraphs: OcrParagraph[] = [];
  let w = 0;
  let h = 0;
  for (const b of d.blocks ?? []) {
    for (const p of b.paragraphs) {
      const lines = p.lines.map((l) => ({
        height: l.bbox.y1 - l.bbox.y0,
        words: l.words.map((x) => ({ text: x.text, conf: Math.round(x.confidence), bbox: box(x.bbox) })),
      }));
      paragraphs.push({ lines, bbox: box(p.bbox) });
      w = Math.max(w, p.bbox.x1);
      h = Math.max(h, p.bbox.y1);
    }
  }
  return { width: w, height: h, confidence: d.confidence, paragraphs };
}

/**
 * Confident text of an OCR result, per block, in the layout-aware reading
 * order of ocr-layout.ts: words under `minConf` are dropped, a paragraph keeps
 * only if at least half of its letters survive, and a block needs some word of
 * 2+ letters (photos produce short, low-confidence noise). Rows of one region
 * form a block, cut where the line height jumps (a slide title OCRed together
 * with the bullet text under it), so titles can be recognised as headings; the
 * rows of a paragraph are joined into one text, those of a table-like region
 * (paragraphs side by side) stay one per line.
 * Each chart found adds one block of "<category>: <value>" lines right after
 * the block holding its axis labels.
 */
export function ocrBlocks(page: OcrPage, minConf: number): OcrTextBlock[] {
  const out: OcrTextBlock[] = [];
  let group: OcrLayoutLine[] = [];
  let pairs: OcrLayoutLine[] = [];
  const heightOf = (g: OcrLayoutLine[]) => {
    const hs = g.map((l) => l.height).sort((a, b) => a - b);
    return hs[Math.floor(hs.length / 2)];
  };
  const flush = () => {
    if (group.length) {
      // Rows of one paragraph are wrapped lines (joined, hyphenation undone); rows of a table-like region are records.
      const text = group[0].table
        ? group.map((l) => l.text).join('\n')
        : group.map((l) => l.text).reduce((acc, l) => (!acc ? l : /[a-z]-$/.test(acc) && /^[a-z]/.test(l) ? acc.slice(0, -1) + l : `${acc} ${l}`), '');
      if (/[A-Za-z0-9]{2,}/.test(text)) out.push({ text, lineHeight: heightOf(group), lines: group.length, bbox: unionBox(group.map((l) => l.bbox)) });
    }
    if (pairs.length)
      out.push({ text: pairs.map((l) => l.text).join('\n'), lineHeight: heightOf(pairs), lines: pairs.length, bbox: unionBox(pairs.map((l) => l.bbox)) });
    group = [];
    pairs = [];
  };
  for (const l of ocrLayout(page, minConf).lines) {
    if (l.kind === 'pair') {
      pairs.push(l);
      continue;
    }
    const prev = group[group.length - 1];
    if (pairs.length || !prev || prev.region !== l.region || Math.max(l.height, prev.height) > 1.6 * Math.min(l.height, prev.height)) flush();
    group.push(l);
  }
  flush();
  return out;
}

/** The layout-aware OCR text of an image: rows top to bottom and each chart's "<category>: <value>" pairs, one per line. */
export function ocrText(page: OcrPage, minConf: number): string {
  return ocrLayout(page, minConf).text;
}
