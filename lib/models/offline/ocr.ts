/**
 * Offline OCR for the vision and caption roles: tesseract.js with the English
 * model shipped in @tesseract.js-data/eng (never downloads; see environment.md).
 * One worker, created on first use and shared; calls are serialised through it.
 * Results are cached by image content hash, in memory and (when the router has
 * a cache file) in the model cache, so each image is read once across runs.
 */
import * as path from 'node:path';
import type { ModelCache } from '../cache';
import { imageSize, loadImage, type ImagePart } from '../images';

export interface OcrLine {
  text: string;
  /** 0-100 as tesseract reports it. */
  confidence: number;
  bbox?: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrResult {
  /** Text of the lines kept (confidence >= the service's threshold), one per line. */
  text: string;
  lines: OcrLine[];
  width?: number;
  height?: number;
  engine: string;
  /** Set when OCR could not run on this image (unsupported format...). */
  error?: string;
}

export const OCR_ENGINE = 'tesseract.js@7/eng-4.0.0_best_int';

interface TesseractWorker {
  recognize(image: Buffer, opts?: unknown, output?: unknown): Promise<{ data: { text: string; blocks?: { paragraphs: { lines: { text: string; confidence: number; bbox: OcrLine['bbox'] }[] }[] }[] | null } }>;
  terminate(): Promise<unknown>;
}

export class OcrService {
  private worker?: Promise<TesseractWorker>;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly memo = new Map<string, OcrResult>();
  /** Images actually run through tesseract (cache misses): lets tests see the cache work. */
  recognized = 0;

  constructor(private readonly opts: { cache?: ModelCache; minConfidence?: number } = {}) {}

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
    const cached = this.memo.get(img.sha256) ?? this.opts.cache?.getOcr<OcrResult>(img.sha256, OCR_ENGINE);
    if (cached) {
      this.memo.set(img.sha256, cached);
      return cached;
    }
    const run = this.queue.then(async () => {
      const size = imageSize(img.bytes);
      try {
        const worker = await this.getWorker();
        const { data } = await worker.recognize(img.bytes, {}, { text: true, blocks: true });
        this.recognized++;
        const min = this.opts.minConfidence ?? 55;
        const lines: OcrLine[] = (data.blocks ?? [])
          .flatMap((b) => b.paragraphs.flatMap((p) => p.lines))
          .map((l) => ({ text: l.text.replace(/\s+/g, ' ').trim(), confidence: Math.round(l.confidence), bbox: l.bbox }))
          .filter((l) => l.text && l.confidence >= min);
        return { text: lines.map((l) => l.text).join('\n'), lines, width: size?.width, height: size?.height, engine: OCR_ENGINE } as OcrResult;
      } catch (e) {
        return { text: '', lines: [], width: size?.width, height: size?.height, engine: OCR_ENGINE, error: String((e as Error)?.message ?? e).slice(0, 200) } as OcrResult;
      }
    });
    this.queue = run.catch(() => undefined);
    const result = await run;
    this.memo.set(img.sha256, result);
    if (!result.error) this.opts.cache?.putOcr(img.sha256, OCR_ENGINE, result);
    return result;
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    if (w) await (await w.catch(() => undefined))?.terminate();
  }
}
