/**
 * PDF text layout: positioned text runs -> segments -> columns -> lines ->
 * tables and paragraphs, in reading order. Pure geometry (no pdfjs here), so
 * every rule is unit-testable with hand-made coordinates.
 *
 * Coordinates are viewport points: x to the right, y DOWN from the page top
 * (the baseline of a run), `fs` = font size.
 *
 * - segment: runs of one line closer than ~0.9 font sizes (a table cell, a column's line);
 * - columns: a vertical gutter with no text, with prose-like (wide) segments on
 *   both sides; segments crossing it are full width and cut the page into bands;
 *   reading order = band by band, column by column;
 * - tables: >= 3 consecutive lines with >= 2 segments whose x-ranges project onto
 *   >= 2 shared column intervals, with short cells (prose does not align);
 * - paragraphs: line gap, font change, first-line indent, short last line.
 */
import { parseCaption } from './captions';

export interface TextRun {
  text: string;
  x0: number;
  x1: number;
  /** Baseline, from the top of the page. */
  y: number;
  fs: number;
  bold: boolean;
}

export interface Segment extends TextRun {
  /** Line id from the full-width grouping (header/footer detection). */
  line: number;
  /** Characters set in a bold face (a run-in bold heading makes part of a line bold). */
  boldChars: number;
}

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface LayoutLine {
  segs: Segment[];
  y: number;
  fs: number;
  x0: number;
  x1: number;
}

export interface TextBlock {
  type: 'block';
  text: string;
  fs: number;
  bold: boolean;
  lines: number;
  box: Box;
}

export interface TableBlock {
  type: 'table';
  header: string[];
  rows: string[][];
  box: Box;
}

export interface ImageRef<T> {
  type: 'image';
  box: Box;
  ref: T;
  /** Text-layer runs lying inside the image (chart labels, diagram text). */
  innerText: string;
}

export type LayoutElement<T> = TextBlock | TableBlock | ImageRef<T>;

const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Runs further apart than this many font sizes are separate segments (table cells, columns). */
const SEGMENT_GAP = 0.65;

function joinRuns(a: string, b: string, gap: number, fs: number): string {
  if (!a) return b;
  if (/\s$/.test(a) || /^\s/.test(b)) return a + b;
  return gap > 0.12 * fs ? `${a} ${b}` : a + b;
}

/** Group runs into full-width lines (by baseline), then split each line into segments at wide gaps. */
export function runsToSegments(runs: TextRun[]): Segment[] {
  const rs = runs.filter((r) => r.text.trim() && r.x1 >= r.x0 && r.fs > 0).sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const lines: TextRun[][] = [];
  let cur: TextRun[] = [];
  let lineY = 0;
  let lineFs = 0;
  for (const r of rs) {
    if (cur.length && Math.abs(r.y - lineY) <= 0.45 * Math.max(r.fs, lineFs)) {
      cur.push(r);
      lineFs = Math.max(lineFs, r.fs);
      continue;
    }
    if (cur.length) lines.push(cur);
    cur = [r];
    lineY = r.y;
    lineFs = r.fs;
  }
  if (cur.length) lines.push(cur);
  const segs: Segment[] = [];
  lines.forEach((line, li) => {
    line.sort((a, b) => a.x0 - b.x0);
    let s: (Segment & { chars: number; fsSum: number }) | undefined;
    const close = () => {
      if (!s) return;
      const text = s.text.replace(/\s+/g, ' ').trim();
      const boldChars = Math.min(text.length, Math.round((s.boldChars / Math.max(1, s.chars)) * text.length));
      if (text) segs.push({ text, x0: s.x0, x1: s.x1, y: s.y, fs: s.fsSum / Math.max(1, s.chars), bold: s.boldChars > s.chars / 2, line: li, boldChars });
      s = undefined;
    };
    for (const r of line) {
      const n = r.text.trim().length;
      if (s && r.x0 - s.x1 <= SEGMENT_GAP * Math.max(r.fs, s.fs) && r.x0 - s.x1 > -Math.max(r.fs, 2 * s.fs)) {
        s.text = joinRuns(s.text, r.text, r.x0 - s.x1, r.fs);
        s.x1 = Math.max(s.x1, r.x1);
        s.chars += n;
        s.fsSum += r.fs * n;
        s.fs = Math.max(s.fs, r.fs);
        if (r.bold) s.boldChars += n;
        // The baseline of the longest run represents the segment (superscripts move runs up).
        if (n > 3) s.y = r.y;
        continue;
      }
      close();
      s = { ...r, line: li, chars: n, boldChars: r.bold ? n : 0, fsSum: r.fs * n };
    }
    close();
  });
  return mergeSymbolSegments(segs);
}

/** "$" + "1,234" and "12.5" + "%" printed as separate runs belong together (table cells). */
function mergeSymbolSegments(segs: Segment[]): Segment[] {
  const out: Segment[] = [];
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    const next = segs[i + 1];
    if (/^[$€£¥]$/.test(s.text) && next && next.line === s.line && next.x0 - s.x1 < 8 * s.fs) {
      segs[i + 1] = { ...next, text: `${s.text}${next.text}`, x0: s.x0 };
      continue;
    }
    const prev = out[out.length - 1];
    if (/^(%|\)|%\))$/.test(s.text) && prev && prev.line === s.line && s.x0 - prev.x1 < 3 * s.fs) {
      out[out.length - 1] = { ...prev, text: prev.text + s.text, x1: s.x1 };
      continue;
    }
    out.push(s);
  }
  return out;
}

/** Normalised text of a line for repeated header/footer detection (digits stand for page numbers). */
export function marginKey(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/**
 * Running headers/footers and page numbers: lines in the top/bottom 9% of the page
 * whose normalised text repeats on many pages, and bare page numbers there.
 * Returns, per page, the set of line ids to drop.
 */
export function repeatedMarginLines(pages: { segs: Segment[]; height: number }[]): Set<number>[] {
  const byKey = new Map<string, Set<number>>();
  const pageLines = pages.map((p) => {
    const lines = new Map<number, Segment[]>();
    for (const s of p.segs) {
      const inMargin = s.y < p.height * 0.1 || s.y > p.height * 0.88;
      if (!inMargin) continue;
      if (!lines.has(s.line)) lines.set(s.line, []);
      lines.get(s.line)!.push(s);
    }
    return lines;
  });
  pageLines.forEach((lines, pi) => {
    for (const segs of lines.values()) {
      const key = marginKey(segs.map((s) => s.text).join(' '));
      if (!key) continue;
      if (!byKey.has(key)) byKey.set(key, new Set());
      byKey.get(key)!.add(pi);
    }
  });
  const minPages = Math.max(3, Math.ceil(pages.length * 0.25));
  return pageLines.map((lines) => {
    const drop = new Set<number>();
    for (const [id, segs] of lines) {
      const text = segs
        .map((s) => s.text)
        .join(' ')
        .trim();
      const key = marginKey(text);
      if (/^(page\s*)?[#ivxlc]+(\s*(of|\/)\s*#)?$/i.test(key) && text.length <= 14) drop.add(id);
      else if ((byKey.get(key)?.size ?? 0) >= minPages) drop.add(id);
    }
    return drop;
  });
}

export interface Gutter {
  g0: number;
  g1: number;
}

/**
 * Column gutters of a page: empty vertical strips with prose-like text on both
 * sides (segment widths a good part of the column span), so that the gaps of a
 * table are not taken for columns. Up to 3 columns.
 */
export function findGutters(segs: Segment[], pageWidth: number, depth = 0): Gutter[] {
  // Only line-like segments count: short labels (chart text, page numbers) would fill a gutter.
  const body = segs.filter((s) => s.x1 - s.x0 >= Math.max(20, 0.15 * pageWidth) && s.x1 - s.x0 < 0.6 * pageWidth && s.text.length >= 3);
  if (body.length < 8 || depth > 1) return [];
  const minX = Math.min(...body.map((s) => s.x0));
  const maxX = Math.max(...body.map((s) => s.x1));
  const span = maxX - minX;
  if (span < 100) return [];
  const n = Math.ceil(maxX) + 2;
  const cov = new Int32Array(n);
  for (const s of body) for (let x = Math.max(0, Math.floor(s.x0)); x <= Math.min(n - 1, Math.ceil(s.x1)); x++) cov[x]++;
  // A few lines may cross a gutter (a title, an author line, sub-figure captions): they
  // become full-width items. "Few" = relative to the text count and to the densest column.
  let peak = 0;
  for (let x = 0; x < n; x++) peak = Math.max(peak, cov[x]);
  const noise = Math.max(Math.floor(body.length * 0.12), Math.floor(peak * 0.3));
  const runs: Gutter[] = [];
  let start = -1;
  const lo = minX + 0.15 * span;
  const hi = maxX - 0.15 * span;
  for (let x = Math.floor(lo); x <= Math.ceil(hi) + 1; x++) {
    const empty = x <= hi && cov[x] <= noise;
    if (empty && start < 0) start = x;
    if (!empty && start >= 0) {
      if (x - start >= 5) {
        // Shrink the run to its emptiest core, so its edges do not eat into a column's margin.
        let min = Infinity;
        for (let k = start; k < x; k++) min = Math.min(min, cov[k]);
        let a = start;
        let b = x;
        while (a < b && cov[a] > min + 1) a++;
        while (b > a && cov[b - 1] > min + 1) b--;
        if (b - a >= 4) runs.push({ g0: a, g1: b });
      }
      start = -1;
    }
  }
  runs.sort((a, b) => b.g1 - b.g0 - (a.g1 - a.g0));
  const chars = (ss: Segment[]) => ss.reduce((k, s) => k + s.text.length, 0);
  for (const g of runs) {
    // All text beside the gutter counts for the shares (a table's narrow cells too) ...
    const allLeft = segs.filter((s) => s.x1 <= g.g0 + 1);
    const allRight = segs.filter((s) => s.x0 >= g.g1 - 1);
    if (allLeft.length < 4 || allRight.length < 4) continue;
    const lChars = chars(allLeft);
    const rChars = chars(allRight);
    const totalChars = lChars + rChars; // titles crossing the gutter do not count
    if (lChars < 0.05 * totalChars || rChars < 0.05 * totalChars) continue;
    // ... while "prose-like" looks at the line-like segments only.
    const left = body.filter((s) => s.x1 <= g.g0 + 1);
    const right = body.filter((s) => s.x0 >= g.g1 - 1);
    const lSpan = g.g0 - Math.min(...allLeft.map((s) => s.x0));
    const rSpan = Math.max(...allRight.map((s) => s.x1)) - g.g1;
    const lProse = left.length >= 3 && median(left.map((s) => s.x1 - s.x0)) >= 0.45 * lSpan;
    const rProse = right.length >= 3 && median(right.map((s) => s.x1 - s.x0)) >= 0.45 * rSpan;
    if (!lProse && !rProse) continue;
    // Two prose columns each carry a good share of the text; a sidebar may carry little.
    if (lProse && rProse && (lChars < 0.15 * totalChars || rChars < 0.15 * totalChars)) continue;
    // Prose beside a sidebar (a chart, a callout): columns only if the two sides do not
    // share baselines row by row -- a table with a long label column does.
    if (!(lProse && rProse) && baselineShare(allLeft, allRight) >= 0.5) continue;
    // Columns on each side may split again (3-column layouts).
    const more = [...findGutters(allLeft, pageWidth, depth + 1), ...findGutters(allRight, pageWidth, depth + 1)];
    return [...more, g].sort((a, b) => a.g0 - b.g0);
  }
  return [];
}

/** Share of the smaller side's segments that have a segment on the other side at the same baseline. */
function baselineShare(a: Segment[], b: Segment[]): number {
  const [small, big] = a.length <= b.length ? [a, b] : [b, a];
  const matched = small.filter((s) => big.some((t) => Math.abs(t.y - s.y) < 0.25 * Math.min(s.fs, t.fs))).length;
  return matched / Math.max(1, small.length);
}

/** Column index of a box, or -1 when it crosses a gutter (full width). */
export function columnOf(x0: number, x1: number, gutters: Gutter[]): number {
  for (const g of gutters) if (x0 < g.g0 - 2 && x1 > g.g1 + 2) return -1;
  const cx = (x0 + x1) / 2;
  let col = 0;
  for (const g of gutters) if (cx > (g.g0 + g.g1) / 2) col++;
  return col;
}

/** Group the segments of one region into lines (baseline proximity), each sorted by x. */
export function groupLines(segs: Segment[]): LayoutLine[] {
  const sorted = [...segs].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const lines: LayoutLine[] = [];
  for (const s of sorted) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(s.y - last.y) <= 0.45 * Math.max(s.fs, last.fs)) {
      last.segs.push(s);
      last.x0 = Math.min(last.x0, s.x0);
      last.x1 = Math.max(last.x1, s.x1);
      last.fs = Math.max(last.fs, s.fs);
      continue;
    }
    lines.push({ segs: [s], y: s.y, fs: s.fs, x0: s.x0, x1: s.x1 });
  }
  for (const l of lines) l.segs.sort((a, b) => a.x0 - b.x0);
  return lines;
}

const NUMERIC = /^[($€£¥-]*\d[\d,.]*%?\)?$|^[-–—]$|^n\/?a$/i;

/**
 * Find tables in a sequence of lines. Returns the tables with the index range of
 * the lines they consumed. Column intervals come from the projection of the cells
 * of the fullest rows, so a header cell spanning several columns does not merge them.
 */
export function detectTables(lines: LayoutLine[]): { start: number; end: number; table: TableBlock }[] {
  const out: { start: number; end: number; table: TableBlock }[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i].segs.length < 2) {
      i++;
      continue;
    }
    // Grow a run of multi-cell lines, tolerating up to 2 single-cell lines (wrapped labels, group rows).
    let j = i;
    let multi = 0;
    let lastMulti = i;
    while (j < lines.length) {
      const l = lines[j];
      const gap = j > i ? l.y - lines[j - 1].y : 0;
      if (j > i && gap > 3.2 * Math.max(l.fs, lines[j - 1].fs)) break;
      if (l.segs.length >= 2) {
        multi++;
        lastMulti = j;
      } else if (j - lastMulti > 2) break;
      j++;
    }
    const end = lastMulti + 1;
    const run = lines.slice(i, end);
    // Three rows make a table; two suffice right under a "Table N:" caption line.
    const captioned = i > 0 && parseCaption(lineText(lines[i - 1]))?.kind === 'table';
    const minRows = captioned ? 2 : 3;
    const table = multi >= minRows ? buildTable(run, minRows) : undefined;
    if (table) {
      out.push({ start: i, end, table });
      i = end;
    } else i++;
  }
  return out;
}

function buildTable(run: LayoutLine[], minRows: number): TableBlock | undefined {
  const multi = run.filter((l) => l.segs.length >= 2);
  const counts = multi.map((l) => l.segs.length);
  const full = Math.max(2, median(counts));
  const basis = multi.filter((l) => l.segs.length >= full);
  // Column intervals: union of the x-ranges of cells in the fullest rows.
  const ivs = basis.flatMap((l) => l.segs.map((s) => [s.x0, s.x1] as [number, number])).sort((a, b) => a[0] - b[0]);
  const cols: [number, number][] = [];
  for (const [a, b] of ivs) {
    const last = cols[cols.length - 1];
    if (last && a <= last[1] + 1.5) last[1] = Math.max(last[1], b);
    else cols.push([a, b]);
  }
  if (cols.length < 2) return undefined;
  const cellsAll = run.flatMap((l) => l.segs);
  const avgLen = cellsAll.reduce((k, s) => k + s.text.length, 0) / cellsAll.length;
  const numericShare = cellsAll.filter((s) => NUMERIC.test(s.text.replace(/\s/g, ''))).length / cellsAll.length;
  // Prose in two undetected columns also has 2 "cells" per line: require short cells.
  if (avgLen > (cols.length === 2 ? 28 : 40) && numericShare < 0.3) return undefined;
  const rows: string[][] = [];
  let spread = 0;
  for (const l of run) {
    const row = Array<string>(cols.length).fill('');
    const used = new Set<number>();
    for (const s of l.segs) {
      // The column the cell overlaps most; else the nearest by center.
      let best = -1;
      let bestOv = 0;
      cols.forEach(([a, b], k) => {
        const ov = Math.min(b, s.x1) - Math.max(a, s.x0);
        if (ov > bestOv) {
          bestOv = ov;
          best = k;
        }
      });
      if (best < 0) {
        const cx = (s.x0 + s.x1) / 2;
        best = cols.reduce((bk, [a, b], k) => (Math.abs((a + b) / 2 - cx) < Math.abs((cols[bk][0] + cols[bk][1]) / 2 - cx) ? k : bk), 0);
      }
      row[best] = row[best] ? `${row[best]} ${s.text}` : s.text;
      used.add(best);
    }
    if (used.size >= 2) spread++;
    rows.push(row);
  }
  if (spread < minRows || spread < 0.5 * multi.length) return undefined;
  // Real tables fill most of their grid; words of a spaced-out paragraph scatter over it.
  const filled = rows.reduce((n, r) => n + r.filter(Boolean).length, 0);
  if (filled < 0.45 * rows.length * cols.length) return undefined;
  // A column of wrapped prose (lines continuing a sentence start in lower case) is not a table column.
  for (let k = 0; k < cols.length; k++) {
    const cells = rows.map((r) => r[k]).filter(Boolean);
    const avg = cells.reduce((n, c) => n + c.length, 0) / Math.max(1, cells.length);
    if (cells.length >= minRows && avg > 12 && cells.filter((c) => /^[a-z]/.test(c)).length >= 0.5 * cells.length) return undefined;
  }
  // A label wrapped onto two lines: a row holding only its first cell continues into the next row.
  const merged: string[][] = [];
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k];
    const next = rows[k + 1];
    const onlyFirst = r[0] && r.slice(1).every((c) => !c);
    if (onlyFirst && next && next[0] && /^[a-z(]/.test(next[0])) {
      next[0] = `${r[0]} ${next[0]}`;
      continue;
    }
    merged.push(r);
  }
  // Header: leading rows before the first row with a numeric cell (at most 3), else the first row.
  let h = merged.findIndex((r) => r.slice(1).some((c) => NUMERIC.test(c.replace(/\s/g, ''))));
  if (h <= 0 || h > 3) h = 1;
  const headRows = merged.slice(0, h);
  const header = cols.map((_, k) =>
    headRows
      .map((r) => r[k])
      .filter(Boolean)
      .join(' '),
  );
  const box: Box = {
    x0: Math.min(...run.map((l) => l.x0)),
    x1: Math.max(...run.map((l) => l.x1)),
    y0: run[0].y - run[0].fs,
    y1: run[run.length - 1].y + 0.3 * run[run.length - 1].fs,
  };
  return { type: 'table', header, rows: merged.slice(h), box };
}

function lineText(l: LayoutLine): string {
  return l.segs.map((s) => s.text).join(' ');
}

function joinLines(a: string, b: string): string {
  // De-hyphenate "ap-" + "proach"; keep hyphens of compounds broken before an upper-case word.
  if (/[a-z]-$/.test(a) && /^[a-z]/.test(b)) return a.slice(0, -1) + b;
  return `${a} ${b}`;
}

/** Lines (not part of a table) -> paragraphs. */
export function linesToBlocks(lines: LayoutLine[], regionRight: number): TextBlock[] {
  const blocks: TextBlock[] = [];
  let cur: { lines: LayoutLine[]; text: string; chars: number; boldChars: number; fsSum: number } | undefined;
  const close = () => {
    if (!cur) return;
    const fs = cur.fsSum / Math.max(1, cur.chars);
    blocks.push({
      type: 'block',
      text: cur.text.trim(),
      fs,
      bold: cur.boldChars >= cur.chars * 0.8,
      lines: cur.lines.length,
      box: {
        x0: Math.min(...cur.lines.map((l) => l.x0)),
        x1: Math.max(...cur.lines.map((l) => l.x1)),
        y0: cur.lines[0].y - cur.lines[0].fs,
        y1: cur.lines[cur.lines.length - 1].y + 0.3 * cur.lines[cur.lines.length - 1].fs,
      },
    });
    cur = undefined;
  };
  for (const l of lines) {
    const text = lineText(l);
    const chars = l.segs.reduce((k, s) => k + s.text.length, 0);
    const boldChars = l.segs.reduce((k, s) => k + s.boldChars, 0);
    const fs = l.segs.reduce((k, s) => k + s.fs * s.text.length, 0) / Math.max(1, chars);
    const bold = boldChars >= chars * 0.8;
    if (cur) {
      const prev = cur.lines[cur.lines.length - 1];
      const prevFs = cur.fsSum / Math.max(1, cur.chars);
      const prevText = lineText(prev);
      const curBold = cur.boldChars >= cur.chars * 0.8;
      const gap = l.y - prev.y;
      const newPara =
        gap > 1.65 * Math.max(fs, prevFs) ||
        gap < -0.5 * fs ||
        Math.abs(fs - prevFs) > 0.12 * Math.max(fs, prevFs) ||
        (bold !== curBold && (cur.lines.length <= 2 || text.length < 80)) ||
        (l.x0 > prev.x0 + 0.7 * fs && l.x0 < prev.x0 + 4 * fs && /[.:!?"”)]$/.test(prevText)) ||
        (/[.!?:"”]$/.test(prevText) && prev.x1 < regionRight - Math.max(4 * fs, 0.2 * (regionRight - prev.x0)) && /^[A-Z0-9•▪●■◦\-–(“"]/.test(text)) ||
        /^[•▪●■◦]/.test(text);
      if (newPara) close();
    }
    if (!cur) cur = { lines: [l], text, chars, boldChars, fsSum: fs * chars };
    else {
      cur.lines.push(l);
      cur.text = joinLines(cur.text, text);
      cur.chars += chars;
      cur.boldChars += boldChars;
      cur.fsSum += fs * chars;
    }
  }
  close();
  return blocks;
}

/**
 * Lay out one page: runs inside images become the image's inner text, the rest is
 * ordered band by band and column by column, tables are detected per region, and
 * images are placed in the flow by their top edge.
 */
export function layoutPage<T>(segs: Segment[], images: { box: Box; ref: T }[], pageWidth: number): LayoutElement<T>[] {
  const imgs: ImageRef<T>[] = images.map((im) => ({ type: 'image', box: im.box, ref: im.ref, innerText: '' }));
  const free: Segment[] = [];
  const inner = new Map<ImageRef<T>, Segment[]>();
  for (const s of segs) {
    const cx = (s.x0 + s.x1) / 2;
    const cy = s.y - s.fs * 0.35;
    const host = imgs.find((im) => cx >= im.box.x0 - 2 && cx <= im.box.x1 + 2 && cy >= im.box.y0 - 2 && cy <= im.box.y1 + 2);
    if (host) {
      if (!inner.has(host)) inner.set(host, []);
      inner.get(host)!.push(s);
    } else free.push(s);
  }
  for (const [im, ss] of inner) im.innerText = groupLines(ss).map(lineText).join('\n');

  const gutters = findGutters(free, pageWidth);
  type Item = { col: number; top: number; seg?: Segment; img?: ImageRef<T> };
  const items: Item[] = [
    ...free.map((s) => ({ col: columnOf(s.x0, s.x1, gutters), top: s.y - s.fs, seg: s })),
    ...imgs.map((im) => ({ col: columnOf(im.box.x0, im.box.x1, gutters), top: im.box.y0, img: im })),
  ];
  const spanning = items.filter((it) => it.col < 0).sort((a, b) => a.top - b.top);
  const ncols = gutters.length + 1;
  const colRight = (c: number) => (c < gutters.length ? gutters[c].g0 : Number.POSITIVE_INFINITY);
  // Regions in reading order: for each band (between full-width items), each column, then the full-width items.
  const regions: Item[][] = [];
  const bandOf = (top: number) => {
    let k = 0;
    while (k < spanning.length && spanning[k].top <= top) k++;
    return k;
  };
  const bands: Item[][][] = Array.from({ length: spanning.length + 1 }, () => Array.from({ length: ncols }, () => []));
  for (const it of items) if (it.col >= 0) bands[bandOf(it.top)][it.col].push(it);
  for (let k = 0; k <= spanning.length; k++) {
    for (let c = 0; c < ncols; c++) if (bands[k][c].length) regions.push(bands[k][c]);
    if (k < spanning.length) {
      // Consecutive full-width items form one region (a title over two lines, a wide table).
      const last = regions[regions.length - 1];
      if (last && last.every((x) => x.col < 0) && bands[k].every((b) => !b.length)) last.push(spanning[k]);
      else regions.push([spanning[k]]);
    }
  }
  const out: LayoutElement<T>[] = [];
  for (const region of regions) {
    const rs = region.filter((x) => x.seg).map((x) => x.seg!);
    const rimgs = region.filter((x) => x.img).map((x) => x.img!);
    const col = region[0].col;
    const right = col >= 0 ? Math.min(colRight(col), rs.length ? Math.max(...rs.map((s) => s.x1)) : 0) : rs.length ? Math.max(...rs.map((s) => s.x1)) : 0;
    const lines = groupLines(rs);
    const tables = detectTables(lines);
    const elems: LayoutElement<T>[] = [];
    let k = 0;
    for (const t of tables) {
      elems.push(...linesToBlocks(lines.slice(k, t.start), right));
      elems.push(t.table);
      k = t.end;
    }
    elems.push(...linesToBlocks(lines.slice(k), right));
    for (const im of rimgs) {
      // Insert by top edge; stable for equal tops (image before text starting at the same height).
      const at = elems.findIndex((e) => e.box.y0 > im.box.y0 - 1);
      if (at < 0) elems.push(im);
      else elems.splice(at, 0, im);
    }
    out.push(...elems);
  }
  return out;
}
