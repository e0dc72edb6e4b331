/**
 * Offline OCR for the vision and caption roles (their handlers: lib/knowforge/offline/vision.ts,
 * lib/corpus/offline/caption.ts): tesseract.js with the English
 * model shipped in @tesseract.js-data/eng (never downloads; see environment.md).
 * One worker, created on first use and shared; calls are serialised through it.
 * The text is the layout-aware reading of lib/corpus/ocr-layout.ts (the same
 * as at index time): rows top to bottom, words left to right, and a chart's
 * "<category>: <value>" pairs as extra lines.
 *
 * Cache: the model cache holds tesseract's word boxes (never derived text), by
 * image content hash under OCR_WORDS_KEY, so each image is recognised once
 * across runs and a layout change needs no OCR. Entries of the old format
 * (text lines, under the bare engine name) are not read: those images are
 * recognised again.
 */
import * as path from 'node:path';
import type { HandlerResources, OcrResultCache } from '../../model-api/handler';
import { imageSize, loadImage, type ImagePart } from '../../model-api/images';

import { recognizePage, type OcrEngine, type OcrPage } from '../ocr';
import { OCR_LAYOUT_VERSION, ocrLayout } from '../ocr-layout';
import type { ImageRef } from './tasks';

export interface OcrLine {
  text: string;
  /** 0-100 as tesseract reports it (a row: mean of its words; a pair: the lower of its two labels). */
  confidence: number;
  bbox?: { x0: number; y0: number; x1: number; y1: number };
  /** A visual row of words, or an explicit chart pair "<category>: <value>" (absent: given text). */
  kind?: 'row' | 'pair';
}

export interface OcrResult {
  /** Text of the lines (words with confidence >= the service's threshold), one per line. */
  text: string;
  lines: OcrLine[];
  width?: number;
  height?: number;
  engine: string;
  /** Set when OCR could not run on this image (unsupported format...). */
  error?: string;
}

export const OCR_ENGINE = 'tesseract.js@7/eng-4.0.0_best_int';
/** Model-cache key of the cached word boxes: bump when what is cached changes shape. */
export const OCR_WORDS_KEY = `${OCR_ENGINE}#words-v1`;

interface TesseractWorker extends OcrEngine {
  terminate(): Promise<unknown>;
}

interface CachedWords {
  page: OcrPage;
  width?: number;
  height?: number;
}

export class OcrService {
  private worker?: Promise<TesseractWorker>;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly memo = new Map<string, OcrResult>();
  /** Images actually run through tesseract (cache misses): lets tests see the cache work. */
  recognized = 0;

  constructor(private readonly opts: { cache?: OcrResultCache; minConfidence?: number } = {}) {}

  private getWorker(): Promise<TesseractWorker> {
    if (!this.worker) {
      this.worker = (async () => {
        // Loaded lazily: most runs never OCR, and the module is heavy.
        const { createWorker, OEM } = await import('tesseract.js');
        const langPath = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
        return (await createWorker('eng', OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' })) as unknown as TesseractWorker;
      })();
    }
    return this.worker;
  }

  /** OCR one image (path or data URL). Unreadable files throw (a KfError naming the file); unsupported formats give `error`. */
  async read(image: ImagePart): Promise<OcrResult> {
    const img = loadImage(image);
    const memo = this.memo.get(img.sha256);
    if (memo) return memo;
    const cached = this.opts.cache?.getOcr<CachedWords>(img.sha256, OCR_WORDS_KEY);
    if (cached?.page?.paragraphs) {
      const result = this.toResult(cached);
      this.memo.set(img.sha256, result);
      return result;
    }
    const run = this.queue.then(async (): Promise<CachedWords | OcrResult> => {
      const size = imageSize(img.bytes);
      try {
        const page = await recognizePage(await this.getWorker(), img.bytes);
        this.recognized++;
        return { page, width: size?.width, height: size?.height };
      } catch (e) {
        return { text: '', lines: [], width: size?.width, height: size?.height, engine: OCR_ENGINE, error: String((e as Error)?.message ?? e).slice(0, 200) };
      }
    });
    this.queue = run.catch(() => undefined);
    const got = await run;
    if (!('page' in got)) {
      this.memo.set(img.sha256, got);
      return got;
    }
    this.opts.cache?.putOcr(img.sha256, OCR_WORDS_KEY, got);
    const result = this.toResult(got);
    this.memo.set(img.sha256, result);
    return result;
  }

  /** The layout-aware text of cached word boxes (lib/corpus/ocr-layout.ts, shared with the index-time OCR). */
  private toResult(w: CachedWords): OcrResult {
    const layout = ocrLayout(w.page, this.opts.minConfidence ?? 55);
    const lines: OcrLine[] = layout.lines.map((l) => ({
      text: l.text,
      confidence: l.conf,
      bbox: { x0: l.bbox[0], y0: l.bbox[1], x1: l.bbox[2], y1: l.bbox[3] },
      kind: l.kind,
    }));
    return { text: layout.text, lines, width: w.width, height: w.height, engine: `${OCR_ENGINE}+${OCR_LAYOUT_VERSION}` };
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w.catch(() => undefined))?.terminate();
  }
}

/** The run's OCR service: one per model router (it owns the tesseract worker and closes it), shared by vision and caption. */
export function sharedOcr(resources: HandlerResources | undefined): OcrService | undefined {
  return resources?.get('ocr', (cache) => new OcrService({ cache }));
}

function toPart(ref: ImageRef): ImagePart {
  return { type: 'image', path: ref.path, dataUrl: ref.dataUrl, mime: ref.mime };
}

/** The text lines of a task's image: given OCR text when the index has it, else OCR (undefined: no image or no OCR). */
export async function ocrOf(task: { image?: ImageRef; ocrText?: string }, ocr: OcrService | undefined): Promise<OcrResult | undefined> {
  if (task.ocrText !== undefined) {
    // Text given by the index (fragment.ocrText) keeps the layout's "<category>: <value>" pair lines: tag them back.
    const lines: OcrLine[] = task.ocrText
      .split('\n')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((text) => ({ text, confidence: 100, ...(/^[^:]{1,40}:\s*[-+$€£]?\d[\d.,]*\s*%?$/.test(text) ? { kind: 'pair' as const } : {}) }));
    return { text: lines.map((l) => l.text).join('\n'), lines, engine: 'given' };
  }
  if (!task.image || !ocr) return undefined;
  return ocr.read(toPart(task.image));
}
