/**
 * Overlaps on a drawn figure: the rule "legends and axis titles never cover a
 * plot, a tick label, another title or a heading" checked on the layout Plotly
 * actually rendered (FigureExporter.layoutBoxes measures it in Chromium), not
 * on estimates. Each box is what the reader sees: a plot area, the legend, an
 * axis title, the tick labels, the figure title, a panel heading.
 */

export interface Box {
  kind: 'plot' | 'legend' | 'axis-title' | 'tick' | 'title' | 'heading';
  /** What it is, for messages: "legend", "axis title y2: R@all x100", "tick y2: 80". */
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Overlap area of two boxes, after shrinking each by `slack` px on every side (antialiasing, glyph bearings). */
function overlap(a: Box, b: Box, slack: number): number {
  const w = Math.min(a.x + a.w - slack, b.x + b.w - slack) - Math.max(a.x + slack, b.x + slack);
  const h = Math.min(a.y + a.h - slack, b.y + b.h - slack) - Math.max(a.y + slack, b.y + slack);
  return w > 0 && h > 0 ? w * h : 0;
}

const GUARDED: Box['kind'][] = ['legend', 'axis-title'];

/** Every pair where a legend or an axis title covers something else; empty when the figure is clear. */
export function layoutOverlaps(boxes: readonly Box[], slack = 1): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const a of boxes.filter((b) => GUARDED.includes(b.kind))) {
    for (const b of boxes) {
      if (a === b || (b.kind === a.kind && a.kind === 'legend')) continue;
      // An axis title against another axis title is checked once.
      const key = [a.label, b.label].sort().join(' | ');
      if (seen.has(key)) continue;
      if (overlap(a, b, slack) > 0) {
        seen.add(key);
        out.push(`${a.label} overlaps ${b.label}`);
      }
    }
  }
  return out;
}
