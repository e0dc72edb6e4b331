/**
 * Markdown -> fragments. A small block parser (no Markdown library is installed)
 * covering what documents use: front matter, ATX/setext headings, paragraphs,
 * lists, block quotes, fenced code, pipe tables, images with an italic caption
 * line under them (`*Figure N: ...*`), `Table N:` captions above or below a
 * table, and `Worked example:` paragraphs (kind `example`).
 */
import type { IngestIssue, IngestResult } from './types';
import { DEFAULT_MAX_TABLE_ROWS, fragmentSizes, type IngestOptions } from './options';
import { openSource, resolveMediaRef, type SourceFile } from './source';
import { decodeBytes } from './charset';
import { FragmentBuilder } from './fragments';
import { isWorkedExample, parseCaption, stripEmphasis } from './captions';
import { makeTable } from './table';
import { decodeEntities } from './html-entities';
import { emptyStats, finishResult } from './result';

type MdBlock =
  | { type: 'heading'; level: number; text: string }
  | { type: 'para'; text: string; list: boolean }
  | { type: 'code'; text: string }
  | { type: 'table'; header: string[]; rows: string[][] }
  | { type: 'image'; alt: string; src: string; title?: string };

const FENCE = /^\s{0,3}(```+|~~~+)/;
const ATX = /^\s{0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const HR = /^\s{0,3}(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d{1,9}[.)])\s+/;
const TABLE_DELIM = /^\s*\|?\s*:?-{1,}:?\s*(?:\|\s*:?-{1,}:?\s*)*\|?\s*$/;
// One image alone on a line, optionally wrapped in a link: [![alt](src "title")](href)
const IMAGE_LINE = /^\s*\[?!\[([^\]]*)\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+["'(]([^"')]*)["')])?\s*\)(?:\]\([^)]*\))?\s*$/;
const HTML_IMG_LINE = /^\s*<img\s[^>]*?src\s*=\s*["']([^"']+)["'][^>]*>\s*$/i;
const INLINE_IMAGE = /!\[([^\]]*)\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+["'(][^"')]*["')])?\s*\)/g;

/** Split a pipe-table row into cells, honouring `\|` escapes. */
export function splitPipeRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
      continue;
    }
    if (s[i] === '|') {
      cells.push(cur);
      cur = '';
      continue;
    }
    cur += s[i];
  }
  cells.push(cur);
  return cells.map((c) => inlineToText(c));
}

/** Inline Markdown -> plain text: links keep their text, emphasis/code markers go, entities decode. */
export function inlineToText(s: string): string {
  let t = s;
  t = t.replace(INLINE_IMAGE, (_m, alt: string) => alt);
  t = t.replace(/\[([^\]]*)\]\((?:[^)(]|\([^)]*\))*\)/g, '$1'); // [text](url)
  t = t.replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1'); // [text][ref]
  t = t.replace(/<(https?:\/\/[^>\s]+)>/g, '$1');
  t = t.replace(/`([^`]+)`/g, '$1');
  t = t.replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2');
  t = t.replace(/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?!\w)/g, '$1$2');
  t = t.replace(/(^|[^\w])_(?=\S)([^_\n]*?\S)_(?!\w)/g, '$1$2');
  t = t.replace(/~~(.+?)~~/g, '$1');
  t = t.replace(/<\/?[A-Za-z][^>]*>/g, '');
  t = t.replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1');
  return decodeEntities(t);
}

/** Pass 1: lines -> blocks. */
function parseBlocks(text: string): { blocks: MdBlock[]; frontTitle?: string } {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MdBlock[] = [];
  let i = 0;
  let frontTitle: string | undefined;
  if (lines[0]?.trim() === '---') {
    const end = lines.findIndex((l, k) => k > 0 && (l.trim() === '---' || l.trim() === '...'));
    if (end > 0) {
      for (const l of lines.slice(1, end)) {
        const m = /^title\s*:\s*(.+)$/i.exec(l);
        if (m) frontTitle = m[1].trim().replace(/^["']|["']$/g, '');
      }
      i = end + 1;
    }
  }
  let para: string[] = [];
  const flushPara = () => {
    if (!para.length) return;
    const list = para.every((l) => LIST_ITEM.test(l) || /^\s{2,}\S/.test(l)) && LIST_ITEM.test(para[0]);
    // Block-quote markers go; list lines keep their indentation (nesting), prose lines are trimmed.
    const joined = para.map((l) => l.replace(/^\s{0,3}>\s?/, '')).map((l) => (list ? l.replace(/\s+$/, '') : l.trim()));
    blocks.push({ type: 'para', text: joined.join('\n'), list });
    para = [];
  };
  for (; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) {
      flushPara();
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      flushPara();
      const marker = fence[1];
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(marker); i++) body.push(lines[i]);
      blocks.push({ type: 'code', text: body.join('\n') });
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      flushPara();
      blocks.push({ type: 'heading', level: atx[1].length, text: inlineToText(atx[2] ?? '') });
      continue;
    }
    // Setext heading: one paragraph line underlined with === or ---.
    if (para.length === 1 && /^\s{0,3}(=+|-+)\s*$/.test(line) && !LIST_ITEM.test(para[0])) {
      const level = line.trim()[0] === '=' ? 1 : 2;
      blocks.push({ type: 'heading', level, text: inlineToText(para[0].trim()) });
      para = [];
      continue;
    }
    if (HR.test(line)) {
      flushPara();
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_DELIM.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      flushPara();
      const header = splitPipeRow(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && lines[i].trim() && lines[i].includes('|'); i++) rows.push(splitPipeRow(lines[i]));
      i--;
      blocks.push({ type: 'table', header, rows });
      continue;
    }
    const img = IMAGE_LINE.exec(line);
    if (img && !para.length) {
      blocks.push({ type: 'image', alt: inlineToText(img[1]), src: img[2], title: img[3] });
      continue;
    }
    const himg = HTML_IMG_LINE.exec(line);
    if (himg && !para.length) {
      const alt = /alt\s*=\s*["']([^"']*)["']/i.exec(line)?.[1] ?? '';
      blocks.push({ type: 'image', alt: decodeEntities(alt), src: decodeEntities(himg[1]) });
      continue;
    }
    // A new list item or block quote after prose starts a new block only for lists; keep it simple.
    if (para.length && LIST_ITEM.test(line) && !LIST_ITEM.test(para[0])) flushPara();
    para.push(line);
  }
  flushPara();
  return { blocks, frontTitle };
}

/** Paragraph text with inline markup removed; list items keep a "- " marker. */
function paraText(b: { text: string; list: boolean }): string {
  return b.text
    .split('\n')
    .map((l) => (b.list ? l.replace(/^(\s*)[*+]\s+/, '$1- ') : l))
    .map(inlineToText)
    .join(b.list ? '\n' : ' ')
    .trim();
}

/** An italic-only line (`*...*` / `_..._`): the demo world's caption convention. */
function isItalicLine(s: string): boolean {
  const t = s.trim();
  return !t.includes('\n') && /^(\*|_)(?!\1)[\s\S]+(?<!\1)\1$/.test(t) && !/^(\*\*|__)/.test(t);
}

export async function ingestMarkdown(file: string, opts: IngestOptions = {}): Promise<IngestResult> {
  const src = openSource(file, opts);
  const issues: IngestIssue[] = [];
  const decoded = decodeBytes(src.bytes);
  if (decoded.warning) issues.push({ doc: src.docId, severity: 'warning', code: 'charset', message: `${src.rel}: ${decoded.warning}` });
  return markdownToResult(src, decoded.text, opts, issues, 'markdown');
}

export function markdownToResult(src: SourceFile, text: string, opts: IngestOptions, issues: IngestIssue[], format: 'markdown' | 'text'): IngestResult {
  const { blocks, frontTitle } = parseBlocks(text);
  const b = new FragmentBuilder(src.docId, fragmentSizes(opts));
  const maxRows = opts.maxTableRows ?? DEFAULT_MAX_TABLE_ROWS;
  const stats = emptyStats();
  let title: string | undefined = frontTitle;

  const captionAt = (k: number, kind: 'figure' | 'table', looseItalic: boolean) => {
    const blk = blocks[k];
    if (!blk || blk.type !== 'para' || blk.list) return undefined;
    const raw = blk.text.trim();
    if (raw.includes('\n') && !parseCaption(raw)) return undefined;
    const italic = isItalicLine(raw);
    const cap = parseCaption(raw, italic);
    if (cap && cap.kind === kind) return { text: cap.text, label: cap.label };
    if (!cap && looseItalic && italic) return { text: inlineToText(stripEmphasis(raw)), label: undefined };
    return undefined;
  };

  const consumed = new Set<number>();
  for (let k = 0; k < blocks.length; k++) {
    if (consumed.has(k)) continue;
    const blk = blocks[k];
    switch (blk.type) {
      case 'heading':
        if (blk.level === 1 && title === undefined && blk.text) title = blk.text;
        b.heading(blk.level, blk.text);
        break;
      case 'code':
        b.text(blk.text);
        break;
      case 'image': {
        const cap = captionAt(k + 1, 'figure', true);
        if (cap) consumed.add(k + 1);
        const media = resolveMediaRef(src, blk.src, issues);
        b.media({ kind: 'image', media, caption: cap?.text, label: cap?.label, alt: blk.alt || blk.title });
        stats.images++;
        break;
      }
      case 'table': {
        let cap = captionAt(k + 1, 'table', false);
        if (cap) consumed.add(k + 1);
        const table = makeTable(blk.header, blk.rows, maxRows);
        if (table.truncated)
          issues.push({
            doc: src.docId,
            severity: 'warning',
            code: 'table_truncated',
            message: `${src.rel}: a table with ${table.rowCount} rows was cut to its first ${maxRows} rows (raise maxTableRows to keep more)`,
          });
        // A caption above the table was held back when its paragraph was reached (see 'para').
        const above = (blk as { aboveCaption?: { text: string; label?: string } }).aboveCaption;
        if (above && !cap) cap = above;
        b.media({ kind: 'table', table, caption: cap?.text, label: cap?.label });
        stats.tables++;
        break;
      }
      case 'para': {
        // "Table N: ..." right above a table is that table's caption, not prose.
        const next = blocks[k + 1];
        if (next?.type === 'table') {
          const cap = captionAt(k, 'table', false);
          if (cap) {
            (next as { aboveCaption?: unknown }).aboveCaption = cap;
            break;
          }
        }
        const t = paraText(blk);
        if (isWorkedExample(blk.text)) {
          // The example owns the lists and code blocks that directly follow it.
          const parts = [t];
          while (k + 1 < blocks.length) {
            const nb = blocks[k + 1];
            if (nb.type === 'code') parts.push(nb.text);
            else if (nb.type === 'para' && nb.list) parts.push(paraText(nb));
            else break;
            k++;
          }
          b.example(parts.join('\n\n'));
          break;
        }
        // Inline images inside prose: the text first, then each image as a fragment.
        const inline = [...blk.text.matchAll(INLINE_IMAGE)];
        b.text(t);
        for (const m of inline) {
          b.media({ kind: 'image', media: resolveMediaRef(src, m[2], issues), alt: inlineToText(m[1]) });
          stats.images++;
        }
        break;
      }
    }
  }
  const fragments = b.finish();
  return finishResult({ src, format, title: title ?? b.firstHeading, fragments, issues, stats });
}
