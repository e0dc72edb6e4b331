/**
 * OCR with tesseract.js (offline: the English LSTM model shipped in
 * @tesseract.js-data/eng, never a download): a small pool of workers (OCR is
 * ~5 s per dense page, the machine has 2 cores) and a cache on disk keyed by
 * the sha256 of the PNG, so rebuilding an index re-reads nothing.
 *
 * The cache stores the raw recognition (words with confidences), so the
 * confidence filter can change without re-running OCR.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError, errorMessage } from '../util/errors';
import { sha256 } from '../util/hash';
import { writeFileAtomic } from '../util/fsx';

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
const CACHE_VERSION = 'tess7-eng-best_int-lstm-psm3-v1';

function engLangPath(): string {
  let pkg: string;
  try {
    pkg = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  } catch (e) {
    throw new KfError('ocr_unavailable', 'the OCR model package @tesseract.js-data/eng is not installed', 'run npm install (it ships the English traineddata; nothing is downloaded)', { cause: e });
  }
  return path.join(pkg, '4.0.0_best_int');
}

type TesseractWorker = import('tesseract.js').Worker;

interface Job {
  png: Buffer;
  resolve: (p: OcrPage) => void;
  reject: (e: unknown) => void;
}

export interface OcrStats {
  /** Images recognised (not from the cache). */
  recognised: number;
  cacheHits: number;
  /** Milliseconds spent inside tesseract (sum over workers). */
  ms: number;
}

export class OcrPool {
  private workers: Promise<TesseractWorker>[] = [];
  private idle: TesseractWorker[] = [];
  private queue: Job[] = [];
  private closed = false;
  readonly stats: OcrStats = { recognised: 0, cacheHits: 0, ms: 0 };

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
    const hit = this.cached(png);
    if (hit) { this.stats.cacheHits++; return hit; }
    const page = await new Promise<OcrPage>((resolve, reject) => {
      this.queue.push({ png, resolve, reject });
      this.pump();
    });
    const f = this.cacheFile(OcrPool.key(png));
    if (f) {
      try { writeFileAtomic(f, JSON.stringify(page)); } catch { /* a cache write failure only costs time later */ }
    }
    return page;
  }

  private async spawn(): Promise<TesseractWorker> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Tesseract = require('tesseract.js') as typeof import('tesseract.js');
    try {
      return await Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, { langPath: engLangPath(), gzip: true, cacheMethod: 'none' });
    } catch (e) {
      throw new KfError('ocr_unavailable', `cannot start an OCR worker: ${errorMessage(e)}`, 'check that tesseract.js and @tesseract.js-data/eng are installed', { cause: e });
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
        (w) => { this.idle.push(w); this.pump(); },
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
      const r = await w.recognize(job.png, {}, { text: false, blocks: true });
      this.stats.recognised++;
      this.stats.ms += Date.now() - t0;
      job.resolve(toOcrPage(r.data as unknown as RawData));
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

interface RawBox { x0: number; y0: number; x1: number; y1: number }
interface RawData {
  confidence: number;
  blocks: { paragraphs: { bbox: RawBox; lines: { bbox: RawBox; words: { text: string; confidence: number; bbox: RawBox }[] }[] }[] }[] | null;
  imageColor?: unknown;
}

const box = (b: RawBox): [number, number, number, number] => [b.x0, b.y0, b.x1, b.y1];

function toOcrPage(d: RawData): OcrPage {
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
 * Confident text of an OCR result, per paragraph. Words under `minConf` are
 * dropped; a paragraph keeps only if at least half of its letters survive and
 * it has some word of 2+ letters (photos produce short, low-confidence noise).
 * A paragraph is cut where the line height jumps (a slide title OCRed together
 * with the bullet text under it), so titles can be recognised as headings.
 */
export function ocrBlocks(page: OcrPage, minConf: number): OcrTextBlock[] {
  const out: OcrTextBlock[] = [];
  for (const p of page.paragraphs) {
    const lines: { text: string; height: number; bbox: [number, number, number, number] }[] = [];
    let kept = 0;
    let all = 0;
    for (const l of p.lines) {
      const words = l.words.filter((w) => w.text.trim());
      all += words.reduce((k, w) => k + w.text.length, 0);
      const good = words.filter((w) => w.conf >= minConf);
      kept += good.reduce((k, w) => k + w.text.length, 0);
      const t = good.map((w) => w.text).join(' ').trim();
      if (t) {
        const bb: [number, number, number, number] = [Math.min(...good.map((w) => w.bbox[0])), Math.min(...good.map((w) => w.bbox[1])), Math.max(...good.map((w) => w.bbox[2])), Math.max(...good.map((w) => w.bbox[3]))];
        lines.push({ text: t, height: l.height, bbox: bb });
      }
    }
    if (!lines.length || kept < 0.5 * all) continue;
    const groups: (typeof lines)[] = [];
    for (const l of lines) {
      const g = groups[groups.length - 1];
      const prev = g?.[g.length - 1];
      if (g && prev && Math.max(l.height, prev.height) <= 1.6 * Math.min(l.height, prev.height)) g.push(l);
      else groups.push([l]);
    }
    for (const g of groups) {
      const text = g.map((l) => l.text).reduce((acc, l) => (!acc ? l : /[a-z]-$/.test(acc) && /^[a-z]/.test(l) ? acc.slice(0, -1) + l : `${acc} ${l}`), '');
      if (!/[A-Za-z0-9]{2,}/.test(text)) continue;
      const heights = g.map((l) => l.height).sort((a, b) => a - b);
      const bbox: [number, number, number, number] = [Math.min(...g.map((l) => l.bbox[0])), Math.min(...g.map((l) => l.bbox[1])), Math.max(...g.map((l) => l.bbox[2])), Math.max(...g.map((l) => l.bbox[3]))];
      out.push({ text, lineHeight: heights[Math.floor(heights.length / 2)], lines: g.length, bbox });
    }
  }
  return out;
}
