/**
 * PDF -> fragments (pdfjs-dist 5.6, legacy build). Two passes:
 *
 * 1. per page: text runs (with bold from font names), the operator list
 *    (image placements, vector drawings), embedded images written as PNG assets
 *    (tiny decorations skipped), and the decision text | ocr | empty. Pages
 *    without a text layer are rendered and queued for OCR (worker pool, cache);
 * 2. per document: running headers/footers removed, each page laid out (columns,
 *    tables, paragraphs; lib/corpus/pdf-layout.ts), headings classified from font
 *    size/weight against the body size, captions bound to the image ("Figure N:"
 *    below it) or table ("Table N:" above or below), captioned figures drawn with
 *    vector paths rendered as page-region images, fragments built.
 *
 * Every page ends up in `pages` as text | ocr | empty | error (with reason); a
 * failing page never fails the document, a corrupt/encrypted file gives an
 * issue and no document.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment, IngestIssue, IngestResult, MediaAsset, PageStatus } from './types';
import { DEFAULT_MAX_TABLE_ROWS, DEFAULT_MIN_OCR_CONFIDENCE, fragmentSizes, type IngestOptions } from './options';
import { openSource, type SourceFile } from './source';
import { FragmentBuilder } from './fragments';
import { isWorkedExample, parseCaption } from './captions';
import { makeTable } from './table';
import { emptyStats, finishResult } from './result';
import { openPdf, loadPdfjs, type PdfDocument, type PdfPage } from './pdfjs';
import { encodePng, imageObject, isBlankCanvas, scanOperatorList, toRgba, type RawImage } from './pdf-graphics';
import {
  layoutPage,
  marginKey,
  repeatedMarginLines,
  runsToSegments,
  type Box,
  type LayoutElement,
  type Segment,
  type TextBlock,
  type TextRun,
} from './pdf-layout';
import { OcrPool, ocrBlocks, type OcrTextBlock } from './ocr';
import { errorMessage, isKfError } from '../util/errors';
import { sha256 } from '../util/hash';
import { writeFileAtomic } from '../util/fsx';

interface PageImage {
  box: Box;
  hash: string;
  asset?: MediaAsset;
  /** Share of the page area the image covers (0..1). */
  cover: number;
}

interface PageData {
  page: number;
  width: number;
  height: number;
  status: PageStatus;
  segs: Segment[];
  images: PageImage[];
  drawings: Box[];
  /** OCR pages: the rendered page kept as an image, and the recognised blocks. */
  pageImage?: MediaAsset;
  ocr?: OcrTextBlock[];
  ocrText?: string;
}

interface Ctx {
  src: SourceFile;
  opts: IngestOptions;
  issues: IngestIssue[];
  doc: PdfDocument;
  pool?: OcrPool;
  ownPool: boolean;
  fontBold: Map<string, boolean>;
  /** Image content hash -> pages it appears on (repeated logos/backgrounds are decoration). */
  imagePages: Map<string, Set<number>>;
  assetsWarned: boolean;
}

const pad = (n: number) => String(n).padStart(4, '0');

/** Asset folder name of a document: its id, made safe for any file system. */
export function assetFolder(docId: string): string {
  return docId
    .split('/')
    .map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^\.+/, '_') || '_')
    .join('/');
}

/** An asset written by an earlier build (same content hash in its name), with its PNG size. */
function existingAsset(ctx: Ctx, name: string, origin: MediaAsset['origin']): MediaAsset | undefined {
  if (!ctx.opts.assetsDir) return undefined;
  const rel = `${assetFolder(ctx.src.docId)}/${name}`;
  const abs = path.join(ctx.opts.assetsDir, ...rel.split('/'));
  try {
    const fd = fs.openSync(abs, 'r');
    const head = Buffer.alloc(24);
    fs.readSync(fd, head, 0, 24, 0);
    fs.closeSync(fd);
    if (head.readUInt32BE(0) !== 0x89504e47) return undefined;
    return { path: rel, mime: 'image/png', width: head.readUInt32BE(16), height: head.readUInt32BE(20), origin };
  } catch {
    return undefined;
  }
}

/** Without an assets folder, image fragments carry no media: say so once per document. */
function warnNoAssets(ctx: Ctx): void {
  if (ctx.assetsWarned) return;
  ctx.assetsWarned = true;
  ctx.issues.push({
    doc: ctx.src.docId,
    severity: 'warning',
    code: 'assets_not_kept',
    message: `${ctx.src.rel}: no assetsDir was given, so PDF images are described but their pixels are not kept (pass assetsDir / --out)`,
  });
}

function writeAsset(ctx: Ctx, name: string, png: Buffer, width: number, height: number, origin: MediaAsset['origin']): MediaAsset | undefined {
  if (!ctx.opts.assetsDir) {
    warnNoAssets(ctx);
    return undefined;
  }
  const rel = `${assetFolder(ctx.src.docId)}/${name}`;
  const abs = path.join(ctx.opts.assetsDir, ...rel.split('/'));
  if (!fs.existsSync(abs)) writeFileAtomic(abs, png);
  return { path: rel, mime: 'image/png', width, height, origin };
}

function isBoldFont(name: string | undefined): boolean {
  return !!name && /bold|black|heavy|semibold|demi|medi(?!um)|-bd\b|,b\b|\bbd\b/i.test(name);
}

/** Bold flag of a pdfjs font id (the loaded font's real name says it: "ABCDEF+Times-Bold"). */
function fontIsBold(ctx: Ctx, page: PdfPage, fontId: string, family: string | undefined): boolean {
  const known = ctx.fontBold.get(fontId);
  if (known !== undefined) return known;
  let bold: boolean;
  try {
    const objs = page.commonObjs as unknown as { has(id: string): boolean; get(id: string): { name?: string; bold?: boolean; black?: boolean } };
    if (objs.has(fontId)) {
      const f = objs.get(fontId);
      bold = !!f?.bold || !!f?.black || isBoldFont(f?.name);
    } else bold = isBoldFont(family);
  } catch {
    bold = isBoldFont(family);
  }
  ctx.fontBold.set(fontId, bold);
  return bold;
}

interface RawTextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
}

/** pdfjs text items -> horizontal runs in viewport coordinates (vertical text returned apart). */
function textRuns(
  ctx: Ctx,
  page: PdfPage,
  items: RawTextItem[],
  styles: Record<string, { fontFamily?: string }>,
  vt: number[],
): { runs: TextRun[]; vertical: string[]; chars: number } {
  const runs: TextRun[] = [];
  const vertical: string[] = [];
  let chars = 0;
  for (const it of items) {
    if (typeof it.str !== 'string' || !it.str.trim()) continue;
    chars += it.str.replace(/\s/g, '').length;
    const [a, b, c, d, e, f] = it.transform;
    // Item transform composed with the viewport transform.
    const m = [
      vt[0] * a + vt[2] * b,
      vt[1] * a + vt[3] * b,
      vt[0] * c + vt[2] * d,
      vt[1] * c + vt[3] * d,
      vt[0] * e + vt[2] * f + vt[4],
      vt[1] * e + vt[3] * f + vt[5],
    ];
    const len = Math.hypot(m[0], m[1]) || 1;
    const fs = Math.hypot(m[2], m[3]);
    const dirX = m[0] / len;
    const dirY = m[1] / len;
    if (Math.abs(dirY) > 0.2 || dirX < 0) {
      vertical.push(it.str.trim());
      continue;
    }
    const scale = Math.hypot(vt[0], vt[1]) || 1;
    const w = it.width * scale;
    runs.push({
      text: it.str,
      x0: m[4],
      x1: m[4] + w,
      y: m[5],
      fs: fs || it.height || 1,
      bold: fontIsBold(ctx, page, it.fontName, styles[it.fontName]?.fontFamily),
    });
  }
  return { runs, vertical, chars };
}

async function renderCanvas(doc: PdfDocument, page: PdfPage, scale: number) {
  const vp = page.getViewport({ scale });
  const factory = doc.canvasFactory as unknown as {
    create(w: number, h: number): { canvas: { width: number; height: number; encode(format: 'png'): Promise<Buffer> }; context: CanvasRenderingContext2D };
    destroy(c: unknown): void;
  };
  const w = Math.max(1, Math.ceil(vp.width));
  const h = Math.max(1, Math.ceil(vp.height));
  const cc = factory.create(w, h);
  await page.render({ canvas: cc.canvas as unknown as HTMLCanvasElement, canvasContext: cc.context, viewport: vp }).promise;
  return { cc, w, h, scale, destroy: () => factory.destroy(cc), factory };
}

/** Crop a region (viewport points) out of a rendered page. */
async function cropPng(r: Awaited<ReturnType<typeof renderCanvas>>, b: Box): Promise<{ png: Buffer; width: number; height: number }> {
  const sx = Math.max(0, Math.floor(b.x0 * r.scale));
  const sy = Math.max(0, Math.floor(b.y0 * r.scale));
  const sw = Math.max(1, Math.min(r.w - sx, Math.ceil((b.x1 - b.x0) * r.scale)));
  const sh = Math.max(1, Math.min(r.h - sy, Math.ceil((b.y1 - b.y0) * r.scale)));
  const out = r.factory.create(sw, sh);
  out.context.fillStyle = '#ffffff';
  out.context.fillRect(0, 0, sw, sh);
  out.context.drawImage(r.cc.canvas as unknown as CanvasImageSource, sx, sy, sw, sh, 0, 0, sw, sh);
  // encode() runs off the main thread (libuv pool), so layout work continues meanwhile.
  const png = await out.canvas.encode('png');
  r.factory.destroy(out);
  return { png, width: sw, height: sh };
}

function clipBox(b: Box, w: number, h: number): Box {
  return { x0: Math.max(0, b.x0), y0: Math.max(0, b.y0), x1: Math.min(w, b.x1), y1: Math.min(h, b.y1) };
}
const area = (b: Box) => Math.max(0, b.x1 - b.x0) * Math.max(0, b.y1 - b.y0);

/** Pass 1 for one page. OCR is started here and awaited by the caller (bounded queue). */
type Gfx = ReturnType<typeof scanOperatorList>;
type PlacedImage = Gfx['images'][number];

/** Where a page's text comes from: its text layer, OCR (no layer, or a scan covering it), or nothing. */
function pageStatus(ctx: Ctx, pageNo: number, chars: number, gfx: Gfx, placed: PlacedImage[], pageArea: number): PageData['status'] {
  const bigCover = placed.reduce((m, im) => Math.max(m, area(im.box) / pageArea), 0);
  const needsOcr = chars < 20 ? gfx.paintOps > 0 : chars < 200 && bigCover >= 0.5;
  if (needsOcr && ctx.opts.ocr === 'off') {
    ctx.issues.push({
      doc: ctx.src.docId,
      page: pageNo,
      severity: 'warning',
      code: 'ocr_off',
      message: `${ctx.src.rel} page ${pageNo}: no text layer and OCR is off; the page's text is missing`,
    });
    return { page: pageNo, source: 'empty', chars, error: 'no text layer and OCR is off' };
  }
  if (needsOcr) return { page: pageNo, source: 'ocr', chars: 0 };
  if (chars === 0) return { page: pageNo, source: 'empty', chars: 0 };
  return { page: pageNo, source: 'text', chars };
}

/**
 * One embedded image of a page, or undefined for decorations (tiny, thin rules), the scan of an
 * OCR page, an image already seen on this page, or pixels we cannot read.
 */
async function embeddedImage(
  ctx: Ctx,
  page: PdfPage,
  pageNo: number,
  im: PlacedImage,
  data: PageData,
  seen: Set<string>,
): Promise<PageData['images'][number] | undefined> {
  const { opts } = ctx;
  const pageArea = data.width * data.height;
  const minPx = opts.minImagePixels ?? 48;
  const bw = im.box.x1 - im.box.x0;
  const bh = im.box.y1 - im.box.y0;
  if (bw < 24 || bh < 24 || bw / bh > 20 || bh / bw > 20) return undefined;
  const cover = area(im.box) / pageArea;
  if (data.status.source === 'ocr' && cover >= 0.5) return undefined;
  let raw: RawImage | undefined = im.inline;
  if (!raw && im.objId) raw = await imageObject(page, im.objId);
  if (!raw || raw.width < minPx || raw.height < minPx) return undefined;
  if (!raw.data || ![1, 2, 3].includes(raw.kind ?? 0)) return undefined;
  // Hash the decoded pixels as pdfjs holds them (compact for 1-bit scans), with their shape.
  const hash = sha256(
    Buffer.concat([Buffer.from(`${raw.width}x${raw.height}k${raw.kind}:`), Buffer.from(raw.data.buffer, raw.data.byteOffset, raw.data.byteLength)]),
  );
  if (seen.has(hash)) return undefined; // the same image painted twice on a page (tiling, masks)
  seen.add(hash);
  if (!ctx.imagePages.has(hash)) ctx.imagePages.set(hash, new Set());
  ctx.imagePages.get(hash)!.add(pageNo);
  let asset: MediaAsset | undefined;
  if (opts.assetsDir) {
    // Content-addressed: a rebuild finds the file and skips the (costly) PNG encoding.
    const name = `p${pad(pageNo)}-img-${hash.slice(0, 12)}.png`;
    asset = existingAsset(ctx, name, 'pdf-embedded');
    if (!asset) {
      const rgba = toRgba(raw);
      if (!rgba) return undefined;
      const { png, width, height } = await encodePng(rgba, raw.width, raw.height);
      asset = writeAsset(ctx, name, png, width, height, 'pdf-embedded');
    }
  } else warnNoAssets(ctx);
  return { box: im.box, hash, asset, cover };
}

/** Render an OCR page, keep its image, and queue its recognition (the page's text arrives when the job ends). */
async function ocrPage(ctx: Ctx, page: PdfPage, pageNo: number, data: PageData, ocrQueue: Promise<void>[]): Promise<void> {
  const { doc, opts } = ctx;
  const r = await renderCanvas(doc, page, opts.renderScale ?? 2);
  let png: Buffer;
  try {
    if (isBlankCanvas(r.cc.context as unknown as { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } }, r.w, r.h)) {
      data.status = { page: pageNo, source: 'empty', chars: 0 };
      return;
    }
    png = await r.cc.canvas.encode('png');
  } finally {
    r.destroy();
  }
  data.pageImage = writeAsset(ctx, `p${pad(pageNo)}-page-${sha256(png).slice(0, 12)}.png`, png, r.w, r.h, 'pdf-render');
  const pool = (ctx.pool ??= new OcrPool({ cacheDir: opts.cacheDir }));
  const job = pool.recognize(png).then(
    (res) => {
      const blocks = ocrBlocks(res, opts.minOcrConfidence ?? DEFAULT_MIN_OCR_CONFIDENCE);
      data.ocr = blocks;
      data.ocrText = blocks.map((b) => b.text).join('\n');
      data.status = { page: pageNo, source: blocks.length ? 'ocr' : 'empty', chars: data.ocrText.length };
    },
    (e) => {
      data.status = { page: pageNo, source: 'error', chars: 0, error: `OCR failed: ${errorMessage(e)}` };
      ctx.issues.push({
        doc: ctx.src.docId,
        page: pageNo,
        severity: 'error',
        code: 'ocr_failed',
        message: `${ctx.src.rel} page ${pageNo}: ${errorMessage(e)}`,
      });
    },
  );
  ocrQueue.push(job);
}

async function readPage(ctx: Ctx, pageNo: number, ocrQueue: Promise<void>[]): Promise<PageData> {
  const { doc } = ctx;
  const page = await doc.getPage(pageNo);
  try {
    const vp = page.getViewport({ scale: 1 });
    const W = vp.width;
    const H = vp.height;
    const pdfjs = await loadPdfjs();
    // Operator list first: it loads the fonts, whose real names give bold.
    const opList = await page.getOperatorList();
    const gfx = scanOperatorList(opList as unknown as { fnArray: number[]; argsArray: unknown[] }, pdfjs.OPS, vp.transform);
    const tc = await page.getTextContent();
    const { runs, vertical, chars } = textRuns(
      ctx,
      page,
      tc.items as unknown as RawTextItem[],
      tc.styles as Record<string, { fontFamily?: string }>,
      vp.transform,
    );
    if (vertical.join('').length > 0.3 * Math.max(1, chars)) {
      // Mostly vertical text (a rotated table/page): keep it as lines rather than lose it.
      runs.push(...vertical.map((t, k) => ({ text: t, x0: 0, x1: W, y: H + 20 + k * 12, fs: 10, bold: false })));
    }
    const pageArea = W * H;
    const placed = gfx.images.map((im) => ({ ...im, box: clipBox(im.box, W, H) })).filter((im) => area(im.box) > 0);
    const data: PageData = {
      page: pageNo,
      width: W,
      height: H,
      status: pageStatus(ctx, pageNo, chars, gfx, placed, pageArea),
      segs: [],
      images: [],
      drawings: [],
    };
    if (data.status.source === 'text') data.segs = runsToSegments(runs);
    data.drawings = gfx.drawings.map((b) => clipBox(b, W, H)).filter((b) => b.x1 - b.x0 >= 1 && b.y1 - b.y0 >= 1 && area(b) < 0.5 * pageArea);
    const seen = new Set<string>();
    for (const im of placed) {
      const entry = await embeddedImage(ctx, page, pageNo, im, data, seen);
      if (entry) data.images.push(entry);
    }
    if (data.status.source === 'ocr') await ocrPage(ctx, page, pageNo, data, ocrQueue);
    return data;
  } finally {
    page.cleanup();
  }
}

/** Body text size of the document: the most common font size, weighted by characters. */
function bodyFontSize(blocks: TextBlock[]): number {
  const hist = new Map<number, number>();
  for (const b of blocks) {
    const k = Math.round(b.fs * 2) / 2;
    hist.set(k, (hist.get(k) ?? 0) + b.text.length);
  }
  let best = 10;
  let n = -1;
  for (const [k, v] of hist)
    if (v > n) {
      best = k;
      n = v;
    }
  return best;
}

// "2 Related Work", "3.1 Setup", "A.2 Details" (a bare letter is too often a word: "A New Approach").
const NUMBERED = /^(\d{1,2}(?:\.\d{1,2}){0,3}|[A-Z](?:\.\d{1,2}){1,3})\.?\s+[A-Z]/;

/** Heading classifier built from the document's font statistics. */
function headingLevels(blocks: TextBlock[]): (b: TextBlock) => number | undefined {
  const body = bodyFontSize(blocks);
  const isCandidate = (b: TextBlock) => {
    const t = b.text.trim();
    if (t.length < 2 || t.length > 150 || b.lines > 3) return false;
    if (!/[A-Za-z]{2,}/.test(t) || /^[a-z]/.test(t) || /[,;]$/.test(t)) return false;
    if (/[.]$/.test(t) && !/^\d+(\.\d+)*\.?\s/.test(t) && t.length > 40) return false;
    if (parseCaption(t) || isWorkedExample(t)) return false;
    if (b.fs >= body * 1.18) return true;
    return b.bold && b.fs >= body * 0.9 && b.lines <= 2 && t.length <= 100;
  };
  const sizes = [...new Set(blocks.filter((b) => isCandidate(b) && b.fs >= body * 1.18).map((b) => Math.round(b.fs * 2) / 2))].sort((a, b) => b - a);
  const boldLevel = Math.min(sizes.length + 1, 6);
  return (b: TextBlock) => {
    if (!isCandidate(b)) return undefined;
    const num = NUMBERED.exec(b.text.trim());
    if (num && b.fs < body * 1.6) return Math.min(6, num[1].split('.').length);
    if (b.fs >= body * 1.18) return Math.min(4, sizes.indexOf(Math.round(b.fs * 2) / 2) + 1 || 4);
    return boldLevel;
  };
}

export async function ingestPdf(file: string, opts: IngestOptions = {}): Promise<IngestResult> {
  const src = openSource(file, opts);
  const issues: IngestIssue[] = [];
  const fail = (code: string, message: string): IngestResult => ({
    fragments: [],
    issues: [...issues, { doc: src.docId, severity: 'error', code, message }],
    stats: emptyStats(),
  });
  if (src.bytes.length === 0) return fail('empty', `${src.rel} is an empty file (0 bytes): nothing to ingest -- replace it with the real PDF or remove it`);
  let doc: PdfDocument;
  try {
    doc = await openPdf(src.bytes, src.rel);
  } catch (e) {
    return fail(isKfError(e) ? e.code : 'pdf_unreadable', errorMessage(e));
  }
  const ctx: Ctx = { src, opts, issues, doc, pool: opts.ocrPool, ownPool: !opts.ocrPool, fontBold: new Map(), imagePages: new Map(), assetsWarned: false };
  try {
    return await ingestOpenPdf(ctx);
  } finally {
    await doc.destroy().catch(() => undefined);
    if (ctx.ownPool && ctx.pool) await ctx.pool.close();
  }
}

async function ingestOpenPdf(ctx: Ctx): Promise<IngestResult> {
  const { doc, src, opts, issues } = ctx;
  const n = doc.numPages;
  const pages: PageData[] = [];
  const ocrQueue: Promise<void>[] = [];
  const maxInFlight = (ctx.pool?.size ?? 2) + 2;
  for (let p = 1; p <= n; p++) {
    try {
      pages.push(await readPage(ctx, p, ocrQueue));
    } catch (e) {
      const reason = errorMessage(e);
      pages.push({ page: p, width: 612, height: 792, status: { page: p, source: 'error', chars: 0, error: reason }, segs: [], images: [], drawings: [] });
      issues.push({ doc: src.docId, page: p, severity: 'error', code: 'page_failed', message: `${src.rel} page ${p} could not be read: ${reason}` });
    }
    // Bounded OCR queue: rendered PNGs wait in memory only a few at a time.
    while (ocrQueue.length >= maxInFlight) await ocrQueue.shift();
    opts.onPage?.({ doc: src.docId, page: p, pages: n, source: pages[pages.length - 1].status.source });
  }
  await Promise.all(ocrQueue);

  // Logos and running titles OCRed on every slide repeat verbatim: keep them out of the prose
  // (they stay in the page image's ocrText).
  const ocrPages = pages.filter((p) => p.ocr?.length);
  if (ocrPages.length >= 3) {
    const seenOn = new Map<string, number>();
    for (const p of ocrPages) for (const k of new Set(p.ocr!.map((x) => marginKey(x.text)))) seenOn.set(k, (seenOn.get(k) ?? 0) + 1);
    const min = Math.max(3, Math.ceil(ocrPages.length * 0.3));
    for (const p of ocrPages) p.ocr = p.ocr!.filter((x) => x.text.length > 80 || (seenOn.get(marginKey(x.text)) ?? 0) < min);
  }

  // Decorations: an image repeated on 3+ pages (logo, slide template background).
  const decoration = new Set([...ctx.imagePages].filter(([, ps]) => ps.size >= 3).map(([h]) => h));

  // Pass 2: layout of every text page.
  const drops = repeatedMarginLines(pages.map((p) => ({ segs: p.segs, height: p.height })));
  const layouts = pages.map((p, i) => {
    if (p.status.source !== 'text') return [] as LayoutElement<PageImage>[];
    const segs = p.segs.filter((s) => !drops[i].has(s.line));
    const imgs = p.images.filter((im) => !decoration.has(im.hash));
    // Text inside an image is the image's own text only for figure-sized images; a page-size
    // background with text on top keeps its text as prose.
    return layoutPage(
      segs,
      imgs.map((im) => ({ box: im.cover < 0.5 ? im.box : { x0: 0, y0: 0, x1: 0, y1: 0 }, ref: im })),
      p.width,
    ).map((e) => (e.type === 'image' ? { ...e, box: e.ref.box } : e));
  });
  const allBlocks = layouts.flat().filter((e): e is TextBlock => e.type === 'block');
  const levelOf = headingLevels(allBlocks);
  const hasTextHeadings = allBlocks.some((b) => levelOf(b) !== undefined);

  const b = new FragmentBuilder(src.docId, fragmentSizes(opts));
  const maxRows = opts.maxTableRows ?? DEFAULT_MAX_TABLE_ROWS;
  let title: string | undefined;
  const info = ((await doc.getMetadata().catch(() => undefined))?.info ?? {}) as Record<string, unknown>;
  const metaTitle = typeof info.Title === 'string' ? info.Title.trim() : '';
  if (
    metaTitle &&
    !/^(untitled|microsoft (word|powerpoint)|powerpoint presentation|slide ?1|document\d*)\b/i.test(metaTitle) &&
    !/\.(docx?|pptx?|pdf|indd|qxd)$/i.test(metaTitle)
  )
    title = metaTitle;

  for (let i = 0; i < pages.length; i++) {
    const p = pages[i];
    try {
      if (p.status.source === 'ocr' && p.ocr) emitOcrPage(b, p, hasTextHeadings);
      else if (p.status.source === 'text') {
        const t = await emitTextPage(ctx, b, p, layouts[i], levelOf, maxRows);
        if (!title && p.page <= 2 && t) title = t;
      } else if (p.pageImage) {
        // An empty OCR result keeps the page image (a photo, a chart without words).
        b.media({ kind: 'image', page: p.page, media: p.pageImage });
      }
    } catch (e) {
      p.status = { page: p.page, source: 'error', chars: 0, error: errorMessage(e) };
      issues.push({
        doc: src.docId,
        page: p.page,
        severity: 'error',
        code: 'page_failed',
        message: `${src.rel} page ${p.page} could not be laid out: ${errorMessage(e)}`,
      });
    }
  }
  if (decoration.size) removeDecorationAssets(ctx, pages, decoration);
  const fragments: Fragment[] = b.finish();
  const stats = emptyStats();
  stats.ocrPages = pages.filter((p) => p.status.source === 'ocr').length;
  return finishResult({
    src,
    format: 'pdf',
    title: title ?? b.firstHeading,
    fragments,
    issues,
    stats,
    pages: pages.map((p) => p.status),
    meta: { producer: info.Producer, creator: info.Creator, pdfTitle: metaTitle || undefined },
  });
}

/** Delete asset files of decoration images (written in pass 1 before repetition was known). */
function removeDecorationAssets(ctx: Ctx, pages: PageData[], decoration: Set<string>): void {
  if (!ctx.opts.assetsDir) return;
  for (const p of pages) {
    for (const im of p.images) {
      if (!decoration.has(im.hash) || !im.asset) continue;
      try {
        fs.unlinkSync(path.join(ctx.opts.assetsDir, ...im.asset.path.split('/')));
      } catch {
        /* already removed */
      }
    }
  }
}

function emitOcrPage(b: FragmentBuilder, p: PageData, hasTextHeadings: boolean): void {
  const blocks = p.ocr ?? [];
  // In a scanned/slide document (no text-layer headings) each page is its own unit: its
  // title is the first short block when there is one, and nothing carries over from the
  // previous page. Inside a text document a scanned page continues the current section.
  if (!hasTextHeadings) b.resetSections();
  blocks.forEach((x, k) => {
    const title = !hasTextHeadings && k === 0 && blocks.length > 1 && x.lines <= 2 && x.text.length <= 80 && /[A-Za-z]{3,}/.test(x.text);
    if (title) b.heading(1, x.text);
    else if (isWorkedExample(x.text)) b.example(x.text, p.page);
    else b.text(x.text, p.page);
  });
  if (p.pageImage || p.ocrText) b.media({ kind: 'image', page: p.page, media: p.pageImage, ocrText: p.ocrText || undefined });
}

/** Vector-drawn figures: caption index -> region above it and the label blocks it absorbs. */
interface VectorFigure {
  region: Box;
  absorbed: number[];
  innerText: string;
}

const proseLike = (e: LayoutElement<unknown>) => e.type === 'block' && e.text.length > 200 && e.text.length / e.lines > 35;
const overlaps = (a: Box, b: Box, pad = 0) => a.x0 < b.x1 + pad && a.x1 > b.x0 - pad && a.y0 < b.y1 + pad && a.y1 > b.y0 - pad;

/**
 * A "Figure N:" caption with no image right before it usually captions a chart
 * drawn with vector paths. Its region: the drawings just above the caption, grown
 * through touching drawings, bounded above by the last paragraph or heading. The
 * text blocks inside the region (axis labels, legends -- even when the table
 * detector lined them up) are the figure's own text, not prose.
 */
export function findVectorFigures(
  els: LayoutElement<unknown>[],
  drawings: Box[],
  width: number,
  height: number,
  isHeading: (b: TextBlock) => boolean = () => false,
): Map<number, VectorFigure> {
  const out = new Map<number, VectorFigure>();
  const claimed = new Set<number>();
  els.forEach((cap, k) => {
    if (cap.type !== 'block' || els[k - 1]?.type === 'image') return;
    const c = parseCaption(cap.text);
    if (c?.kind !== 'figure') return;
    const capBand: Box = { x0: cap.box.x0 - 40, x1: cap.box.x1 + 40, y0: 0, y1: cap.box.y0 };
    let top = 0;
    for (let j = k - 1; j >= 0; j--) {
      const e = els[j];
      if (e.box.y1 > cap.box.y0 + 2 || e.box.x1 < capBand.x0 || e.box.x0 > capBand.x1) continue;
      if (claimed.has(j) || e.type === 'image' || proseLike(e) || (e.type === 'block' && isHeading(e))) {
        top = Math.max(top, e.box.y1);
        break;
      }
    }
    const usable = drawings.filter((d) => d.y0 >= top - 2 && d.y1 <= cap.box.y0 + 2);
    const seeds = usable.filter((d) => d.x1 > capBand.x0 && d.x0 < capBand.x1 && d.y1 >= cap.box.y0 - 60);
    if (!seeds.length) return;
    let region: Box = {
      x0: Math.min(...seeds.map((d) => d.x0)),
      y0: Math.min(...seeds.map((d) => d.y0)),
      x1: Math.max(...seeds.map((d) => d.x1)),
      y1: Math.max(...seeds.map((d) => d.y1)),
    };
    let members = seeds.length;
    for (let grew = true; grew;) {
      grew = false;
      for (const d of usable) {
        if (d.x0 >= region.x0 && d.x1 <= region.x1 && d.y0 >= region.y0 && d.y1 <= region.y1) continue;
        if (!overlaps(d, region, 12)) continue;
        region = { x0: Math.min(region.x0, d.x0), y0: Math.min(region.y0, d.y0), x1: Math.max(region.x1, d.x1), y1: Math.max(region.y1, d.y1) };
        members++;
        grew = true;
      }
    }
    const substantial = members >= 5 || (region.x1 - region.x0 >= 40 && region.y1 - region.y0 >= 40);
    if (!substantial) return;
    // Text inside (or hugging) the drawing belongs to the figure and widens it.
    const absorbed: number[] = [];
    for (let j = 0; j < k; j++) {
      const e = els[j];
      if (claimed.has(j) || e.type === 'image' || proseLike(e) || (e.type === 'block' && (isHeading(e) || parseCaption(e.text)))) continue;
      if (e.box.y0 < top - 2 || e.box.y1 > cap.box.y0 + 2) continue;
      const cx = (e.box.x0 + e.box.x1) / 2;
      const cy = (e.box.y0 + e.box.y1) / 2;
      if (cx >= region.x0 - 15 && cx <= region.x1 + 15 && cy >= region.y0 - 15 && cy <= region.y1 + 15) absorbed.push(j);
    }
    for (const j of absorbed) {
      const b = els[j].box;
      region = { x0: Math.min(region.x0, b.x0), y0: Math.min(region.y0, b.y0), x1: Math.max(region.x1, b.x1), y1: Math.max(region.y1, b.y1) };
    }
    region = clipBox({ x0: region.x0 - 4, y0: region.y0 - 4, x1: region.x1 + 4, y1: region.y1 + 4 }, width, height);
    if (region.x1 - region.x0 < 30 || region.y1 - region.y0 < 30) return;
    for (const j of absorbed) claimed.add(j);
    const innerText = absorbed
      .map((j) => {
        const e = els[j];
        return e.type === 'block' ? e.text : e.type === 'table' ? [e.header, ...e.rows].map((r) => r.filter(Boolean).join(' ')).join('\n') : '';
      })
      .filter(Boolean)
      .join('\n');
    out.set(k, { region, absorbed, innerText });
  });
  return out;
}

/** Emits one text page; returns a title candidate (the page's first level-1 heading). */
async function emitTextPage(
  ctx: Ctx,
  b: FragmentBuilder,
  p: PageData,
  els: LayoutElement<PageImage>[],
  levelOf: (x: TextBlock) => number | undefined,
  maxRows: number,
): Promise<string | undefined> {
  let title: string | undefined;
  let rendered: Awaited<ReturnType<typeof renderCanvas>> | undefined;
  const figures = findVectorFigures(els, p.drawings, p.width, p.height, (x) => levelOf(x) !== undefined);
  const consumed = new Set<number>([...figures.values()].flatMap((f) => f.absorbed));
  const capOf = (k: number, kind: 'figure' | 'table') => {
    const e = els[k];
    if (!e || e.type !== 'block' || consumed.has(k)) return undefined;
    const c = parseCaption(e.text);
    return c && c.kind === kind ? c : undefined;
  };
  try {
    for (let k = 0; k < els.length; k++) {
      if (consumed.has(k)) continue;
      const e = els[k];
      if (e.type === 'image') {
        // Consecutive images (sub-figures) share the caption line that follows them.
        let end = k;
        while (els[end + 1]?.type === 'image') end++;
        const cap = capOf(end + 1, 'figure');
        if (cap) consumed.add(end + 1);
        for (let j = k; j <= end; j++) {
          const im = els[j] as Extract<LayoutElement<PageImage>, { type: 'image' }>;
          b.media({ kind: 'image', page: p.page, media: im.ref.asset, caption: cap?.text, label: cap?.label, ocrText: im.innerText || undefined });
        }
        k = end;
        continue;
      }
      if (e.type === 'table') {
        let cap = capOf(k + 1, 'table');
        // A caption between two tables goes to the nearer one (captions above vs below vary by document).
        const after = els[k + 2];
        if (cap && after?.type === 'table' && after.box.y0 - els[k + 1].box.y1 < els[k + 1].box.y0 - e.box.y1) cap = undefined;
        if (cap) consumed.add(k + 1);
        emitTable(ctx, b, p.page, e, maxRows, cap);
        continue;
      }
      const text = e.text;
      const tcap = parseCaption(text);
      if (tcap?.kind === 'table' && els[k + 1]?.type === 'table' && !consumed.has(k + 1)) {
        emitTable(ctx, b, p.page, els[k + 1] as Extract<LayoutElement<PageImage>, { type: 'table' }>, maxRows, tcap);
        k++;
        continue;
      }
      const fig = figures.get(k);
      if (fig && tcap) {
        let asset: MediaAsset | undefined;
        if (ctx.opts.assetsDir) {
          rendered ??= await renderCanvas(ctx.doc, await ctx.doc.getPage(p.page), ctx.opts.renderScale ?? 2);
          const { png, width, height } = await cropPng(rendered, fig.region);
          asset = writeAsset(ctx, `p${pad(p.page)}-fig-${sha256(png).slice(0, 12)}.png`, png, width, height, 'pdf-render');
        } else warnNoAssets(ctx);
        b.media({ kind: 'image', page: p.page, media: asset, caption: tcap.text, label: tcap.label, ocrText: fig.innerText || undefined });
        continue;
      }
      const level = levelOf(e);
      if (level !== undefined) {
        b.heading(level, text);
        if (level === 1 && !title) title = text;
      } else if (isWorkedExample(text)) b.example(text, p.page);
      else b.text(text, p.page);
    }
  } finally {
    rendered?.destroy();
  }
  return title;
}

function emitTable(
  ctx: Ctx,
  b: FragmentBuilder,
  page: number,
  t: Extract<LayoutElement<PageImage>, { type: 'table' }>,
  maxRows: number,
  cap?: { text: string; label: string },
): void {
  const table = makeTable(t.header, t.rows, maxRows);
  if (table.truncated)
    ctx.issues.push({
      doc: ctx.src.docId,
      page,
      severity: 'warning',
      code: 'table_truncated',
      message: `${ctx.src.rel} page ${page}: a table with ${table.rowCount} rows was cut to ${maxRows} rows`,
    });
  b.media({ kind: 'table', page, table, caption: cap?.text, label: cap?.label });
}
