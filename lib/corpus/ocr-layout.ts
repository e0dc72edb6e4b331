/**
 * Layout-aware text of an OCR result, rebuilt from tesseract's word boxes.
 *
 * Why: tesseract orders what it reads by its own text lines, which follow
 * height. On a bar chart the value labels printed above the bars come out
 * tallest bar first, far from the x-axis labels they belong to, so "2016: 544"
 * can no longer be read from the text. Here the words are regrouped into
 * visual rows (y overlap; rows top to bottom, words left to right), and chart
 * axes are recognised by geometry alone: a row of short, regularly spaced
 * category labels (years, names) with numeric labels above it, each value
 * horizontally aligned with exactly one category. Such a chart adds explicit
 * "<category>: <value>" lines (in category order) to the plain rows, which the
 * offline reader (lib/knowforge/offline/evidence.ts chartSeries) reads as a series.
 *
 * Columns: rows are built per region. A region is a tesseract paragraph, and
 * sparse paragraphs (labels, numbers, table cells: few words per line) that
 * share a visual row are merged into one region, so a label column and the
 * value column beside it read as rows. Dense paragraphs (running text) stay
 * their own region, so two text paragraphs side by side are never interleaved
 * line by line. Regions keep tesseract's paragraph order.
 *
 * Missed labels: tesseract's line finding drops some value labels printed at
 * staggered heights. When an axis lacks values, lib/corpus/ocr.ts runs a second,
 * sparse-text pass (wantsSparseNumbers says when); its numbers are offered to
 * chart pairing only, never to the plain rows.
 *
 * Pure geometry: no OCR, no file access (the unit tests feed synthetic boxes).
 * Both OCR paths use it: lib/corpus/ocr.ts (index time) and
 * lib/corpus/offline/ocr-service.ts (the offline vision and caption roles).
 */

export type Box = [number, number, number, number];

/** A recognised word: text, tesseract confidence 0-100, pixel box x0, y0, x1, y1. */
export interface LayoutWord {
  text: string;
  conf: number;
  bbox: Box;
}

/** What the layout reads: tesseract paragraphs of lines of words (lib/corpus/ocr.ts OcrPage fits). */
export interface LayoutSource {
  paragraphs: { lines: { words: LayoutWord[] }[] }[];
  /**
   * Numbers found by a second, sparse-text recognition pass (see
   * wantsSparseNumbers): chart pairing uses those where the first pass has no
   * confident word; the plain rows never include them. Absent or null: no pass.
   */
  sparseNumbers?: LayoutWord[] | null;
}

/** One explicit pair of a chart: the x-axis label and the value label aligned with it. */
export interface ChartPair {
  category: string;
  value: string;
  categoryBox: Box;
  valueBox: Box;
  /** The lower of the two cells' confidences. */
  conf: number;
}

export interface ChartReading {
  /** In category (left to right) order. */
  pairs: ChartPair[];
  /** Index of the x-axis label row among the rows findCharts was given (top to bottom). */
  axisRow: number;
  /** The axis labels and the values paired. */
  bbox: Box;
  /** The words of the paired axis labels (identity: the same objects as in the rows). */
  axisWords: LayoutWord[];
}

export interface OcrRow {
  words: LayoutWord[];
  text: string;
  bbox: Box;
  /** Height of the row's box (font size proxy). */
  height: number;
  /** Mean word confidence. */
  conf: number;
  /** Region (see the file comment) the row belongs to; rows of one region are consecutive. */
  region: number;
  /**
   * The region merged paragraphs side by side (a table, a chart, a label
   * column beside a value column): its rows are records, not the wrapped lines
   * of one paragraph.
   */
  table: boolean;
}

export interface OcrLayoutLine {
  text: string;
  bbox: Box;
  height: number;
  conf: number;
  /** A visual row of words, or an explicit chart pair. */
  kind: 'row' | 'pair';
  region: number;
  /** See OcrRow.table (pairs: false). */
  table: boolean;
}

export interface OcrLayout {
  /** Rows in reading order. */
  rows: OcrRow[];
  charts: ChartReading[];
  /** Rows, each chart's pairs inserted right after the last row holding its axis labels. */
  lines: OcrLayoutLine[];
  /** `lines` joined by newlines. */
  text: string;
}

/**
 * Version of the text this module derives from word boxes. Anything that
 * caches derived OCR text (not the raw word boxes) must key on it, so a
 * layout change recomputes the text instead of silently reusing the old one.
 */
export const OCR_LAYOUT_VERSION = 'rows-chartpairs-v1';

const cx = (b: Box) => (b[0] + b[2]) / 2;
const cy = (b: Box) => (b[1] + b[3]) / 2;
const bh = (b: Box) => Math.max(1, b[3] - b[1]);
const bw = (b: Box) => Math.max(1, b[2] - b[0]);

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function unionBox(boxes: Box[]): Box {
  return [Math.min(...boxes.map((b) => b[0])), Math.min(...boxes.map((b) => b[1])), Math.max(...boxes.map((b) => b[2])), Math.max(...boxes.map((b) => b[3]))];
}

/**
 * Words kept per tesseract paragraph: words under `minConf` are dropped, and a
 * paragraph is dropped whole when less than half of its letters survive (photos
 * and textures give short low-confidence noise) or when nothing in it is a word
 * of 2+ letters or digits or a number. Empty words are ignored. First pass
 * only: the sparse pass's numbers serve chart pairing alone (see ocrLayout).
 */
export function confidentParagraphs(src: LayoutSource, minConf: number): LayoutWord[][] {
  const out: LayoutWord[][] = [];
  for (const p of src.paragraphs) {
    const words = p.lines.flatMap((l) => l.words).filter((w) => w.text.trim());
    const all = words.reduce((k, w) => k + w.text.length, 0);
    const good = words.filter((w) => w.conf >= minConf).map((w) => ({ ...w, text: w.text.trim() }));
    const kept = good.reduce((k, w) => k + w.text.length, 0);
    // A paragraph of only stray marks ("|", "=", a logo read as "I") is noise; a lone number is not (a value label).
    const meaningful = good.some((w) => /[A-Za-z0-9]{2,}/.test(w.text) || NUMBER.test(w.text));
    out.push(good.length && meaningful && kept >= 0.5 * all ? good : []);
  }
  return out;
}

/**
 * The numbers of the sparse pass worth adding for chart pairing: confident, of
 * text size (a bar read as "11" spans the plot: taller than twice the median
 * number), and not overlapping a confident word of the first pass. Where both
 * passes read a number the first one wins: on real scans the sparse pass's
 * re-readings are not reliably better (measured), only its extra finds help.
 */
function sparseNumbersToAdd(extra: LayoutWord[], kept: LayoutWord[], minConf: number): LayoutWord[] {
  const nums = extra.filter((w) => w.conf >= minConf && NUMBER.test(w.text.trim()));
  const h = median(nums.map((w) => bh(w.bbox)));
  return nums
    .filter((w) => bh(w.bbox) <= 2 * h)
    .filter((w) => !kept.some((k) => xOverlap(k.bbox, w.bbox) > 0 && Math.min(k.bbox[3], w.bbox[3]) - Math.max(k.bbox[1], w.bbox[1]) > 0))
    .map((w) => ({ ...w, text: w.text.trim() }));
}

/**
 * Should a second, sparse-text pass look for missed numbers? Yes when some
 * chart axis (see findCharts) has value labels above it, but fewer than it has
 * categories: OCR's line finding drops labels at staggered heights (about 1 in
 * 30 on the demo charts), and a sparse-text pass finds most of them. Words of
 * confidence 50+ are seen and values under 75 count as missing, so the
 * decision does not depend on the caller's confidence filter.
 */
export function wantsSparseNumbers(src: LayoutSource): boolean {
  const rows = groupRows(src.paragraphs.flatMap((p) => p.lines.flatMap((l) => l.words)).filter((w) => w.text.trim() && w.conf >= 50));
  const cells = rows.map(rowCells);
  for (let r = 1; r < cells.length; r++) {
    for (const axis of axisRuns(cells[r])) {
      if (new Set(axis.map((c) => c.text.toLowerCase())).size !== axis.length) continue;
      const values = valuesAbove(cells, r, axis);
      // Labels read with doubt (under 75) count as missing: the caller's filter may drop them.
      const sure = values.filter((v) => v.cell.conf >= 75).length;
      if (values.length >= 1 && sure < axis.length) return true;
    }
  }
  return false;
}

/** Value cells in the band of an axis above it, up to the first text in the band (see pairAxis). */
function valuesAbove(rows: Cell[][], axisRow: number, axis: Cell[]): { row: number; cell: Cell }[] {
  const centers = axis.map((c) => cx(c.bbox));
  const pitch = median(centers.slice(1).map((x, i) => x - centers[i]));
  const lo = centers[0] - pitch / 2;
  const hi = centers[centers.length - 1] + pitch / 2;
  const axisTop = Math.min(...axis.map((c) => c.bbox[1]));
  const out: { row: number; cell: Cell }[] = [];
  for (let r = axisRow - 1; r >= 0; r--) {
    const cells = rows[r].filter((c) => cx(c.bbox) >= lo && cx(c.bbox) <= hi);
    if (cells.some(isText)) break;
    for (const c of cells) if (isValueCell(c) && c.bbox[3] <= axisTop + 2) out.push({ row: r, cell: c });
  }
  return out;
}

/**
 * Visual rows: a word joins the row whose vertical band (median top to median
 * bottom of its words) it overlaps by at least half of the smaller height (the
 * best such row), else starts a row. Medians, not the running union, so one
 * tall glyph or a staircase of labels cannot glue rows together. Rows come top
 * to bottom, words left to right.
 */
export function groupRows(words: LayoutWord[]): LayoutWord[][] {
  const sorted = [...words].sort((a, b) => cy(a.bbox) - cy(b.bbox) || a.bbox[0] - b.bbox[0]);
  const rows: { words: LayoutWord[]; top: number; bottom: number }[] = [];
  for (const w of sorted) {
    let best: (typeof rows)[number] | undefined;
    let bestRatio = 0.5;
    for (const r of rows) {
      const overlap = Math.min(w.bbox[3], r.bottom) - Math.max(w.bbox[1], r.top);
      if (overlap <= 0) continue;
      const ratio = overlap / Math.max(1, Math.min(bh(w.bbox), r.bottom - r.top));
      if (ratio >= bestRatio) {
        best = r;
        bestRatio = ratio;
      }
    }
    if (best) {
      best.words.push(w);
      best.top = median(best.words.map((x) => x.bbox[1]));
      best.bottom = median(best.words.map((x) => x.bbox[3]));
    } else rows.push({ words: [w], top: w.bbox[1], bottom: w.bbox[3] });
  }
  return rows.sort((a, b) => (a.top + a.bottom) / 2 - (b.top + b.bottom) / 2).map((r) => r.words.sort((a, b) => a.bbox[0] - b.bbox[0]));
}

/** A run of words of one row separated by no more than a word space: one label, one value, one phrase. */
export interface Cell {
  text: string;
  words: LayoutWord[];
  bbox: Box;
  conf: number;
}

/** Cells of a row (words left to right): a gap wider than the row's median word height starts a new cell. */
export function rowCells(row: LayoutWord[]): Cell[] {
  const h = median(row.map((w) => bh(w.bbox)));
  const cells: LayoutWord[][] = [];
  for (const w of row) {
    const cur = cells[cells.length - 1];
    if (cur && w.bbox[0] - cur[cur.length - 1].bbox[2] <= h) cur.push(w);
    else cells.push([w]);
  }
  return cells.map((ws) => ({
    text: ws.map((w) => w.text).join(' '),
    words: ws,
    bbox: unionBox(ws.map((w) => w.bbox)),
    conf: Math.min(...ws.map((w) => w.conf)),
  }));
}

// A printed quantity: 544, 1,039, 12.5%, $3.2, (4.1), -7, 3.4bn; optionally one unit word after it.
const NUMBER = /^[(+\-−–]?[$€£¥]?\d+(?:[,.]\d+)*%?(?:k|m|bn|mn|b|x|pp|pts)?\)?$/i;
const UNIT = /^(?:%|k|m|bn|mn|b|million|billion|thousand|pts|pp|x)$/i;
const YEAR = /^(?:1[5-9]\d\d|20\d\d)$/;

/** A word that is a printed quantity (what the sparse-numbers pass keeps). */
export function isNumberWord(text: string): boolean {
  return NUMBER.test(text.trim());
}

/** A value label: a number, optionally followed by one unit word. */
export function isValueCell(c: Cell): boolean {
  const t = c.words.map((w) => w.text);
  return (t.length === 1 && NUMBER.test(t[0])) || (t.length === 2 && NUMBER.test(t[0]) && UNIT.test(t[1]));
}

// An axis label starts with a letter or digit and holds only label punctuation ("R&B/Hip-Hop", "Age 65+", "Q1 2020").
const LABEL = /^[\p{L}\p{N}][\p{L}\p{N} .,&/'’()%+-]*$/u;

/** An x-axis label: short (at most 3 words, 24 characters), 2+ letters or digits, with a letter or a year; not a bare quantity. */
export function isCategoryCell(c: Cell): boolean {
  if (c.words.length > 3 || c.text.length > 24 || !LABEL.test(c.text)) return false;
  if (YEAR.test(c.text)) return true;
  return !isValueCell(c) && /[A-Za-z]/.test(c.text) && /[\p{L}\p{N}]{2,}/u.test(c.text);
}

/** Text that blocks the search for value labels above an axis (a title, a sentence, a legend, another axis). */
function isText(c: Cell): boolean {
  return !isValueCell(c) && (c.text.match(/[A-Za-z]/g)?.length ?? 0) >= 3;
}

/** Category centres regularly spaced (an axis), within a factor 1.6 of each other's gaps. */
function regular(cells: Cell[]): boolean {
  if (cells.length < 3) return true;
  const gaps = cells.slice(1).map((c, i) => cx(c.bbox) - cx(cells[i].bbox));
  return Math.min(...gaps) > 0 && Math.max(...gaps) <= 1.6 * Math.min(...gaps);
}

/**
 * Longest regularly spaced run of consecutive category cells, per maximal run
 * of category cells: at least 3 (two labels say too little to tell an axis from
 * two phrases of a text line).
 */
function axisRuns(cells: Cell[]): Cell[][] {
  const out: Cell[][] = [];
  let i = 0;
  while (i < cells.length) {
    if (!isCategoryCell(cells[i])) {
      i++;
      continue;
    }
    let j = i;
    while (j < cells.length && isCategoryCell(cells[j])) j++;
    let best: Cell[] = [];
    for (let a = i; a < j; a++) for (let b = j; b > a + 1 && b - a > best.length; b--) if (regular(cells.slice(a, b))) best = cells.slice(a, b);
    if (best.length >= 3) out.push(best);
    i = j;
  }
  return out;
}

/**
 * The value aligned with each category of an axis, or undefined unless the
 * alignment is unambiguous. The value labels searched are the numbers in the
 * axis' band (from half a category pitch left of the first label to half a
 * pitch right of the last) above it, up to the first row with text in the band
 * (a title, a legend, a table row: its numbers are not value labels). Then:
 * - every such number aligns with exactly one category (centres within 0.3
 *   pitch, or boxes overlapping by half the narrower) and no category gets two
 *   (grouped or stacked bars, a tick column, a table above);
 * - category labels are distinct (repeated legends of small multiples);
 * - a value label is of text size: 0.4 to 3 times the axis label height
 *   (a glyph of a drawing read as a digit is not);
 * - no row of numbers aligned with the categories sits right under the axis,
 *   and at most one value has a text label right above it (dropped when the
 *   label is one word): labelled figures (KPI tiles, a table) are not an axis;
 * - at least 60% of the categories, and two, are paired (the axis has 3+).
 */
function pairAxis(rows: Cell[][], axisRow: number, axis: Cell[]): { pairs: ChartPair[]; valueRows: number[] } | undefined {
  if (new Set(axis.map((c) => c.text.toLowerCase())).size !== axis.length) return undefined;
  const centers = axis.map((c) => cx(c.bbox));
  const pitch = median(centers.slice(1).map((x, i) => x - centers[i]));
  if (!(pitch > 0)) return undefined;
  const lo = centers[0] - pitch / 2;
  const hi = centers[centers.length - 1] + pitch / 2;
  const inBand = (c: Cell) => cx(c.bbox) >= lo && cx(c.bbox) <= hi;
  const axisBottom = Math.max(...axis.map((c) => c.bbox[3]));
  const axisH = median(axis.map((c) => bh(c.bbox)));
  const alignedWith = (v: Cell) =>
    axis
      .map((a, k) => ({ a, k }))
      .filter(({ a }) => Math.abs(cx(a.bbox) - cx(v.bbox)) <= 0.3 * pitch || xOverlap(a.bbox, v.bbox) >= 0.5 * Math.min(bw(a.bbox), bw(v.bbox)));
  const found: (Cell | undefined)[] = axis.map(() => undefined);
  const valueRows = new Set<number>();
  for (const { row, cell: v } of valuesAbove(rows, axisRow, axis)) {
    const hits = alignedWith(v);
    if (hits.length !== 1 || found[hits[0].k]) return undefined;
    const ratio = bh(v.bbox) / axisH;
    if (ratio < 0.4 || ratio > 3) return undefined;
    found[hits[0].k] = v;
    valueRows.add(row);
  }
  // A row of numbers right under the axis, aligned with its labels: labels over figures (a grid).
  for (let r = axisRow + 1; r < rows.length; r++) {
    const cells = rows[r].filter(inBand);
    if (!cells.length) continue;
    if (Math.min(...cells.map((c) => c.bbox[1])) - axisBottom > 2 * axisH) break;
    if (cells.filter((c) => isValueCell(c) && alignedWith(c).length === 1).length >= 2) return undefined;
    break;
  }
  // Numbers with a text label right above them are labelled figures (KPI tiles, a table), not bars' value
  // labels: two or more make the whole axis a grid of figures. One under a one-word tag ("NET / 38") is
  // dropped; one under a longer text is kept (the y-axis title often sits right above the first bar's label).
  const caption = (v: Cell) =>
    rows
      .flat()
      .find(
        (c) =>
          isText(c) &&
          c.bbox[3] <= v.bbox[1] + 2 &&
          v.bbox[1] - c.bbox[3] <= 1.5 * bh(v.bbox) &&
          xOverlap(c.bbox, v.bbox) >= 0.5 * Math.min(bw(c.bbox), bw(v.bbox)),
      );
  const captions = found.map((v) => (v ? caption(v) : undefined));
  if (captions.filter(Boolean).length >= 2) return undefined;
  captions.forEach((c, k) => {
    if (c && c.words.length === 1) found[k] = undefined;
  });
  const pairs: ChartPair[] = [];
  axis.forEach((a, k) => {
    const v = found[k];
    if (v) pairs.push({ category: a.text, value: v.text, categoryBox: a.bbox, valueBox: v.bbox, conf: Math.min(a.conf, v.conf) });
  });
  if (pairs.length < 2 || pairs.length < 0.6 * axis.length) return undefined;
  return { pairs, valueRows: [...valueRows] };
}

function xOverlap(a: Box, b: Box): number {
  return Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
}

/**
 * Charts found in rows (top to bottom, words left to right): each axis row,
 * from the bottom up, with its values above it. A row used as values or as an
 * axis is not reused.
 */
export function findCharts(rows: LayoutWord[][]): ChartReading[] {
  const cells = rows.map(rowCells);
  const used = new Set<number>();
  const out: ChartReading[] = [];
  for (let r = rows.length - 1; r >= 1; r--) {
    if (used.has(r)) continue;
    for (const axis of axisRuns(cells[r])) {
      const res = pairAxis(cells, r, axis);
      if (!res) continue;
      used.add(r);
      for (const v of res.valueRows) used.add(v);
      const paired = axis.filter((a) => res.pairs.some((p) => p.categoryBox === a.bbox));
      out.push({
        pairs: res.pairs,
        axisRow: r,
        bbox: unionBox([...paired.map((a) => a.bbox), ...res.pairs.map((p) => p.valueBox)]),
        axisWords: paired.flatMap((a) => a.words),
      });
    }
  }
  return out.sort((a, b) => a.axisRow - b.axisRow);
}

/** A paragraph of running text (several rows of 4+ words): it never shares rows with a neighbour. */
function dense(words: LayoutWord[]): boolean {
  const rows = groupRows(words);
  return rows.length >= 2 && median(rows.map((r) => rowCells(r).reduce((n, c) => n + c.words.length, 0))) >= 4;
}

/** The vertical band of a row: median top to median bottom of its words (robust to one tall glyph). */
function band(row: LayoutWord[]): [number, number] {
  return [median(row.map((w) => w.bbox[1])), median(row.map((w) => w.bbox[3]))];
}

/**
 * Regions: sparse paragraphs that share a visual row (row bands overlapping by
 * half the smaller height) merge (union-find), so labels and values tesseract
 * split into paragraphs side by side read as rows. Each region keeps the place
 * of its first paragraph; `paragraphs` says how many it merged.
 */
function regions(paras: LayoutWord[][]): { words: LayoutWord[]; paragraphs: number }[] {
  const live = paras.filter((p) => p.length);
  const parent = live.map((_, k) => k);
  const find = (k: number): number => (parent[k] === k ? k : (parent[k] = find(parent[k])));
  const info = live.map((p) => ({ dense: dense(p), bands: groupRows(p).map(band) }));
  const shareRow = (A: [number, number][], B: [number, number][]) =>
    A.some(([t0, b0]) => B.some(([t1, b1]) => Math.min(b0, b1) - Math.max(t0, t1) >= 0.5 * Math.max(1, Math.min(b0 - t0, b1 - t1))));
  for (let a = 0; a < live.length; a++) {
    for (let b = a + 1; b < live.length; b++) {
      if (info[a].dense || info[b].dense || find(a) === find(b)) continue;
      if (shareRow(info[a].bands, info[b].bands)) parent[find(b)] = find(a);
    }
  }
  const groups = new Map<number, { words: LayoutWord[]; paragraphs: number }>();
  live.forEach((p, k) => {
    const g = groups.get(find(k)) ?? { words: [], paragraphs: 0 };
    g.words.push(...p);
    g.paragraphs++;
    groups.set(find(k), g);
  });
  return [...groups.entries()].sort((x, y) => x[0] - y[0]).map(([, g]) => g);
}

function rowOf(words: LayoutWord[], region: number, table: boolean): OcrRow {
  const bbox = unionBox(words.map((w) => w.bbox));
  return {
    words,
    text: words.map((w) => w.text).join(' '),
    bbox,
    height: bbox[3] - bbox[1],
    conf: Math.round(words.reduce((s, w) => s + w.conf, 0) / words.length),
    region,
    table,
  };
}

/**
 * The layout-aware reading of an OCR result: confident words (see
 * confidentParagraphs) in rows, region by region, plus the explicit pairs of
 * every chart found (charts are searched over the whole image, so labels
 * tesseract put in different paragraphs still pair).
 */
export function ocrLayout(src: LayoutSource, minConf: number): OcrLayout {
  const paras = confidentParagraphs(src, minConf);
  const rows: OcrRow[] = [];
  regions(paras).forEach((g, region) => {
    for (const r of groupRows(g.words)) rows.push(rowOf(r, region, g.paragraphs > 1));
  });
  // Charts also see the numbers only the sparse pass read (missed value labels); the plain rows do not,
  // so a page the first pass found unreadable does not gain stray numbers.
  const kept = paras.flat();
  const charts = findCharts(groupRows([...kept, ...sparseNumbersToAdd(src.sparseNumbers ?? [], kept, minConf)]));
  // Where each chart's pairs go: after the last row (in reading order) holding one of its axis labels.
  const anchor = (c: ChartReading) => {
    const axisWords = new Set(c.axisWords);
    let at = rows.length - 1;
    rows.forEach((r, i) => {
      if (r.words.some((w) => axisWords.has(w))) at = i;
    });
    return at;
  };
  const after = new Map<number, ChartReading[]>();
  for (const c of charts) {
    const at = anchor(c);
    after.set(at, [...(after.get(at) ?? []), c]);
  }
  const lines: OcrLayoutLine[] = [];
  rows.forEach((r, i) => {
    lines.push({ text: r.text, bbox: r.bbox, height: r.height, conf: r.conf, kind: 'row', region: r.region, table: r.table });
    for (const c of after.get(i) ?? []) {
      for (const p of c.pairs) {
        const bbox = unionBox([p.categoryBox, p.valueBox]);
        lines.push({
          text: `${p.category}: ${p.value}`,
          bbox,
          height: p.categoryBox[3] - p.categoryBox[1],
          conf: p.conf,
          kind: 'pair',
          region: r.region,
          table: false,
        });
      }
    }
  });
  return { rows, charts, lines, text: lines.map((l) => l.text).join('\n') };
}
