/**
 * Figure shapes the paper notebooks need beyond bars, lines and scatters
 * (lib/report/figure.ts): two y axes over one x (round sweep: answer score and
 * recall), a radar chart (ScienceQA-style breakdown), a log-x scatter with
 * labelled points (efficiency vs effectiveness), stacked shares (latency
 * breakdown) and a drawn path graph (DualG-MRAG path decoding). All return
 * plain Plotly specs that writeFigure exports like any other.
 */
import { KfError } from '../util/errors';
import { barFigure, lineFigure, scatterFigure, type AxisTitles, type FigureSpec, type PlotlyTrace, type ScatterGroup, type Series } from './figure';
import { legendBelow } from './stacked-panel';

/** Two series families over the same x: `left` on the left y axis, `right` on the right one (dashed). */
export function dualAxisFigure(
  opts: AxisTitles & {
    x: (number | string)[];
    left: Series[];
    right: Series[];
    y2Title?: string;
    yRange?: [number, number];
    y2Range?: [number, number];
    /** The benchmark (and subset) of our numbers: published series of another one get their own plot. */
    benchmark?: string;
    protocol?: string;
  },
): FigureSpec {
  const spec = lineFigure({ ...opts, series: [...opts.left, ...opts.right] });
  const right = new Set(opts.right.map((s) => s.name));
  for (const t of spec.data) {
    const name = (t.meta as { name?: string } | undefined)?.name;
    // Right-axis series of our plot (a published one in its own panel keeps that panel's axis).
    if (name !== undefined && right.has(name) && t.yaxis !== 'y3') {
      t.yaxis = 'y2';
      t.line = { ...(t.line as object), dash: 'dash' };
    }
  }
  const layout = spec.layout!;
  spec.layout = {
    ...layout,
    showlegend: true,
    xaxis: { ...(layout.xaxis as object), type: 'category' },
    ...(layout.xaxis2 ? { xaxis2: { ...(layout.xaxis2 as object), type: 'category' } } : {}),
    // The published plot on the same scale as ours: a narrower range would magnify its differences.
    ...(layout.yaxis3 ? { yaxis3: { ...(layout.yaxis3 as object), ...(opts.yRange ? { range: opts.yRange } : {}) } } : {}),
    yaxis: { ...(layout.yaxis as object), ...(opts.yRange ? { range: opts.yRange } : {}) },
    yaxis2: {
      title: { text: opts.y2Title ?? '' },
      overlaying: 'y',
      anchor: 'x',
      side: 'right',
      showgrid: false,
      automargin: true,
      ...(opts.y2Range ? { range: opts.y2Range } : {}),
    },
  };
  // The legend under the figure: right of the plot it would cover the right axis and its title.
  legendBelow(
    spec.layout,
    spec.data.map((t) => String(t.name)),
    spec.width ?? opts.width ?? 800,
  );
  return spec;
}

/** One closed polygon per series over the same axes (radar / spider chart). */
export function radarFigure(opts: AxisTitles & { axes: string[]; series: Series[]; range?: [number, number] }): FigureSpec {
  if (!opts.axes?.length || opts.axes.length < 3)
    throw new KfError('bad_figure_data', 'radar figure: needs at least 3 axes', 'pass three or more bucket names');
  // Validate like a bar chart (one finite value or null per axis).
  barFigure({ categories: opts.axes, series: opts.series });
  const data: PlotlyTrace[] = opts.series.map((s) => ({
    type: 'scatterpolar',
    name: s.name,
    r: [...s.values, s.values[0]],
    theta: [...opts.axes, opts.axes[0]],
    fill: 'toself',
    opacity: 0.6,
  }));
  const base = barFigure({ ...opts, categories: opts.axes, series: opts.series });
  const layout: Record<string, unknown> = {
    ...base.layout,
    showlegend: true,
    polar: { radialaxis: { visible: true, ...(opts.range ? { range: opts.range } : {}), title: { text: opts.yTitle ?? '' } } },
  };
  delete layout.xaxis;
  delete layout.yaxis;
  delete layout.barmode;
  return { data, layout, width: opts.width ?? 700, height: opts.height ?? 600 };
}

/** Labelled points, one group per system family, on a log x axis (e.g. seconds per query vs R@5). */
export function logScatterFigure(opts: AxisTitles & { groups: ScatterGroup[]; benchmark?: string; protocol?: string }): FigureSpec {
  const spec = scatterFigure({ ...opts, showLabels: true });
  const l = spec.layout ?? {};
  spec.layout = {
    ...l,
    showlegend: true,
    xaxis: { ...(l.xaxis as object), type: 'log' },
    ...(l.xaxis2 ? { xaxis2: { ...(l.xaxis2 as object), type: 'log' } } : {}),
  };
  return spec;
}

/** Stacked horizontal bars: per category (a retriever), the share or time of each stage. */
export function stackedBarFigure(opts: AxisTitles & { categories: string[]; series: Series[] }): FigureSpec {
  const spec = barFigure(opts);
  spec.data.forEach((t) => {
    t.orientation = 'h';
    const x = t.x;
    t.x = t.y;
    t.y = x;
  });
  spec.layout = {
    ...spec.layout,
    barmode: 'stack',
    showlegend: true,
    xaxis: spec.layout?.yaxis,
    yaxis: { ...(spec.layout?.xaxis as object), automargin: true },
  };
  return spec;
}

/** A path to draw: its score and its steps `from -relation-> to` (a graph retriever's explanation path, e.g. DualG-MRAG's decoded paths). */
export interface DrawnPath {
  score: number;
  steps: readonly { from: string; relation: string; to: string }[];
}

/**
 * Paths drawn as a layered graph: column = hop, one row per path,
 * nodes as labelled markers, steps as lines with the relation at their middle.
 * Paths share nodes by name within a column, so converging paths meet.
 */
export function pathGraphFigure(opts: AxisTitles & { paths: readonly DrawnPath[]; maxPaths?: number }): FigureSpec {
  const paths = opts.paths.slice(0, opts.maxPaths ?? 5);
  if (!paths.length)
    throw new KfError('bad_figure_data', 'path figure: no paths', 'pass the explanation paths of a graph retriever (DualG-MRAG: its decoded paths)');
  const pos = new Map<string, { x: number; y: number }>();
  const nextRow: number[] = [];
  const place = (name: string, col: number) => {
    const key = `${col}\u0000${name}`;
    if (!pos.has(key)) {
      const y = nextRow[col] ?? 0;
      nextRow[col] = y + 1;
      pos.set(key, { x: col, y: -y });
    }
    return pos.get(key)!;
  };
  const data: PlotlyTrace[] = [];
  paths.forEach((p, i) => {
    const nodes = p.steps.length ? [p.steps[0].from, ...p.steps.map((s) => s.to)] : [];
    const pts = nodes.map((n, col) => place(n, col));
    data.push({
      type: 'scatter',
      mode: 'lines+markers+text',
      name: `path ${i + 1} (score ${p.score.toFixed(3)})`,
      x: pts.map((q) => q.x),
      y: pts.map((q) => q.y),
      text: nodes,
      textposition: 'top center',
      marker: { size: 12 },
      line: { width: 2 },
    });
    data.push({
      type: 'scatter',
      mode: 'text',
      showlegend: false,
      hoverinfo: 'skip',
      x: pts.slice(1).map((q, j) => (q.x + pts[j].x) / 2),
      y: pts.slice(1).map((q, j) => (q.y + pts[j].y) / 2 - 0.15),
      text: p.steps.map((s) => s.relation),
      textfont: { size: 10, color: '#555' },
    });
  });
  const spec = scatterFigure({ ...opts, groups: [{ name: 'seed', x: [0], y: [0] }] });
  const maxRows = Math.max(1, ...nextRow);
  const maxCol = Math.max(1, nextRow.length - 1);
  spec.data = data;
  // Legend under the plot (many paths make a tall legend that would cover the title); room for end labels.
  spec.layout = {
    ...spec.layout,
    meta: { kind: 'paths' },
    showlegend: true,
    legend: { orientation: 'h', x: 0, y: -0.12, xanchor: 'left', yanchor: 'top' },
    margin: { ...(spec.layout?.margin as object), b: 140 },
    xaxis: { title: { text: opts.xTitle ?? 'hop' }, dtick: 1, zeroline: false, showgrid: false, range: [-0.6, maxCol + 0.6] },
    yaxis: { visible: false, range: [-maxRows + 0.5, 0.8] },
  };
  spec.height = opts.height ?? Math.max(350, 120 * maxRows + 150);
  return spec;
}
