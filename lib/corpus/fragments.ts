/**
 * FragmentBuilder: the one place where fragments get their ids, reading-order
 * neighbours, section paths and media attachments, whatever the source format.
 * Parsers feed it headings, paragraphs, examples and media in reading order.
 *
 * Rules (shared by all formats, so the index sees one behaviour):
 * - consecutive paragraphs of one section (and one page) are packed into text
 *   fragments of ~target chars, never over max (lib/corpus/split.ts);
 * - a heading, a page change, an example or a media block closes the current text
 *   fragment, so reading order is kept exactly;
 * - an image/table is attached to the nearest PRECEDING prose fragment (text or
 *   worked example) of the same section; when the section has none before it, to
 *   the nearest following one of the same section; otherwise it stays unattached;
 * - id = `${docId}#${ordinal}`: same input and options -> same ids.
 */
import type { Fragment, MediaAsset, TableData } from './types';
import type { ResolvedSizes } from './options';
import { splitProse } from './split';
import { tableToText } from './table';

export interface MediaBlock {
  kind: 'image' | 'table';
  page?: number;
  media?: MediaAsset;
  table?: TableData;
  caption?: string;
  label?: string;
  /** Alt text of an image (HTML/Markdown). */
  alt?: string;
  ocrText?: string;
  /** Retrieval text; default: caption/alt for images, caption + Markdown rendering for tables. */
  text?: string;
}

type Draft = Omit<Fragment, 'id' | 'ordinal' | 'prev' | 'next' | 'attached' | 'anchor'>;

interface Pending {
  paras: string[];
  page?: number;
  section: string[];
}

export function sameSection(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** Default retrieval text of an image block before any description step. */
export function imageSourceText(b: { caption?: string; alt?: string; label?: string; page?: number; ocrText?: string }): string {
  const parts: string[] = [];
  if (b.caption) parts.push(b.caption);
  else if (b.label) parts.push(b.label);
  if (b.alt && !(b.caption ?? '').includes(b.alt)) parts.push(b.alt);
  if (!parts.length) parts.push(b.page ? `Image on page ${b.page}` : 'Image');
  return parts.join('\n');
}

export class FragmentBuilder {
  private stack: { level: number; title: string }[] = [];
  private drafts: Draft[] = [];
  private pending: Pending | null = null;
  /** First heading seen (document title candidate). */
  firstHeading?: string;

  constructor(
    readonly docId: string,
    readonly sizes: ResolvedSizes,
  ) {}

  section(): string[] {
    return this.stack.map((s) => s.title);
  }

  /** Open a heading of level 1..6: closes deeper or equal headings. */
  heading(level: number, title: string): void {
    const t = title.replace(/\s+/g, ' ').trim();
    if (!t) return;
    this.flush();
    if (this.firstHeading === undefined) this.firstHeading = t;
    while (this.stack.length && this.stack[this.stack.length - 1].level >= level) this.stack.pop();
    this.stack.push({ level, title: t.length > 200 ? t.slice(0, 197) + '...' : t });
  }

  /** Leave every open section (a new slide of a deck without headings starts from nothing). */
  resetSections(): void {
    this.flush();
    this.stack = [];
  }

  /** One paragraph of prose, in reading order. */
  text(paragraph: string, page?: number): void {
    const p = paragraph.trim();
    if (!p) return;
    const section = this.section();
    if (this.pending && (this.pending.page !== page || !sameSection(this.pending.section, section))) this.flush();
    if (!this.pending) this.pending = { paras: [], page, section };
    this.pending.paras.push(p);
    // Keep memory bounded for huge documents: emit full pieces early, keep the tail pending.
    if (this.pending.paras.length > 64) this.flush();
  }

  /** A worked example: its own fragment(s), kind `example`. */
  example(text: string, page?: number): void {
    const t = text.trim();
    if (!t) return;
    this.flush();
    for (const piece of splitProse(t, this.sizes.target, this.sizes.max)) {
      this.drafts.push({ docId: this.docId, kind: 'example', text: piece, page, section: this.section() });
    }
  }

  media(b: MediaBlock): void {
    this.flush();
    const text = b.text ?? (b.kind === 'table' && b.table ? tableToText(b.table, b.caption) : imageSourceText(b));
    const d: Draft = { docId: this.docId, kind: b.kind, text, page: b.page, section: this.section(), describedBy: 'source' };
    if (b.media) d.media = b.media;
    if (b.table) d.table = b.table;
    if (b.caption) d.caption = b.caption;
    if (b.label) d.label = b.label;
    if (b.ocrText) d.ocrText = b.ocrText;
    this.drafts.push(d);
  }

  /** Close the current text fragment(s). */
  flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    for (const piece of splitProse(p.paras.join('\n\n'), this.sizes.target, this.sizes.max)) {
      this.drafts.push({ docId: this.docId, kind: 'text', text: piece, page: p.page, section: p.section });
    }
  }

  /** Number of fragments so far (for tests and progress). */
  get size(): number {
    return this.drafts.length + (this.pending ? 1 : 0);
  }

  finish(): Fragment[] {
    this.flush();
    const frags: Fragment[] = this.drafts.map((d, i) => {
      const f: Fragment = { id: `${this.docId}#${i}`, ordinal: i, attached: [], ...d };
      if (f.page === undefined) delete f.page;
      return f;
    });
    for (let i = 0; i < frags.length; i++) {
      if (i > 0) frags[i].prev = frags[i - 1].id;
      if (i + 1 < frags.length) frags[i].next = frags[i + 1].id;
    }
    attachMedia(frags);
    return frags;
  }
}

const isProse = (f: Fragment) => f.kind === 'text' || f.kind === 'example';

/** Attach each image/table to the nearest preceding prose fragment of its section (else the next one). */
export function attachMedia(frags: Fragment[]): void {
  for (let i = 0; i < frags.length; i++) {
    const m = frags[i];
    if (isProse(m)) continue;
    let anchor: Fragment | undefined;
    for (let j = i - 1; j >= 0 && sameSection(frags[j].section, m.section); j--) {
      if (isProse(frags[j])) {
        anchor = frags[j];
        break;
      }
    }
    if (!anchor) {
      for (let j = i + 1; j < frags.length && sameSection(frags[j].section, m.section); j++) {
        if (isProse(frags[j])) {
          anchor = frags[j];
          break;
        }
      }
    }
    if (anchor) {
      m.anchor = anchor.id;
      anchor.attached.push(m.id);
    }
  }
}
