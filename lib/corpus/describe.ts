/**
 * Descriptions of image and table fragments, so that media takes part in text
 * retrieval (KnowForge job 1). With a vision model (any ChatModel, injected) the
 * image is sent as a ContentPart with its caption and page context; without one
 * (offline) the description is assembled from what the document itself says:
 * caption, alt text, the text read from the image by OCR, and a table's header
 * and first rows. The original asset stays in `media` either way, and
 * `describedBy` records which path produced `text`.
 */
import { loadPrompt } from '../util/prompts';
import type { CaptionTask } from './offline/tasks';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment } from './types';
import type { ChatModel, ContentPart, Stage } from '../model-api/types';
import { OcrPool, ocrBlocks } from './ocr';
import { DEFAULT_MIN_OCR_CONFIDENCE } from './options';
import { tableSummary, tableToText } from './table';
import { errorMessage } from '../util/errors';
import { runPool } from '../util/worker-pool';
import { isSetupFailure } from '../model-api/setup-error';

export interface DescribeOptions {
  /** A vision-capable model; absent -> offline descriptions. */
  model?: ChatModel;
  /** Stage the model call is routed/ledgered under (default 'caption'; 'vision' also fits). */
  stage?: Stage;
  /** Folder that PDF-extracted media paths (origin pdf-*) are relative to. */
  assetsDir?: string;
  /** Folder that document media paths (origin file) are relative to. */
  corpusRoot?: string;
  /** OCR for images without ocrText (offline path). false: never OCR. Default: a pool is created when needed. */
  ocr?: OcrPool | false;
  /** OCR cache folder when this function creates the pool. */
  cacheDir?: string;
  minOcrConfidence?: number;
  /** Model calls in flight at once (default 4). */
  concurrency?: number;
  /** Which kinds to describe (default both). */
  kinds?: ('image' | 'table')[];
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

export interface DescribeReport {
  /** Copies of the input fragments, image/table ones with new `text` and `describedBy`. */
  fragments: Fragment[];
  described: { vlm: number; offline: number };
  /** Model calls that failed (those fragments fell back to the offline description). */
  failures: { id: string; error: string }[];
}

/** Characters of an image description / OCR text kept in `text` (the pool's image cap is 3,000). */
const MAX_OCR_CHARS = 1500;

/** The description prompt (prompts/describe-media.txt). */
function systemPrompt(): string {
  return loadPrompt('describe-media');
}

/** The absolute file of a fragment's media, or undefined when it cannot be found. */
export function mediaFile(f: Fragment, opts: { assetsDir?: string; corpusRoot?: string }): string | undefined {
  if (!f.media) return undefined;
  const base = f.media.origin === 'file' ? opts.corpusRoot : opts.assetsDir;
  if (!base) return undefined;
  const abs = path.resolve(base, ...f.media.path.split('/'));
  const root = path.resolve(base);
  if (abs !== root && !abs.startsWith(root + path.sep)) return undefined;
  return fs.existsSync(abs) ? abs : undefined;
}

function headLine(f: Fragment): string {
  return f.caption ?? f.label ?? '';
}

/** Offline description of an image: caption, alt/source text, OCR text. */
export function offlineImageText(f: Fragment, ocrText: string | undefined): string {
  const parts: string[] = [];
  const head = headLine(f);
  if (head) parts.push(head);
  // The source text may hold the alt text (HTML/Markdown); keep what the caption does not repeat.
  for (const line of f.text.split('\n')) {
    if (line && line !== head && !/^Image( on page \d+)?$/.test(line) && !parts.includes(line)) parts.push(line);
  }
  const ocr = (ocrText ?? '').replace(/\s+/g, ' ').trim();
  if (ocr) parts.push(`Text in the image: ${ocr.length > MAX_OCR_CHARS ? ocr.slice(0, MAX_OCR_CHARS) + '...' : ocr}`);
  if (!parts.length) parts.push(f.page ? `Image on page ${f.page}` : 'Image');
  return parts.join('\n');
}

/** Offline description of a table: caption, column summary, then the Markdown rendering. */
export function offlineTableText(f: Fragment): string {
  if (!f.table) return f.text;
  return [f.caption ?? f.label, tableSummary(f.table), tableToText(f.table)].filter(Boolean).join('\n');
}

function contextLine(f: Fragment): string {
  const where = [f.section.length ? `section "${f.section.join(' > ')}"` : '', f.page ? `page ${f.page}` : ''].filter(Boolean).join(', ');
  return `From document ${f.docId}${where ? `, ${where}` : ''}.`;
}

async function vlmImage(model: ChatModel, stage: Stage, f: Fragment, file: string, signal?: AbortSignal): Promise<string> {
  const content: ContentPart[] = [
    {
      type: 'text',
      text: [contextLine(f), headLine(f) ? `Caption: ${headLine(f)}` : 'No caption.', f.ocrText ? `Text found in the image: ${f.ocrText.slice(0, 800)}` : '']
        .filter(Boolean)
        .join('\n'),
    },
    { type: 'image', path: file, mime: f.media?.mime },
  ];
  const res = await model.chat(
    {
      stage,
      messages: [
        { role: 'system', content: systemPrompt() },
        { role: 'user', content },
      ],
      temperature: 0,
      maxTokens: 400,
      // role 'caption' + CaptionTask fields are what the offline backend reads; the rest documents the call in traces.
      task: {
        ...({
          role: 'caption',
          image: { path: file, mime: f.media?.mime },
          ocrText: f.ocrText,
          caption: f.caption,
          label: f.label,
          context: contextLine(f),
        } satisfies CaptionTask),
        kind: 'image',
        fragmentId: f.id,
        docId: f.docId,
        page: f.page,
        section: f.section,
      },
    },
    signal,
  );
  return res.text.trim();
}

async function vlmTable(model: ChatModel, stage: Stage, f: Fragment, signal?: AbortSignal): Promise<string> {
  const table = f.table!;
  const res = await model.chat(
    {
      stage,
      messages: [
        { role: 'system', content: systemPrompt() },
        {
          role: 'user',
          content: `${contextLine(f)}\n${headLine(f) ? `Caption: ${headLine(f)}\n` : ''}Describe this table:\n${tableToText(table, undefined, 2500)}`,
        },
      ],
      temperature: 0,
      maxTokens: 400,
      // Offline, a table is described from its own text (the offline caption role reads `context`).
      task: {
        ...({
          role: 'caption',
          caption: f.caption,
          label: f.label,
          context: `${contextLine(f)}\n${tableToText(table, undefined, 1500)}`,
        } satisfies CaptionTask),
        kind: 'table',
        fragmentId: f.id,
        docId: f.docId,
        page: f.page,
        header: table.header,
        rows: table.rows.slice(0, 20),
        rowCount: table.rowCount ?? table.rows.length,
      },
    },
    signal,
  );
  return res.text.trim();
}

/**
 * Describe the image/table fragments of a list (others are copied unchanged).
 * Model failures never lose a fragment: it gets the offline description and the
 * failure is reported.
 */
export async function describeFragments(frags: Fragment[], opts: DescribeOptions = {}): Promise<DescribeReport> {
  const kinds = new Set(opts.kinds ?? ['image', 'table']);
  const out = frags.map((f) => ({ ...f, attached: [...f.attached], section: [...f.section] }));
  const todo = out.filter((f) => (f.kind === 'image' || f.kind === 'table') && kinds.has(f.kind));
  const report: DescribeReport = { fragments: out, described: { vlm: 0, offline: 0 }, failures: [] };
  const stage = opts.stage ?? 'caption';
  let pool: OcrPool | undefined = opts.ocr === false ? undefined : opts.ocr;
  const ownPool = opts.ocr === undefined;
  const minConf = opts.minOcrConfidence ?? DEFAULT_MIN_OCR_CONFIDENCE;
  let done = 0;
  const ocrOf = async (f: Fragment, file: string | undefined): Promise<string | undefined> => {
    if (f.ocrText !== undefined || !file || opts.ocr === false) return f.ocrText;
    if (!/\.(png|jpe?g|gif|bmp|tiff?|webp)$/i.test(file)) return undefined;
    pool ??= new OcrPool({ cacheDir: opts.cacheDir });
    try {
      const page = await pool.recognize(fs.readFileSync(file));
      return ocrBlocks(page, minConf)
        .map((b) => b.text)
        .join('\n');
    } catch {
      return undefined; // an unreadable image keeps its caption-only description
    }
  };
  try {
    await runPool(todo, opts.model ? (opts.concurrency ?? 4) : 2, async (f) => {
      if (opts.signal?.aborted) return;
      await describeOne(f);
      opts.onProgress?.(++done, todo.length);
    });
  } finally {
    if (ownPool && pool) await pool.close();
  }
  return report;

  async function describeOne(f: Fragment): Promise<void> {
    const file = f.kind === 'image' ? mediaFile(f, opts) : undefined;
    if (opts.model && (f.kind === 'table' || file)) {
      try {
        const desc = f.kind === 'image' ? await vlmImage(opts.model, stage, f, file!, opts.signal) : await vlmTable(opts.model, stage, f, opts.signal);
        if (desc) {
          const head = headLine(f);
          f.text = f.kind === 'table' && f.table ? [head, desc, tableToText(f.table)].filter(Boolean).join('\n') : [head, desc].filter(Boolean).join('\n');
          f.describedBy = 'vlm';
          report.described.vlm++;
          return;
        }
        report.failures.push({ id: f.id, error: 'the model returned an empty description' });
      } catch (e) {
        if (isSetupFailure(e)) throw e; // a wrong key or model: one clear error, not an offline description per fragment
        report.failures.push({ id: f.id, error: errorMessage(e) });
      }
    }
    if (f.kind === 'image') {
      const ocr = await ocrOf(f, file);
      if (ocr !== undefined && f.ocrText === undefined && ocr) f.ocrText = ocr;
      f.text = offlineImageText(f, ocr);
    } else f.text = offlineTableText(f);
    f.describedBy = 'offline';
    report.described.offline++;
  }
}
