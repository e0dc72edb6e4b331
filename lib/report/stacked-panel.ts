/**
 * Two layout moves for figures over a sweep (line and two-axis figures), so that
 * nothing can be read against the wrong axis or hidden under a legend:
 *  - `stackPublishedPanel`: published numbers of another benchmark or subset get
 *    their own plot under ours (x2/y3), headed "published, not measured here",
 *    never our axes (bar figures put them beside, figure-specs.ts);
 *  - `legendBelow`: the legend goes under the whole figure (container
 *    coordinates), with the bottom margin it needs, where it can cover neither a
 *    right-hand axis nor its title.
 */
import { LEGEND_LINE_CHARS, textWidth } from './figure-layout';

type Layout = Record<string, unknown>;

const HEADING_FONT = 12;
/** Room under a plot for its tick labels and axis title (px). */
const X_AXIS_ROOM = 72;
const HEADING_ROOM = 24;
const LEGEND_ROW = 22;

function heading(y: number, text: string, yshift: number): Record<string, unknown> {
  return {
    text,
    xref: 'paper',
    yref: 'paper',
    x: 0,
    y,
    yshift,
    xanchor: 'left',
    yanchor: 'bottom',
    showarrow: false,
    font: { size: HEADING_FONT, color: '#333' },
  };
}

/** Extra figure height a stacked published panel takes (px). */
export const PANEL_HEIGHT = 300;

/**
 * Put the published traces (already on xaxis x2 / yaxis y3) in a plot under ours. `plotHeight` is the height
 * the figure's plot area will have (figure height minus top and bottom margins).
 */
export function stackPublishedPanel(layout: Layout, o: { ours: string; where: string[]; plotHeight: number }): void {
  const gap = (X_AXIS_ROOM + HEADING_ROOM + 12) / o.plotHeight;
  const panel = (PANEL_HEIGHT - X_AXIS_ROOM - HEADING_ROOM - 12) / o.plotHeight;
  const xaxis = layout.xaxis as Layout;
  const yaxis = layout.yaxis as Layout;
  layout.yaxis = { ...yaxis, domain: [panel + gap, 1] };
  layout.xaxis2 = { ...xaxis, anchor: 'y3', domain: [0, 1] };
  layout.yaxis3 = { ...yaxis, anchor: 'x2', domain: [0, panel] };
  layout.annotations = [
    ...((layout.annotations as unknown[]) ?? []),
    heading(1, `<b>${o.ours}</b>`, 6),
    heading(panel, `<b>published, not measured here</b> (${o.where.join('; ')})`, 6),
  ];
  (layout.meta as Layout).panelHeadings = 2;
}

/** Rows a horizontal legend of these names takes in `width` px (entries wrap like Plotly's). */
export function legendRows(names: string[], width: number, fontSize = 13): number {
  let rows = 1;
  let used = 0;
  for (const n of names) {
    const lines = n.split(/<br\s*\/?>/i);
    const w = 46 + Math.max(...lines.map((l) => textWidth(l, fontSize)));
    if (used && used + w > width) {
      rows++;
      used = 0;
    }
    used += w;
  }
  return rows;
}

/**
 * The legend under everything (container coordinates, bottom edge), the bottom margin grown to hold the x axis
 * and the legend's rows. Long names wrap at LEGEND_LINE_CHARS (settleLayout), so a row is one line high unless
 * a name wraps.
 */
export function legendBelow(layout: Layout, names: string[], width: number): void {
  const maxLines = Math.max(1, ...names.map((n) => Math.ceil(n.replace(/<[^>]+>/g, '').length / LEGEND_LINE_CHARS)));
  const rows = legendRows(names, width - 40) * maxLines;
  const margin = { ...((layout.margin ?? {}) as Record<string, number>) };
  margin.b = Math.max(margin.b ?? 0, X_AXIS_ROOM + 16 + rows * LEGEND_ROW);
  layout.margin = margin;
  layout.showlegend = true;
  layout.legend = { orientation: 'h', x: 0.01, xanchor: 'left', xref: 'container', y: 0.005, yanchor: 'bottom', yref: 'container', font: { size: 13 } };
}
