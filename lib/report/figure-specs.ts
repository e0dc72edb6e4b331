/**
 * Figure specs: Plotly figures (plain JSON) built from result numbers, drawn so
 * they cannot mislead (the rules are checked by figure-rules.ts):
 *
 * - one colour per configuration in every figure (palette.ts);
 * - the title block (title, notes, caption) gets the room it needs and the legend
 *   sits right of the plot, never on the title (figure-layout.ts);
 * - long category labels are wrapped, never rotated, and the figure widens;
 * - a series or category with no value is named in the caption, never dropped silently;
 * - a bucket figure shows n and the 95% interval on every bar;
 * - published numbers share our axis only when they were measured on the same
 *   benchmark and protocol; otherwise they get their own labelled panel.
 */
import { KfError } from '../util/errors';
import { coloursFor, colourOf, fixedColour, PUBLISHED_COLOUR } from './palette';
import { legendBelow, PANEL_HEIGHT, stackPublishedPanel } from './stacked-panel';
import { settleLayout, wrapText, TICK_LINE_CHARS, TICK_FONT } from './figure-layout';

import type { FigureSpec, PlotlyTrace } from './figure-layout';

export type { FigureSpec, PlotlyTrace };

export interface AxisTitles {
  title?: string;
  xTitle?: string;
  yTitle?: string;
  /** Footnote under the title, e.g. "offline backend: not model results". */
  note?: string;
  /** More caption text (what is not shown and why, how numbers were made). */
  caption?: string;
  width?: number;
  height?: number;
}

/** Where a published number was measured: it may share our axis only on the same benchmark and protocol. */
export interface PublishedOrigin {
  benchmark: string;
  protocol?: string;
}

/** One bar/line series; lo/hi are the CI bounds (e.g. bootstrap 2.5%/97.5%), not half-widths. */
export interface Series {
  name: string;
  values: (number | null)[];
  lo?: (number | null)[];
  hi?: (number | null)[];
  /** Questions behind each value (shown on the bar or under its category). */
  n?: (number | null)[];
  /** Published numbers (not measured here). A series named "published ..." without it counts as published elsewhere. */
  published?: PublishedOrigin;
}

function bad(message: string, hint: string): never {
  throw new KfError('bad_figure_data', message, hint);
}

function checkSeries(s: Series, n: number, what: string): void {
  if (!s || typeof s.name !== 'string') bad(`${what}: a series has no name`, 'give every series a name');
  for (const k of ['values', 'lo', 'hi', 'n'] as const) {
    const arr = s[k];
    if (arr === undefined && k !== 'values') continue;
    if (!Array.isArray(arr)) bad(`${what}: series "${s.name}" ${k} is not an array`, `pass ${k} as an array of numbers`);
    if (arr.length !== n) bad(`${what}: series "${s.name}" has ${arr.length} ${k} for ${n} categories`, 'give one value per category (null for a gap)');
    arr.forEach((v, i) => {
      if (v !== null && (typeof v !== 'number' || !Number.isFinite(v)))
        bad(`${what}: series "${s.name}" ${k}[${i}] is ${String(v)}`, 'use a finite number, or null for a gap');
    });
  }
  if ((s.lo === undefined) !== (s.hi === undefined)) bad(`${what}: series "${s.name}" has only one CI bound`, 'give both lo and hi (or neither)');
}

/** Plotly asymmetric error bars from CI bounds (restricted to the kept categories). */
function errorBars(s: Series, keep: number[]): Record<string, unknown> | undefined {
  if (!s.lo || !s.hi) return undefined;
  const plus = keep.map((i) => (s.values[i] === null || s.hi![i] === null ? null : Math.max(0, s.hi![i]! - s.values[i]!)));
  const minus = keep.map((i) => (s.values[i] === null || s.lo![i] === null ? null : Math.max(0, s.values[i]! - s.lo![i]!)));
  return { type: 'data', symmetric: false, array: plus, arrayminus: minus, visible: true, thickness: 1.5, width: 4 };
}

const allNull = (s: Series) => s.values.every((v) => v === null);

/** The title block: title, then the note and caption as small grey lines (settleLayout wraps and measures it). */
function titleBlock(t: AxisTitles, more: string[] = []): string {
  const small = (x: string) => `<span style="font-size:12px;color:#666">${x}</span>`;
  return [t.title, t.note, t.caption, ...more]
    .filter((x): x is string => !!x)
    .map((x, i) => (i === 0 && t.title ? x : small(x)))
    .join('<br>');
}

function baseLayout(t: AxisTitles, extra: Record<string, unknown> = {}, captionLines: string[] = []): Record<string, unknown> {
  const text = titleBlock(t, captionLines);
  return {
    font: { family: 'DejaVu Sans, Arial, sans-serif', size: 13 },
    paper_bgcolor: 'white',
    plot_bgcolor: 'white',
    margin: { l: 70, r: 30, t: 30, b: 70 },
    xaxis: { title: { text: t.xTitle ?? '' }, showline: true, linecolor: '#444', automargin: true },
    yaxis: { title: { text: t.yTitle ?? '' }, gridcolor: '#e5e5e5', zeroline: true, zerolinecolor: '#999', automargin: true },
    ...(text ? { title: { text, x: 0.02, xanchor: 'left' } } : {}),
    ...extra,
  };
}

/** Apply the asked size (never narrower than the content needs: `needed`), then settle the layout. */
function sized(spec: FigureSpec, t: AxisTitles, needed = 0): FigureSpec {
  const width = t.width ?? spec.width;
  if (width !== undefined || needed) spec.width = Math.min(3000, Math.max(width ?? 800, needed));
  if (t.height !== undefined) spec.height = t.height;
  return settleLayout(spec);
}

/** Is this a series of published numbers, and may it share our axis? */
export function publishedPlacement(s: Series, ours: { benchmark?: string; protocol?: string }): 'ours' | 'beside' | 'panel' {
  if (!s.published && !/\bpublished\b/i.test(s.name)) return 'ours';
  if (!s.published || !ours.benchmark) return 'panel';
  return s.published.benchmark === ours.benchmark && (s.published.protocol ?? '') === (ours.protocol ?? '') ? 'beside' : 'panel';
}

export interface BarOptions extends AxisTitles {
  categories: string[];
  series: Series[];
  /** The benchmark (and protocol) our numbers were measured on; published series on the same one share the axis. */
  benchmark?: string;
  protocol?: string;
  /** A per-bucket figure: every series must carry n and a 95% interval for every value. */
  bucket?: boolean;
}

/** Category indices with a value in any of the series. */
function withValues(series: Series[], nCats: number): number[] {
  return [...Array(nCats).keys()].filter((i) => series.some((s) => s.values[i] !== null));
}

/** "image (n=48)" when every series has the same n for a category; otherwise n goes on the bars. */
function commonN(series: Series[], i: number): number | null {
  const ns = series.map((s) => s.n?.[i] ?? null);
  return ns.every((x) => x !== null && x === ns[0]) ? ns[0] : null;
}

/** The traces of one panel (axis pair): ours first, then published beside them. */
function panelTraces(series: Series[], cats: string[], keep: number[], axis: { x: string; y: string }, showNOnTicks: boolean): PlotlyTrace[] {
  const published = series.filter((s) => s.published || /\bpublished\b/i.test(s.name));
  const oursOnly = series.filter((s) => !published.includes(s));
  const ticks = keep.map((i) => {
    const n = showNOnTicks ? commonN(series, i) : null;
    return wrapText(cats[i], TICK_LINE_CHARS) + (n !== null ? `<br>n=${n}` : '');
  });
  const perCategory = oursOnly.length === 1 && keep.some((i) => fixedColour(cats[i]) !== undefined);
  const colours = coloursFor(oursOnly.map((s) => s.name));
  return series.map((s) => {
    const t: PlotlyTrace = { type: 'bar', name: s.name, x: ticks, y: keep.map((i) => s.values[i]), xaxis: axis.x, yaxis: axis.y };
    const pubIndex = published.indexOf(s);
    if (pubIndex >= 0) {
      const shapes = ['/', 'x', '.', '\\', '+'];
      t.marker = { color: PUBLISHED_COLOUR, pattern: { shape: shapes[pubIndex % shapes.length], fgcolor: '#555' } };
      t.meta = { role: 'published', name: s.name, ...(s.published ?? {}) };
    } else {
      const c = perCategory ? keep.map((i) => colourOf(cats[i])) : colours[oursOnly.indexOf(s)];
      t.marker = { color: c };
      t.meta = { role: 'ours', name: s.name, categories: keep.map((i) => cats[i]) };
    }
    const e = errorBars(s, keep);
    if (e) t.error_y = e;
    if (s.n && (!showNOnTicks || keep.some((i) => commonN(series, i) === null))) {
      t.text = keep.map((i) => (s.n![i] === null || s.values[i] === null || (showNOnTicks && commonN(series, i) !== null) ? '' : `n=${s.n![i]}`));
      t.textposition = 'inside';
      t.insidetextanchor = 'start';
      t.textangle = 0;
      t.textfont = { size: 10, color: 'white' };
      t.constraintext = 'none';
    }
    return t;
  });
}

/** Width that gives every category room for its wrapped label and its bars. */
function neededWidth(cats: string[], bars: number): number {
  const longest = Math.max(...cats.map((c) => Math.min(c.length, TICK_LINE_CHARS)), 4);
  const slot = Math.max(longest * TICK_FONT * 0.6 + 12, bars * 16 + 16);
  return Math.ceil(cats.length * slot);
}

/**
 * Bars per category, one trace per series: one series = a plain bar chart (one
 * colour per configuration), several = grouped bars (one colour per series).
 * Published series measured elsewhere are drawn in their own panel, right of ours.
 */
export function barFigure(opts: BarOptions): FigureSpec {
  if (!Array.isArray(opts.categories) || !opts.categories.length) bad('bar figure: no categories', 'pass at least one category');
  if (!Array.isArray(opts.series) || !opts.series.length) bad('bar figure: no series', 'pass at least one series');
  opts.series.forEach((s) => checkSeries(s, opts.categories.length, 'bar figure'));
  if (opts.bucket) checkBucketSeries(opts.series);
  const cats = opts.categories.map(String);
  const drawn = opts.series.filter((s) => !allNull(s));
  if (!drawn.length) bad('bar figure: every series is empty', 'pass at least one value');
  const main = drawn.filter((s) => publishedPlacement(s, opts) !== 'panel');
  const panel = drawn.filter((s) => publishedPlacement(s, opts) === 'panel');
  const mainKeep = panel.length ? withValues(main, cats.length) : [...cats.keys()];
  const panelKeep = withValues(panel, cats.length);
  const caption = droppedCaption(opts.series, cats, drawn);
  const data = [
    ...panelTraces(main, cats, mainKeep, { x: 'x', y: 'y' }, !!opts.bucket),
    ...panelTraces(panel, cats, panelKeep, main.length ? { x: 'x2', y: 'y2' } : { x: 'x', y: 'y' }, false),
  ];
  const legendNeeded = drawn.length > 1 || panel.length > 0;
  const extra: Record<string, unknown> = {
    barmode: 'group',
    showlegend: legendNeeded,
    meta: {
      kind: opts.bucket ? 'bucket' : 'bar',
      benchmark: opts.benchmark,
      protocol: opts.protocol,
      series: opts.series.map((s) => s.name),
      panelHeadings: 0,
    },
  };
  const layout = baseLayout(opts, extra, caption);
  (layout.xaxis as Record<string, unknown>).tickangle = 0;
  const plots =
    neededWidth(
      mainKeep.map((i) => cats[i]),
      main.length,
    ) +
    (panel.length
      ? 60 +
        neededWidth(
          panelKeep.map((i) => cats[i]),
          panel.length,
        )
      : 0);
  const spec: FigureSpec = { data, layout, width: 800 };
  if (main.length && panel.length) addPublishedPanel(layout, opts, mainKeep.length, panelKeep.length, panel);
  else if (!main.length) (layout.meta as Record<string, unknown>).onlyPublished = true;
  return sized(spec, opts, 100 + plots + (legendNeeded ? 240 : 0));
}

function checkBucketSeries(series: Series[]): void {
  for (const s of series) {
    if (publishedPlacement(s, {}) !== 'ours') continue;
    if (!s.n || !s.lo || !s.hi) bad(`bucket figure: series "${s.name}" has no ${!s.n ? 'n' : '95% interval'}`, 'give every bucket series n, lo and hi');
    s.values.forEach((v, i) => {
      if (v !== null && (s.n![i] === null || s.lo![i] === null || s.hi![i] === null))
        bad(`bucket figure: series "${s.name}" value ${i} has no n or interval`, 'give n, lo and hi for every bar');
    });
  }
}

/** Caption lines naming what has no value: whole series, and categories no series has a value for. */
function droppedCaption(series: Series[], cats: string[], drawn: Series[]): string[] {
  const out: string[] = [];
  const empty = series.filter((s) => !drawn.includes(s)).map((s) => s.name);
  if (empty.length) out.push(`not shown (no values): ${empty.join(', ')}`);
  const emptyCats = cats.filter((_, i) => drawn.every((s) => s.values[i] === null));
  if (emptyCats.length) out.push(`no value for: ${emptyCats.join(', ')}`);
  return out;
}

/** Split the plot into our panel (x/y) and a published panel (x2/y2), each with a heading. */
function addPublishedPanel(layout: Record<string, unknown>, opts: BarOptions, mainCats: number, panelCats: number, panel: Series[]): void {
  const split = Math.min(0.75, Math.max(0.4, mainCats / (mainCats + panelCats)));
  const gap = 0.08;
  const xaxis = layout.xaxis as Record<string, unknown>;
  xaxis.domain = [0, split - gap / 2];
  layout.xaxis2 = { ...xaxis, title: { text: '' }, domain: [split + gap / 2, 1], anchor: 'y2' };
  layout.yaxis2 = { ...(layout.yaxis as object), anchor: 'x2', title: { text: '' } };
  headPanels(layout, opts.benchmark, split + gap / 2, panel);
}

/** Where the published series come from (benchmark, protocol), for the side panel's heading. */
function publishedSources(panel: { published?: PublishedOrigin }[]): string[] {
  return [...new Set(panel.map((s) => (s.published ? s.published.benchmark + (s.published.protocol ? `, ${s.published.protocol}` : '') : 'other set-ups')))];
}

/** The two headings over a figure with a side panel: ours at the left, the published one at x (paper coordinates). */
function headPanels(layout: Record<string, unknown>, benchmark: string | undefined, x: number, panel: { published?: PublishedOrigin }[]): void {
  const heading = (at: number, text: string) => ({
    text,
    xref: 'paper',
    yref: 'paper',
    x: at,
    y: 1,
    yshift: 6,
    xanchor: 'left',
    yanchor: 'bottom',
    showarrow: false,
    font: { size: 12, color: '#333' },
  });
  layout.annotations = [
    heading(0, `<b>this harness${benchmark ? ` (${benchmark})` : ''}</b>`),
    heading(x, `<b>published, not measured here</b> (${publishedSources(panel).join('; ')})`),
  ];
  (layout.meta as Record<string, unknown>).panelHeadings = 2;
}

export interface LineOptions extends AxisTitles {
  x: (number | string)[];
  series: Series[];
  logX?: boolean;
  markers?: boolean;
  /** The benchmark (and subset/protocol) our numbers were measured on; published series on another one get their own plot. */
  benchmark?: string;
  protocol?: string;
}

/** Where each published series of a panel says it comes from. */
function publishedWhere(panel: Series[]): string[] {
  return [...new Set(panel.map((s) => (s.published ? s.published.benchmark + (s.published.protocol ? `, ${s.published.protocol}` : '') : 'other set-ups')))];
}

/**
 * Lines over a numeric (or ordered) x, e.g. a parameter sweep; CIs become error bars. Published series of
 * another benchmark or subset are drawn in their own plot under ours ("published, not measured here").
 */
export function lineFigure(opts: LineOptions): FigureSpec {
  if (!Array.isArray(opts.x) || !opts.x.length) bad('line figure: no x values', 'pass the sweep values as x');
  if (!Array.isArray(opts.series) || !opts.series.length) bad('line figure: no series', 'pass at least one series');
  opts.series.forEach((s) => checkSeries(s, opts.x.length, 'line figure'));
  const keepAll = [...opts.x.keys()];
  const colours = coloursFor(opts.series.map((s) => s.name));
  const drawn = opts.series.filter((s) => !allNull(s));
  const placed = (s: Series) => publishedPlacement(s, opts);
  const panel = drawn.filter((s) => placed(s) === 'panel');
  const ours = drawn.filter((s) => placed(s) !== 'panel');
  const stacked = panel.length > 0 && ours.length > 0;
  const data = drawn.map((s) => {
    const published = placed(s) !== 'ours';
    const colour = published ? PUBLISHED_COLOUR : colours[opts.series.indexOf(s)];
    const t: PlotlyTrace = {
      type: 'scatter',
      mode: opts.markers === false ? 'lines' : 'lines+markers',
      name: s.name,
      x: opts.x,
      y: s.values,
      line: { color: colour, ...(published ? { dash: 'dot' } : {}) },
      marker: { color: colour },
      meta: {
        role: published ? 'published' : 'ours',
        name: s.name,
        ...(s.published ? { benchmark: s.published.benchmark, protocol: s.published.protocol } : {}),
      },
      ...(stacked && placed(s) === 'panel' ? { xaxis: 'x2', yaxis: 'y3' } : {}),
    };
    const e = errorBars(s, keepAll);
    if (e) t.error_y = e;
    return t;
  });
  const layout = baseLayout(
    opts,
    {
      showlegend: drawn.length > 1,
      meta: { kind: 'line', benchmark: opts.benchmark, protocol: opts.protocol, series: opts.series.map((s) => s.name), panelHeadings: 0 },
    },
    droppedCaption(opts.series, [], drawn),
  );
  if (opts.logX) (layout.xaxis as Record<string, unknown>).type = 'log';
  const spec: FigureSpec = { data, layout };
  if (stacked) {
    spec.height = (opts.height ?? 500) + PANEL_HEIGHT;
    stackPublishedPanel(layout, {
      ours: `this harness${opts.benchmark ? ` (${opts.benchmark})` : ''}`,
      where: publishedWhere(panel),
      plotHeight: spec.height - 200,
    });
    legendBelow(
      layout,
      drawn.map((s) => s.name),
      opts.width ?? 800,
    );
  }
  return sized(spec, { ...opts, height: spec.height ?? opts.height });
}

export interface ScatterGroup {
  name: string;
  x: number[];
  y: number[];
  /** Hover/label text per point (question ids, config names). */
  labels?: string[];
  /** Published points (not measured here); a group named "published ..." without it counts as published elsewhere. */
  published?: PublishedOrigin;
}

function checkGroup(g: ScatterGroup): void {
  if (!Array.isArray(g.x) || !Array.isArray(g.y) || g.x.length !== g.y.length)
    bad(`scatter figure: group "${g.name}" has ${g.x?.length} x and ${g.y?.length} y values`, 'give x and y the same length');
  if (g.labels && g.labels.length !== g.x.length)
    bad(`scatter figure: group "${g.name}" has ${g.labels.length} labels for ${g.x.length} points`, 'one label per point');
  for (const v of [...g.x, ...g.y])
    if (typeof v !== 'number' || !Number.isFinite(v)) bad(`scatter figure: group "${g.name}" has a non-finite value ${String(v)}`, 'drop or fix that point');
}

/** Points, one trace per group; `diagonal` adds the y = x reference line (paired comparisons). */
export function scatterFigure(
  opts: AxisTitles & { groups: ScatterGroup[]; diagonal?: boolean; showLabels?: boolean; benchmark?: string; protocol?: string },
): FigureSpec {
  if (!Array.isArray(opts.groups) || !opts.groups.length) bad('scatter figure: no groups', 'pass at least one group of points');
  opts.groups.forEach(checkGroup);
  const colours = coloursFor(opts.groups.map((g) => g.name));
  const placed = (g: ScatterGroup) => publishedPlacement({ name: g.name, values: [], published: g.published }, opts);
  const panel = opts.groups.filter((g) => placed(g) === 'panel' && g.x.length);
  const side = panel.length > 0 && opts.groups.some((g) => placed(g) !== 'panel' && g.x.length);
  const data: PlotlyTrace[] = opts.groups.map((g, i) => {
    const published = placed(g) !== 'ours';
    const t: PlotlyTrace = {
      type: 'scatter',
      mode: opts.showLabels && g.labels ? 'markers+text' : 'markers',
      name: g.name,
      x: g.x,
      y: g.y,
      marker: { size: 8, opacity: 0.8, color: published ? PUBLISHED_COLOUR : colours[i], ...(published ? { symbol: 'diamond' } : {}) },
      meta: {
        role: published ? 'published' : 'ours',
        name: g.name,
        ...(g.published ? { benchmark: g.published.benchmark, protocol: g.published.protocol } : {}),
      },
      ...(side && placed(g) === 'panel' ? { xaxis: 'x2', yaxis: 'y2' } : {}),
    };
    if (g.labels) {
      t.text = g.labels;
      t.textposition = 'top center';
      // A label at the plot's edge is drawn whole, not cut by the axis.
      t.cliponaxis = false;
      t.hovertemplate = '%{text}: (%{x}, %{y})<extra></extra>';
    }
    return t;
  });
  const all = opts.groups.flatMap((g) => [...g.x, ...g.y]);
  if (opts.diagonal && all.length) {
    const lo = Math.min(...all),
      hi = Math.max(...all);
    data.push({ type: 'scatter', mode: 'lines', name: 'y = x', x: [lo, hi], y: [lo, hi], line: { dash: 'dash', color: '#999', width: 1 }, hoverinfo: 'skip' });
  }
  const empty = opts.groups.filter((g) => !g.x.length).map((g) => g.name);
  const layout = baseLayout(
    opts,
    {
      showlegend: data.length > 1,
      meta: { kind: 'scatter', benchmark: opts.benchmark, protocol: opts.protocol, series: opts.groups.map((g) => g.name), panelHeadings: 0 },
    },
    empty.length ? [`not shown (no points): ${empty.join(', ')}`] : [],
  );
  if (!side) return sized({ data, layout }, opts);
  // Published points of another benchmark: their own plot beside ours, never our axes.
  const xaxis = layout.xaxis as Record<string, unknown>;
  xaxis.domain = [0, 0.54];
  layout.xaxis2 = { ...xaxis, domain: [0.64, 1], anchor: 'y2' };
  layout.yaxis2 = { ...(layout.yaxis as object), anchor: 'x2' };
  headPanels(layout, opts.benchmark, 0.64, panel);
  return sized({ data, layout }, { ...opts, width: opts.width ?? 1100 });
}
