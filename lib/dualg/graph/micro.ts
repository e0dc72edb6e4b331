/**
 * Micro facts (u, r, v, asset) from tables and images (spec "Micro graph T_m"):
 *  - a table row gives (row entity, column header, cell) for each other column;
 *  - an image gives (image subject, category, value) for every "category: value",
 *    "category value" or "value category" chart label in its OCR text (a value
 *    being a number, maybe with % or a currency sign), (subject, "shows", name) for the names in its
 *    caption (a VLM caption, an MMQA LLaVA caption or the printed one), and
 *    (subject, "text", token) for OCR words that look like names.
 * The subject of an image is its label/caption, else the document title. A VLM
 * parse of the image (the vision stage, graph setting microImages = "vision")
 * adds its own (subject, relation, object) facts: micro-vision.ts.
 *  - a text fragment on a page whose section, caption or label names a chart or
 *    figure gives the same label pairs (vector charts keep labels in the text);
 *  - a figure caption printed in the text ("Figure 1: ...") gives an anchor fact
 *    (Figure 1, "caption", text) when no image carries that label (textCaptionFacts).
 */
import type { Fragment } from '../../corpus/types';
import { entities } from '../../util/text-rules';
import { captionFacts } from '../offline/caption-facts';

export interface RawMicroFact {
  u: string;
  r: string;
  v: string;
  fragmentId: string;
  kind: 'table' | 'image';
}

const MAX_ROWS = 200;
const MAX_OCR_NAMES = 12;
const MAX_LABEL_WORDS = 6;
const NUMERIC = /^[-+$€£]?[\d.,]+%?$/;

function rowEntity(row: string[]): number {
  const i = row.findIndex((c) => c.trim() && !NUMERIC.test(c.trim()));
  return i < 0 ? 0 : i;
}

export function tableFacts(f: Fragment): RawMicroFact[] {
  const t = f.table;
  if (!t) return [];
  const out: RawMicroFact[] = [];
  for (const row of t.rows.slice(0, MAX_ROWS)) {
    const at = rowEntity(row);
    const u = (row[at] ?? '').trim();
    if (!u) continue;
    row.forEach((cell, c) => {
      const v = cell.trim();
      if (c === at || !v) return;
      out.push({ u, r: (t.header[c] ?? `column ${c + 1}`).trim() || `column ${c + 1}`, v, fragmentId: f.id, kind: 'table' });
    });
  }
  return out;
}

/** "category: value" lines (chart labels paired by the OCR layout, or a VLM's parse). */
function labelPairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of text.split(/\n|;\s+/)) {
    const m = /^\s*([^:]{1,60}?)\s*:\s*(.{1,60}?)\s*$/.exec(line);
    if (m) out.push([m[1], m[2]]);
  }
  return out;
}

const VALUE = /^[-+$€£]?\d[\d.,]*%?$/;

/**
 * "<label> <number>[%]" and "<number>[%] <label>" lines: how chart labels come out of the text layer of vector
 * charts ("Hispanic 81", "51% CDU/CSU"). The label needs a letter, at most 60 characters and MAX_LABEL_WORDS
 * words (set a priori, not tuned: chart labels are short, prose lines ending in a number are not).
 */
function numberLabelPairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*([^:\d][^:]{0,59}?)\s+([-+$€£]?\d[\d.,]*%?)\s*$/.exec(line) ?? /^\s*([-+$€£]?\d[\d.,]*%?)\s+([^:\d][^:]{0,59}?)\s*$/.exec(line);
    if (!m) continue;
    const [label, value] = /\d/.test(m[1][0]) || /^[-+$€£]/.test(m[1]) ? [m[2], m[1]] : [m[1], m[2]];
    if (/\p{L}/u.test(label) && label.split(/\s+/).length <= MAX_LABEL_WORDS) out.push([label, value]);
  }
  return out;
}

/**
 * Chart OCR runs several labels into one line ("Greens 45 SPD 47", "Democrats Lean Dem 17"): each run of up to
 * MAX_LABEL_WORDS words followed by a number is a pair; a longer run, or one broken by punctuation, is not a label.
 */
function inlineLabelPairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of text.split('\n')) {
    if (line.includes(':')) continue; // "category: value" lines are labelPairs'
    let words: string[] = [];
    for (const tok of line.trim().split(/\s+/)) {
      if (VALUE.test(tok) && words.length && words.length <= MAX_LABEL_WORDS) out.push([words.join(' '), tok]);
      words = VALUE.test(tok) || !/\p{L}/u.test(tok) ? [] : [...words, tok];
    }
  }
  return out;
}

/** Facts of chart labels in a fragment's text: image OCR (labels may share a line) or a vector chart's text layer. */
function chartLabelFacts(f: Fragment, subject: string, text: string, ocr: boolean): RawMicroFact[] {
  const pairs = [...labelPairs(text), ...(ocr ? inlineLabelPairs(text) : numberLabelPairs(text))];
  const seen = new Set<string>();
  return pairs
    .filter(([r, v]) => v.trim() && !seen.has(`${r}\u0000${v}`) && seen.add(`${r}\u0000${v}`))
    .map(([r, v]) => ({ u: subject, r, v: v.trim(), fragmentId: f.id, kind: 'image' as const }));
}

export function imageFacts(f: Fragment, docTitle: string, extraCaption?: string): RawMicroFact[] {
  const subject = (f.label || f.caption || docTitle).trim().slice(0, 120);
  const out: RawMicroFact[] = chartLabelFacts(f, subject, f.ocrText ?? '', true);
  const push = (r: string, v: string) => v.trim() && out.push({ u: subject, r, v: v.trim(), fragmentId: f.id, kind: 'image' });
  for (const cap of [f.caption, extraCaption]) for (const e of entities(cap ?? '')) push('shows', e);
  // A machine caption (MMQA LLaVA) names few entities; its content phrases and their links are facts too.
  if (extraCaption) {
    const known = new Set(out.map((x) => `${x.r}\u0000${x.v}`));
    for (const [u, r, v] of captionFacts(subject, extraCaption)) if (!known.has(`${r}\u0000${v}`)) out.push({ u, r, v, fragmentId: f.id, kind: 'image' });
  }
  const ocrNames = entities(f.ocrText ?? '').slice(0, MAX_OCR_NAMES);
  for (const e of ocrNames) push('text', e);
  return out;
}

/** All micro facts of a document's fragments. `captions` adds machine captions by fragment id (e.g. MMQA LLaVA). */
export function microFacts(frags: Fragment[], docTitle: string, captions?: Map<string, string>): RawMicroFact[] {
  const out: RawMicroFact[] = [];
  const chartPages = pagesMentioningCharts(frags);
  for (const f of frags) {
    if (f.kind === 'table') out.push(...tableFacts(f));
    else if (f.kind === 'image') out.push(...imageFacts(f, docTitle, captions?.get(f.id)));
    else if (f.kind === 'text' && f.page !== undefined && chartPages.has(f.page)) {
      // A vector chart (e.g. in a Pew report) has no image fragment: its labels sit in the page's text layer.
      out.push(...chartLabelFacts(f, (f.section.at(-1) || docTitle).trim().slice(0, 120), f.text, false));
    }
  }
  out.push(...textCaptionFacts(frags));
  return out;
}

/** "Figure 3: ...", "Fig. 3." opening a line: a printed figure caption (a sentence such as "Figure 3 shows" is not one). */
const CAPTION_LINE = /^\s*fig(?:ure)?\.?\s*(\d+)\s*[:.](.*)$/i;

/** The figure anchor a caption or label opens with ("Figure 3: Results" -> "Figure 3"), else undefined. */
export function figureAnchor(text: string): string | undefined {
  const m = /^\s*fig(?:ure)?\.?\s*(\d+)\b/i.exec(text);
  return m ? `Figure ${Number(m[1])}` : undefined;
}

/**
 * Figure captions left in the page text ("Figure 1: A demonstration of ..."): the PDF text layer often keeps the
 * caption as text and the image fragment unlabelled, so no micro fact names the figure. Each caption line whose
 * figure no image fragment of the document is labelled with gives an anchor fact (Figure N, "caption", caption
 * text) on the text fragment holding it, i.e. on the figure's page.
 */
export function textCaptionFacts(frags: Fragment[]): RawMicroFact[] {
  const labelled = new Set(frags.filter((f) => f.kind === 'image').map((f) => figureAnchor(f.label || f.caption || '')));
  const out: RawMicroFact[] = [];
  for (const f of frags) {
    if (f.kind !== 'text') continue;
    for (const line of f.text.split('\n')) {
      const m = CAPTION_LINE.exec(line);
      const u = m && `Figure ${Number(m[1])}`;
      if (!u || labelled.has(u)) continue;
      out.push({ u, r: 'caption', v: (m[2].trim() || u).slice(0, 120), fragmentId: f.id, kind: 'image' });
    }
  }
  return out;
}

const CHART_WORDS = /\b(chart|charts|figure|fig\.|graph)\b/i;

/** Pages where a fragment's section, caption or label names a chart or figure. */
function pagesMentioningCharts(frags: Fragment[]): Set<number> {
  const out = new Set<number>();
  for (const f of frags) {
    if (f.page !== undefined && CHART_WORDS.test([...f.section, f.caption ?? '', f.label ?? ''].join(' '))) out.add(f.page);
  }
  return out;
}
