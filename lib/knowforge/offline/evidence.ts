/**
 * Evidence for the offline reader: the numbered materials of a synthesizer
 * task turned into small, typed facts.
 *
 * - sentence  a sentence of a text block (or of a caption / reading note)
 * - kv        an attribute-value pair: a row of a two-column attribute table
 *             ("Manufacturer | Acme"), or a "Key: value" pair of OCR'd or
 *             written text ("Profession: architect")
 * - row       a row of a data table, as "Header: cell; ..." (also a Series row)
 * - ocr       an OCR line that is neither (kept for plain matching)
 *
 * and series: data tables and charts whose OCR text holds a run of years and
 * an equally long run of values ("Revenue 755 689 ... 2016 2017 ..."), or
 * "2015: 353,200" label-value lines, as (header, rows) so the reader can pick a
 * row by year, a maximum, or the rows above a threshold.
 *
 * Every fact knows its block's subject: the document title of the block's
 * source ("Acme Corp › History" -> Acme Corp), or the named thing of a table
 * caption ("Key facts about X"), which is what the fact is about unless it
 * names something else.
 */
import type { Material, SynthTask } from './tasks';
import { wordKey } from './lexicon';
import { entities, sentences, tokens } from '../../util/text-rules';

export type FactKind = 'sentence' | 'kv' | 'row' | 'ocr' | 'note';

export interface Fact {
  id: number;
  /** Citation as rendered in the pool: [3] or [fig 2]. */
  ref: string;
  block: number;
  kind: FactKind;
  text: string;
  /** The named thing the fact is about (block subject, table subject). */
  subject?: string;
  /** kv: attribute name; row: the row's text. */
  key?: string;
  /** kv: the value as written. */
  value?: string;
  /** Word keys of what matches relation terms (kv: the attribute; otherwise the text). */
  keys: Set<string>;
  /** The series this row belongs to. */
  series?: Series;
}

export interface Series {
  ref: string;
  block: number;
  subject?: string;
  /** Caption / chart title / label before the values. */
  title: string;
  header: string[];
  rows: string[][];
  /** Word keys of the title and header. */
  keys: Set<string>;
}

export interface Evidence {
  facts: Fact[];
  series: Series[];
  /** Per block: subject and citation. */
  blocks: { ref: string; subject?: string; kind: string }[];
}

/** Citation of a material as the pool renders it. */
export function citation(m: Material): string {
  const n = String(m.n);
  if (/^(fig|\[)/i.test(n)) return n.startsWith('[') ? n : `[${n}]`;
  return m.kind === 'image' || m.kind === 'table' ? `[fig ${n}]` : `[${n}]`;
}

/** Parse a Markdown table (| a | b |) into header + rows; undefined when the text holds none. */
export function parseMarkdownTable(text: string): { header: string[]; rows: string[][] } | undefined {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('|'));
  if (lines.length < 2) return undefined;
  const split = (l: string) =>
    l
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
  const header = split(lines[0]);
  const body = lines.slice(1).filter((l) => !/^\|?\s*:?-{2,}/.test(l));
  return { header, rows: body.map(split) };
}

/** Normalised form of a name for comparisons: lower case, no article, no parenthetical, single spaces. */
const NORM_CACHE = new Map<string, string>();

export function normName(s: string): string {
  const hit = NORM_CACHE.get(s);
  if (hit !== undefined) return hit;
  const n = computeNorm(s);
  if (NORM_CACHE.size > 20000) NORM_CACHE.clear();
  NORM_CACHE.set(s, n);
  return n;
}

function computeNorm(s: string): string {
  return s
    .toLowerCase()
    .replace(/\([^)]*\)/g, ' ')
    .replace(/^\s*(?:the|a|an)\s+/, '')
    .replace(/[^a-z0-9\u00c0-\u024f]+/g, ' ')
    .trim();
}

/** Do two names denote the same thing? Equal, or the shorter (two words or more) is a whole-word part of the longer. */
export function sameName(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const x = normName(a);
  const y = normName(b);
  if (!x || !y) return false;
  if (x === y) return true;
  const [s, l] = x.length <= y.length ? [x, y] : [y, x];
  if (!s.includes(' ')) return false;
  if (` ${l} `.includes(` ${s} `)) return true;
  // "Grant Hill" / "Grant Henry Hill": same first and last word, the rest inside.
  const sw = s.split(' ');
  const lw = l.split(' ');
  return sw[0] === lw[0] && sw[sw.length - 1] === lw[lw.length - 1] && sw.every((w) => lw.includes(w));
}

/** Does a text mention a name (whole words, case-insensitive, article and parenthetical ignored)? */
export function mentions(text: string, name: string): boolean {
  const n = normName(name);
  if (!n) return false;
  return ` ${normName(text)} `.includes(` ${n} `);
}

const FUNCTION_CAPS = new Set([
  'the',
  'a',
  'an',
  'in',
  'on',
  'at',
  'of',
  'for',
  'by',
  'from',
  'to',
  'and',
  'or',
  'but',
  'as',
  'with',
  'this',
  'that',
  'these',
  'its',
  'his',
  'her',
  'their',
  'is',
  'was',
  'when',
  'while',
  'after',
  'before',
  'since',
  'during',
  'although',
  'worked',
  'example',
  'note',
]);

/**
 * How a text names a thing: 1 when it names it on its own, 0.3 when only as
 * part of a longer name ("New York" for "York"), 0 when not at all.
 */
export function mentionStrength(text: string, name: string): number {
  // Most facts do not name the thing at all: a cheap check first.
  if (!mentions(text, name)) return 0;
  const n = name
    .replace(/\([^)]*\)/g, ' ')
    .replace(/^\s*(?:the|a|an)\s+/i, '')
    .trim();
  if (!n) return 0;
  const esc = n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  let found = false;
  for (const m of text.matchAll(new RegExp(`(^|[^\\w\u00c0-\u024f])(${esc})(?=$|[^\\w\u00c0-\u024f])`, 'gi'))) {
    found = true;
    const start = m.index! + m[1].length;
    const prev = /([A-Za-z\u00c0-\u024f][\w'’-]*)\s+$/.exec(text.slice(Math.max(0, start - 30), start));
    const next = /^\s+([A-Za-z\u00c0-\u024f][\w'’-]*)/.exec(text.slice(start + m[2].length, start + m[2].length + 30));
    const capPrev = prev && /^[A-Z]/.test(prev[1]) && !FUNCTION_CAPS.has(prev[1].toLowerCase());
    const capNext = next && /^[A-Z]/.test(next[1]) && !FUNCTION_CAPS.has(next[1].toLowerCase());
    if (!capPrev && !capNext) return 1;
  }
  return found ? 0.3 : 1;
}

function subjectOfSource(source: string | undefined): string | undefined {
  if (!source) return undefined;
  const first = source
    .split(/\s*›\s*/)[0]
    .replace(/\s*·\s*p\.\s*\d+.*$/, '')
    .trim();
  return first ? first.replace(/^(?:the|a|an)\s+/i, '') : undefined;
}

/** The named thing a caption is about ("Key facts about X", "Population of X at each census"). */
function subjectOfCaption(caption: string | undefined): string | undefined {
  if (!caption) return undefined;
  const body = caption.replace(/^(?:table|figure|fig\.?|chart|image)\s*\d*[:.]\s*/i, '');
  const m = /\b(?:about|of|for|by)\s+(?:the\s+)?([A-Z][^,.;:]*?)(?:\s+(?:at|in|per|by|from|for|over|during|each)\b|[,.;:]|$)/.exec(body);
  if (m) return m[1].trim();
  return entities(body)[0];
}

const DESCRIBER_LINE = /\bColumns:|\bFirst rows:|\b\d+ rows? x \d+ columns?\b/;
const KEY_VALUE = /(?:^|\s)([A-Z][a-z][\w'-]*(?:\s+[a-z][\w'-]*){0,3}(?:\s+\([^)]{1,30}\))?)\s*:\s+/g;
const YEAR = /^(?:1[0-9]{3}|20[0-9]{2})$/;
const NUM_TOKEN = /^[$€£]?-?\d[\d,]*(?:\.\d+)?%?$/;

/** "Key: value Key2: value2" (OCR of a profile card, a spec sheet) -> pairs; values of at most 8 words. */
export function keyValuePairs(line: string): { key: string; value: string }[] {
  const starts: { key: string; at: number; valueAt: number }[] = [];
  for (const m of line.matchAll(KEY_VALUE)) {
    const lead = m[0].length - m[0].trimStart().length;
    starts.push({ key: m[1].trim(), at: m.index! + lead, valueAt: m.index! + m[0].length });
  }
  const out: { key: string; value: string }[] = [];
  starts.forEach((s, i) => {
    const end = i + 1 < starts.length ? starts[i + 1].at : line.length;
    const value = line
      .slice(s.valueAt, end)
      .trim()
      .replace(/[.;,]+$/, '');
    const words = value.split(/\s+/).filter(Boolean);
    if (!value || words.length > 8 || YEAR.test(s.key)) return;
    // A run of numbers is a chart's data, not one attribute value.
    if (words.filter((w) => NUM_TOKEN.test(w)).length > 2) return;
    out.push({ key: s.key, value });
  });
  return out;
}

/**
 * Chart values from OCR text: "Label 2015: 353,200" pairs (grouped by their
 * label), or a run of k ascending years next to a run of k other numbers (bar
 * labels and axis ticks, in the same left-to-right order). Returns
 * [year, value] rows with the label words before the numbers.
 */
export function chartSeries(text: string): { label: string; rows: [string, string][] }[] {
  const byLabel = new Map<string, [string, string][]>();
  let lastLabel = '';
  for (const line of text.split('\n')) {
    for (const m of line.matchAll(/(?:^|[;,|]\s*|\s)([A-Za-z][A-Za-z ()%-]*?)?\s*\b(1[0-9]{3}|20[0-9]{2})\s*[:=]\s*([$€£]?-?\d[\d,]*(?:\.\d+)?%?)/g)) {
      const label = (m[1] ?? '').trim() || lastLabel;
      lastLabel = label;
      const rows = byLabel.get(label) ?? [];
      rows.push([m[2], m[3]]);
      byLabel.set(label, rows);
    }
  }
  if ([...byLabel.values()].some((r) => r.length >= 1) && [...byLabel.values()].reduce((n, r) => n + r.length, 0) >= 2) {
    return [...byLabel].map(([label, rows]) => ({ label, rows }));
  }
  const words = text.split(/\s+/).filter(Boolean);
  const out: { label: string; rows: [string, string][] }[] = [];
  // Maximal runs of numeric tokens.
  for (let i = 0; i < words.length; i++) {
    if (!NUM_TOKEN.test(words[i])) continue;
    let j = i;
    while (j < words.length && NUM_TOKEN.test(words[j])) j++;
    const run = words.slice(i, j);
    if (run.length >= 4) {
      // The ascending year sub-run at the end or at the start of the run.
      const isYear = (w: string) => YEAR.test(w);
      let ys = 0;
      while (ys < run.length && isYear(run[run.length - 1 - ys]) && (ys === 0 || Number(run[run.length - 1 - ys]) < Number(run[run.length - ys]))) ys++;
      let yearsAtEnd = true;
      if (ys * 2 !== run.length) {
        ys = 0;
        while (ys < run.length && isYear(run[ys]) && (ys === 0 || Number(run[ys]) > Number(run[ys - 1]))) ys++;
        yearsAtEnd = false;
      }
      if (ys >= 2 && ys * 2 === run.length) {
        const yrs = yearsAtEnd ? run.slice(run.length - ys) : run.slice(0, ys);
        const vals = yearsAtEnd ? run.slice(0, ys) : run.slice(ys);
        // Values read BEFORE the axis ticks are labels above bars or points: OCR reads them by
        // height (top to bottom, clusters of similar height together), not left to right, so
        // which value belongs to which year is unknown. Only a row of values printed after
        // the ticks (a value row under the axis) pairs up in order.
        if (yearsAtEnd) {
          i = j;
          continue;
        }
        out.push({ label: words.slice(0, i).join(' '), rows: yrs.map((y, k) => [y, vals[k]] as [string, string]) });
      }
    }
    i = j;
  }
  return out;
}

function keysOf(text: string): Set<string> {
  return new Set(tokens(text).map(wordKey));
}

/**
 * A header that swallowed the first data row (a PDF table extraction fault):
 * "Attribute Chief executive | Value Jane Roe" -> [Chief executive, Jane Roe].
 * Only when one attribute was swallowed (one capitalised word starts the rest);
 * with two, the values cannot be told apart.
 */
export function swallowedRow(header: string[]): [string, string] | undefined {
  if (header.length !== 2) return undefined;
  const k = /^(?:attribute|field|property|item|key|characteristic|fact)\s+(.+)$/i.exec(header[0].trim());
  const v = /^(?:value|details?|data|information)\s+(.+)$/i.exec(header[1].trim());
  if (!k || !v) return undefined;
  const key = k[1].trim();
  if (!/^[A-Z][a-z]+(?:\s+[a-z(][\w()-]*)*$/.test(key)) return undefined;
  return [key, v[1].trim()];
}

/** Is a two-column table an attribute table (first column names attributes) rather than data? */
function isAttributeTable(header: string[], rows: string[][]): boolean {
  if (header.length !== 2 || !rows.length) return false;
  const numericFirst = rows.filter((r) => NUM_TOKEN.test((r[0] ?? '').trim())).length;
  return numericFirst < rows.length / 2;
}

export function buildEvidence(task: Pick<SynthTask, 'materials' | 'notes'>): Evidence {
  const facts: Fact[] = [];
  const series: Series[] = [];
  const blocks: Evidence['blocks'] = [];
  const seenText = new Set<string>();
  const add = (f: Omit<Fact, 'id' | 'keys'> & { keys?: Set<string> }) => {
    const dedupe = `${f.kind}|${f.subject ?? ''}|${f.text}`;
    if (seenText.has(dedupe)) return;
    seenText.add(dedupe);
    facts.push({ ...f, id: facts.length, keys: f.keys ?? keysOf(f.kind === 'kv' ? (f.key ?? '') : f.text) });
  };
  const addSeries = (s: Omit<Series, 'keys'>) => {
    const full: Series = { ...s, keys: keysOf(`${s.title} ${s.header.join(' ')}`) };
    series.push(full);
    for (const row of s.rows) {
      const text = row.map((c, i) => (s.header[i] ? `${s.header[i]}: ${c}` : c)).join('; ');
      add({ ref: s.ref, block: s.block, kind: 'row', text, subject: s.subject, key: text, series: full, keys: keysOf(`${s.title} ${s.header.join(' ')}`) });
    }
  };

  (task.materials ?? []).forEach((m, block) => {
    const ref = citation(m);
    const captionSubject = subjectOfCaption(m.caption);
    const sourceSubject = subjectOfSource(m.source);
    const subject = sourceSubject ?? captionSubject;
    blocks.push({ ref, subject, kind: m.kind });
    let text = m.text ?? '';
    let ocr = m.ocrText ?? '';
    // Media descriptions repeat the OCR after "Text in the image:"; keep one copy.
    const tii = /Text in the image:\s*/i.exec(text);
    if (tii) {
      if (!ocr.trim()) ocr = text.slice(tii.index + tii[0].length);
      text = text.slice(0, tii.index);
    }
    const table = m.table ?? (m.kind === 'table' || text.includes('|') ? parseMarkdownTable(text) : undefined);
    if (table)
      text = text
        .split('\n')
        .filter((l) => !l.trim().startsWith('|'))
        .join('\n');
    if (table && table.rows.length) {
      const tableSubject =
        captionSubject && !sameName(captionSubject, sourceSubject) && !/\b(?:each|per|by)\b/i.test(captionSubject) ? captionSubject : subject;
      if (isAttributeTable(table.header, table.rows)) {
        const swallowed = swallowedRow(table.header);
        if (swallowed) add({ ref, block, kind: 'kv', text: `${swallowed[0]}: ${swallowed[1]}`, subject: tableSubject, key: swallowed[0], value: swallowed[1] });
        for (const [k, v] of table.rows) if (k && v) add({ ref, block, kind: 'kv', text: `${k}: ${v}`, subject: tableSubject, key: k, value: v });
      } else {
        addSeries({ ref, block, subject: tableSubject, title: m.caption ?? '', header: table.header, rows: table.rows });
      }
    }
    // Prose: caption + text, without the table describer's summary lines.
    const prose = [m.caption && !text.includes(m.caption) ? m.caption : '', text].filter(Boolean).join('\n\n');
    for (const s of sentences(prose)) {
      if (table && DESCRIBER_LINE.test(s)) continue;
      const pairs = s.length < 200 ? keyValuePairs(s) : [];
      for (const p of pairs) add({ ref, block, kind: 'kv', text: `${p.key}: ${p.value}`, subject, key: p.key, value: p.value });
      add({ ref, block, kind: 'sentence', text: s, subject });
    }
    // OCR: key-value pairs, a chart series, and the lines themselves.
    if (ocr.trim()) {
      for (const chart of chartSeries(ocr)) {
        const label = `${m.caption ?? ''} ${chart.label}`.trim();
        const measure = chart.label.split(/\s+/).slice(-4).join(' ') || 'Value';
        addSeries({ ref, block, subject, title: label, header: ['Year', measure], rows: chart.rows });
      }
      for (const line of ocr.split('\n')) {
        const l = line.trim();
        if (!l) continue;
        for (const p of keyValuePairs(l)) add({ ref, block, kind: 'kv', text: `${p.key}: ${p.value}`, subject, key: p.key, value: p.value });
        add({ ref, block, kind: 'ocr', text: l, subject });
      }
    }
  });
  (task.notes ?? []).forEach((note, i) => {
    const ref = `[note ${i + 1}]`;
    blocks.push({ ref, kind: 'note' });
    for (const line of note.split('\n')) {
      for (const s of sentences(line.replace(/^\s*(?:where|answer|note)\s*:\s*/i, ''))) {
        for (const p of keyValuePairs(s)) add({ ref, block: blocks.length - 1, kind: 'kv', text: `${p.key}: ${p.value}`, key: p.key, value: p.value });
        add({ ref, block: blocks.length - 1, kind: 'note', text: s });
      }
    }
  });
  return { facts, series, blocks };
}
