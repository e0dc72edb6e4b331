/**
 * HTML -> fragments. Walks the tree from html-parser.ts in document order:
 * headings open sections, block elements end paragraphs, <figure><img>
 * <figcaption> and an <img> followed by a caption line become image fragments,
 * data tables become table fragments (layout tables are read as flow),
 * `<div class="example">` (or a paragraph starting "Worked example:") becomes an
 * example; script/style/nav/hidden content is dropped. The charset comes from
 * the BOM or <meta charset>, else UTF-8, else windows-1252 with a warning.
 */
import type { IngestIssue, IngestResult } from './types';
import { DEFAULT_MAX_TABLE_ROWS, fragmentSizes, type IngestOptions } from './options';
import { openSource, resolveMediaRef, type SourceFile } from './source';
import { decodeBytes } from './charset';
import { FragmentBuilder, type MediaBlock } from './fragments';
import { isWorkedExample, parseCaption } from './captions';
import { makeTable } from './table';
import { emptyStats, finishResult } from './result';
import { classList, findAll, isElement, parseHtml, type HtmlElement, type HtmlNode } from './html-parser';

const DROP = new Set([
  'script',
  'style',
  'nav',
  'noscript',
  'template',
  'svg',
  'iframe',
  'object',
  'embed',
  'canvas',
  'head',
  'select',
  'datalist',
  'button',
  'input',
  'textarea',
  'map',
  'audio',
  'video',
]);
const BLOCK = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'blockquote',
  'address',
  'details',
  'summary',
  'dl',
  'dt',
  'dd',
  'ul',
  'ol',
  'li',
  'form',
  'fieldset',
  'legend',
  'figcaption',
  'hr',
  'body',
  'html',
  'center',
  'caption',
  'tr',
  'td',
  'th',
  'tbody',
  'thead',
  'tfoot',
]);
const HEADING = /^h([1-6])$/;
const EXAMPLE_CLASSES = new Set(['example', 'worked-example', 'workedexample']);
const BR = '\u2028'; // marks a <br> through whitespace collapsing

function hidden(el: HtmlElement): boolean {
  return 'hidden' in el.attrs || el.attrs['aria-hidden'] === 'true' || /display\s*:\s*none|visibility\s*:\s*hidden/i.test(el.attrs.style ?? '');
}

/** Collapse whitespace like a browser, keeping <br> and block breaks as newlines. */
function normalize(s: string): string {
  return s
    .replace(/[ \t\r\n\f\u00a0]+/g, ' ')
    .split(BR)
    .map((l) => l.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Visible text of an element; block children are separated by line breaks. */
export function textOf(node: HtmlNode, pre = false): string {
  if (!isElement(node)) return pre ? node.replace(/\n/g, BR) : node;
  if (DROP.has(node.name) || hidden(node)) return '';
  if (node.name === 'br') return BR;
  if (node.name === 'img') return '';
  const inPre = pre || node.name === 'pre';
  const inner = node.children.map((c) => textOf(c, inPre)).join('');
  if (BLOCK.has(node.name) || HEADING.test(node.name) || node.name === 'pre' || node.name === 'table') return `${BR}${inner}${BR}`;
  if (node.name === 'td' || node.name === 'th') return ` ${inner} `;
  return inner;
}

function cellText(el: HtmlElement): string {
  return normalize(textOf(el)).replace(/\n+/g, ' ');
}

/** Layout tables (page grids) are read as flow; data tables become table fragments. */
function isLayoutTable(t: HtmlElement): boolean {
  if (t.attrs.role === 'presentation' || t.attrs.role === 'none') return true;
  if (findAll(t, ['table']).length) {
    // A nested table: layout if cells hold block content, otherwise a data table whose cell contains a small table.
    const cells = findAll(t, ['td', 'th'], ['table']);
    return cells.some((c) => findAll(c, ['p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'img']).length > 0 || cellText(c).length > 400);
  }
  const cells = findAll(t, ['td', 'th'], ['table']);
  return cells.some((c) => findAll(c, ['h1', 'h2', 'h3', 'h4', 'h5', 'h6']).length > 0 || cellText(c).length > 1500);
}

/** Rows of a data table (cells of nested tables are flattened into their cell's text). */
function tableRows(t: HtmlElement): { header: string[]; rows: string[][]; caption?: string } {
  const headerRows: string[][] = [];
  const rows: string[][] = [];
  let caption: string | undefined;
  const expand = (cells: HtmlElement[]) => {
    const out: string[] = [];
    for (const c of cells) {
      out.push(cellText(c));
      const span = Math.min(50, Math.max(1, Number.parseInt(c.attrs.colspan ?? '1', 10) || 1));
      for (let k = 1; k < span; k++) out.push('');
    }
    return out;
  };
  const visitRows = (el: HtmlElement, inHead: boolean) => {
    for (const c of el.children) {
      if (!isElement(c) || hidden(c)) continue;
      if (c.name === 'caption') caption = cellText(c);
      else if (c.name === 'thead') visitRows(c, true);
      else if (c.name === 'tbody' || c.name === 'tfoot') visitRows(c, false);
      else if (c.name === 'tr') {
        const cells = c.children.filter((x): x is HtmlElement => isElement(x) && (x.name === 'td' || x.name === 'th'));
        if (!cells.length) continue;
        const allTh = cells.every((x) => x.name === 'th');
        if (inHead || (allTh && !rows.length)) headerRows.push(expand(cells));
        else rows.push(expand(cells));
      }
    }
  };
  visitRows(t, false);
  let header: string[];
  if (headerRows.length) {
    // Several header rows: join their cells column-wise ("2019 / Revenue").
    const width = Math.max(...headerRows.map((r) => r.length));
    header = Array.from({ length: width }, (_, k) =>
      headerRows
        .map((r) => r[k] ?? '')
        .filter(Boolean)
        .join(' / '),
    );
  } else header = rows.shift() ?? [];
  return { header, rows, caption };
}

class HtmlWalker {
  private buf = '';
  private pendingImages: MediaBlock[] = [];
  title?: string;

  constructor(
    private b: FragmentBuilder,
    private src: SourceFile,
    private issues: IngestIssue[],
    private maxRows: number,
  ) {}

  /** End the current paragraph: prose (or an example), then images that sat inline in it. */
  flush(): void {
    const text = normalize(this.buf);
    this.buf = '';
    if (text) {
      if (isWorkedExample(text)) this.b.example(text);
      else this.b.text(text);
    }
    for (const m of this.pendingImages) this.b.media(m);
    this.pendingImages = [];
  }

  private imageBlock(img: HtmlElement, caption?: { text: string; label?: string }): MediaBlock {
    const media = img.attrs.src ? resolveMediaRef(this.src, img.attrs.src, this.issues) : undefined;
    if (!img.attrs.src)
      this.issues.push({
        doc: this.src.docId,
        severity: 'warning',
        code: 'missing_media',
        message: `${this.src.rel}: an <img> without src; the fragment is kept without media`,
      });
    return { kind: 'image', media, caption: caption?.text, label: caption?.label, alt: (img.attrs.alt ?? img.attrs.title ?? '').trim() || undefined };
  }

  /** If `el` is a block holding only one image (and maybe a link around it), that image. */
  private soloImage(el: HtmlNode): HtmlElement | undefined {
    if (!isElement(el)) return undefined;
    if (el.name === 'img') return el;
    if (!['p', 'div', 'a', 'span', 'center', 'picture'].includes(el.name)) return undefined;
    const imgs = findAll(el, ['img']);
    if (imgs.length !== 1 || normalize(textOf(el))) return undefined;
    return imgs[0];
  }

  /** A caption block following an image: a figure/italic caption line ("Figure 3: ..." or <em>...</em>). */
  private captionOf(el: HtmlNode | undefined, kind: 'figure' | 'table'): { text: string; label?: string } | undefined {
    if (!el || !isElement(el) || !['p', 'div', 'figcaption', 'em', 'i', 'span', 'small'].includes(el.name)) return undefined;
    const text = normalize(textOf(el)).replace(/\n+/g, ' ');
    if (!text || text.length > 600) return undefined;
    const meaningful = el.children.filter((c) => !(typeof c === 'string' && !c.trim()));
    const italic = ['em', 'i'].includes(el.name) || (meaningful.length === 1 && isElement(meaningful[0]) && ['em', 'i'].includes(meaningful[0].name));
    const cap = parseCaption(text, italic || el.name === 'figcaption');
    if (cap) return cap.kind === kind ? { text: cap.text, label: cap.label } : undefined;
    return kind === 'figure' && (italic || el.name === 'figcaption') ? { text } : undefined;
  }

  private table(t: HtmlElement, outerCaption?: { text: string; label?: string }): void {
    const { header, rows, caption } = tableRows(t);
    const cap =
      outerCaption ??
      (caption
        ? (() => {
            const c = parseCaption(caption, true);
            return { text: caption, label: c?.kind === 'table' ? c.label : undefined };
          })()
        : undefined);
    const table = makeTable(header, rows, this.maxRows);
    if (table.truncated)
      this.issues.push({
        doc: this.src.docId,
        severity: 'warning',
        code: 'table_truncated',
        message: `${this.src.rel}: a table with ${table.rowCount} rows was cut to its first ${this.maxRows} rows (raise maxTableRows to keep more)`,
      });
    if (!table.header.length && !table.rows.length) return;
    this.flush();
    this.b.media({ kind: 'table', table, caption: cap?.text, label: cap?.label });
  }

  private figure(fig: HtmlElement): void {
    const capEl = findAll(fig, ['figcaption'])[0];
    const capText = capEl ? normalize(textOf(capEl)).replace(/\n+/g, ' ') : '';
    const tables = findAll(fig, ['table'], ['table']);
    const imgs = findAll(fig, ['img']);
    this.flush();
    if (tables.length) {
      const c = capText ? parseCaption(capText, true) : undefined;
      for (const t of tables) this.table(t, capText ? { text: capText, label: c?.label } : undefined);
      return;
    }
    if (!imgs.length) {
      this.children(fig);
      this.flush();
      return;
    }
    const c = capText ? parseCaption(capText, true) : undefined;
    for (const img of imgs) this.b.media(this.imageBlock(img, capText ? { text: capText, label: c?.label } : undefined));
  }

  private children(el: HtmlElement): void {
    const kids = el.children;
    for (let k = 0; k < kids.length; k++) {
      const c = kids[k];
      if (!isElement(c)) {
        this.buf += c;
        continue;
      }
      if (DROP.has(c.name) || hidden(c)) continue;
      // Look-ahead for captions: the next element sibling (whitespace skipped).
      let nk = k + 1;
      while (nk < kids.length && typeof kids[nk] === 'string' && !(kids[nk] as string).trim()) nk++;
      const next = kids[nk];
      const solo = c.name !== 'figure' ? this.soloImage(c) : undefined;
      if (solo && (c.name !== 'img' || !normalize(this.buf))) {
        const cap = this.captionOf(next, 'figure');
        this.flush();
        this.b.media(this.imageBlock(solo, cap));
        if (cap) k = nk;
        continue;
      }
      if (c.name === 'img') {
        this.pendingImages.push(this.imageBlock(c));
        continue;
      }
      if (c.name === 'table' && !isLayoutTable(c)) {
        // A caption line after the table ("Table 2: ...") belongs to it.
        // (Only when the table has no <caption> of its own.)
        const ownCaption = c.children.some((x) => isElement(x) && x.name === 'caption');
        const cap = ownCaption ? undefined : this.captionOf(next, 'table');
        this.table(c, cap);
        if (cap) k = nk;
        continue;
      }
      if ((c.name === 'p' || c.name === 'div') && isElement(next) && next.name === 'table' && !isLayoutTable(next)) {
        const cap = this.captionOf(c, 'table');
        if (cap) {
          this.flush();
          this.table(next, cap);
          k = nk;
          continue;
        }
      }
      this.element(c);
    }
  }

  element(el: HtmlElement): void {
    const name = el.name;
    if (name === 'title') {
      this.title ??= normalize(el.children.filter((c): c is string => typeof c === 'string').join(' '));
      return;
    }
    if (DROP.has(name) || hidden(el)) return;
    const h = HEADING.exec(name);
    if (h) {
      this.flush();
      const t = normalize(textOf(el)).replace(/\n+/g, ' ');
      this.b.heading(Number(h[1]), t);
      return;
    }
    if (name === 'br') {
      this.buf += BR;
      return;
    }
    if (name === 'img') {
      this.pendingImages.push(this.imageBlock(el));
      return;
    }
    if (name === 'figure') {
      this.figure(el);
      return;
    }
    if (name === 'table') {
      if (isLayoutTable(el)) {
        this.flush();
        this.children(el);
        this.flush();
      } else this.table(el);
      return;
    }
    if (name === 'pre') {
      this.flush();
      this.b.text(normalizePre(el));
      return;
    }
    if (classList(el).some((c) => EXAMPLE_CLASSES.has(c))) {
      this.flush();
      this.b.example(normalize(textOf(el)));
      for (const img of findAll(el, ['img'])) this.b.media(this.imageBlock(img));
      return;
    }
    if (name === 'li') {
      this.flush();
      const parent = el.parent;
      const ordered = parent?.name === 'ol';
      const idx = parent ? parent.children.filter((x) => isElement(x) && x.name === 'li').indexOf(el) : 0;
      this.buf += ordered ? `${idx + 1}. ` : '- ';
      this.children(el);
      this.flush();
      return;
    }
    const block = BLOCK.has(name);
    if (block) this.flush();
    this.children(el);
    if (block) this.flush();
  }
}

function normalizePre(el: HtmlElement): string {
  return textOf(el, true)
    .split(BR)
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

export async function ingestHtml(file: string, opts: IngestOptions = {}): Promise<IngestResult> {
  const src = openSource(file, opts);
  const issues: IngestIssue[] = [];
  const decoded = decodeBytes(src.bytes, { html: true });
  if (decoded.warning) issues.push({ doc: src.docId, severity: 'warning', code: 'charset', message: `${src.rel}: ${decoded.warning}` });
  const root = parseHtml(decoded.text);
  const b = new FragmentBuilder(src.docId, fragmentSizes(opts));
  const w = new HtmlWalker(b, src, issues, opts.maxTableRows ?? DEFAULT_MAX_TABLE_ROWS);
  // <title> lives in <head>, which the walk drops: read it first.
  const titleEl = findAll(root, ['title'])[0];
  if (titleEl) w.title = normalize(titleEl.children.filter((c): c is string => typeof c === 'string').join(' '));
  w.element(root);
  w.flush();
  const fragments = b.finish();
  const h1 = findAll(root, ['h1'])[0];
  const title = w.title || (h1 ? normalize(textOf(h1)).replace(/\n+/g, ' ') : undefined) || b.firstHeading;
  return finishResult({ src, format: 'html', title, fragments, issues, stats: emptyStats(), meta: { encoding: decoded.encoding } });
}
