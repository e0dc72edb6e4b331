/**
 * Micro facts (u, r, v, asset) from tables and images (spec "Micro graph T_m"):
 *  - a table row gives (row entity, column header, cell) for each other column;
 *  - an image gives (image subject, category, value) for every "category: value"
 *    chart label in its OCR text, (subject, "shows", name) for the names in its
 *    caption (a VLM caption, an MMQA LLaVA caption or the printed one), and
 *    (subject, "text", token) for OCR words that look like names.
 * The subject of an image is its label/caption, else the document title. A VLM
 * parse of the image (the vision stage) enters through `imageFacts` as extra
 * lines of the same "category: value" shape.
 */
import type { Fragment } from '../../corpus/types';
import { entities } from '../../util/text-rules';

export interface RawMicroFact {
  u: string;
  r: string;
  v: string;
  fragmentId: string;
  kind: 'table' | 'image';
}

const MAX_ROWS = 200;
const MAX_OCR_NAMES = 12;
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

export function imageFacts(f: Fragment, docTitle: string, extraCaption?: string): RawMicroFact[] {
  const subject = (f.label || f.caption || docTitle).trim().slice(0, 120);
  const out: RawMicroFact[] = [];
  const push = (r: string, v: string) => v.trim() && out.push({ u: subject, r, v: v.trim(), fragmentId: f.id, kind: 'image' });
  for (const [cat, val] of labelPairs(f.ocrText ?? '')) push(cat, val);
  for (const cap of [f.caption, extraCaption]) for (const e of entities(cap ?? '')) push('shows', e);
  const ocrNames = entities(f.ocrText ?? '').slice(0, MAX_OCR_NAMES);
  for (const e of ocrNames) push('text', e);
  return out;
}

/** All micro facts of a document's fragments. `captions` adds machine captions by fragment id (e.g. MMQA LLaVA). */
export function microFacts(frags: Fragment[], docTitle: string, captions?: Map<string, string>): RawMicroFact[] {
  const out: RawMicroFact[] = [];
  for (const f of frags) {
    if (f.kind === 'table') out.push(...tableFacts(f));
    else if (f.kind === 'image') out.push(...imageFacts(f, docTitle, captions?.get(f.id)));
  }
  return out;
}
