/**
 * Layout that cannot hide anything: the title block (title, notes, caption) is
 * measured and given the room it needs, the legend sits right of the plot (never
 * over the title), long labels are wrapped instead of rotated, and a figure gets
 * wider when its categories need it.
 *
 * Text widths are estimated from the font size (a DejaVu Sans glyph is about
 * 0.6 em wide on average); the estimates err on the wide side, so a wrapped line
 * fits where the estimate says it fits.
 */

type Layout = Record<string, unknown>;

/** Average glyph width as a share of the font size (DejaVu Sans, generous). */
const GLYPH_EM = 0.6;
/** A Plotly trace (see plotly.com/javascript/reference); kept open on purpose. */
export type PlotlyTrace = Record<string, unknown> & { type?: string };

export interface FigureSpec {
  data: PlotlyTrace[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
  /** Export size in CSS pixels (default 800 x 500). */
  width?: number;
  height?: number;
}

export const TITLE_FONT = 18;
export const NOTE_FONT = 12;
export const TICK_FONT = 13;
/** A category tick label line is wrapped at this many characters (no rotation). */
export const TICK_LINE_CHARS = 14;
/** A legend entry line is wrapped at this many characters. */
export const LEGEND_LINE_CHARS = 28;
const TITLE_TOP_PAD = 12;
const GAP_UNDER_TITLE = 14;

export function textWidth(text: string, fontSize: number): number {
  return stripTags(text).length * fontSize * GLYPH_EM;
}

export function stripTags(s: string): string {
  return s.replace(/<[^>]+>/g, '');
}

/**
 * Break `text` into lines of at most `max` characters, at spaces (or after '-', '/', ':' when a word is
 * too long), joined with <br>. Existing <br> breaks are kept. A single word longer than `max` is cut.
 */
export function wrapText(text: string, max: number): string {
  return text
    .split(/<br\s*\/?>/i)
    .map((line) => wrapLine(line, max).join('<br>'))
    .join('<br>');
}

function wrapLine(line: string, max: number): string[] {
  if (line.length <= max) return [line];
  const words = line.split(/(?<=[\s/:-])|(?=\s)/).filter((w) => w.length);
  const out: string[] = [];
  let cur = '';
  for (let w of words) {
    if ((cur + w).trimEnd().length <= max) {
      cur += w;
      continue;
    }
    if (cur.trim()) out.push(cur.trim());
    w = w.trimStart();
    while (w.length > max) {
      out.push(w.slice(0, max));
      w = w.slice(max);
    }
    cur = w;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** The lines of a title block: the title proper at TITLE_FONT, each `<span style="font-size:Npx">` line at N (for wrapping). */
interface TitleLine {
  html: string;
  fontSize: number;
}

function titleLinesOf(html: string): TitleLine[] {
  return html
    .split(/<br\s*\/?>/i)
    .filter((l) => l.length)
    .map((l) => {
      const m = /font-size:\s*(\d+)px/.exec(l);
      return { html: l, fontSize: m ? Number(m[1]) : TITLE_FONT };
    });
}

/** Re-wrap every line of a title block to the figure's width (spans keep their style on each piece). */
export function wrapTitle(html: string, width: number): string {
  const out: string[] = [];
  for (const line of titleLinesOf(html)) {
    const max = Math.max(20, Math.floor((width - 40) / (line.fontSize * GLYPH_EM)));
    const span = /^(<span[^>]*>)(.*)(<\/span>)$/.exec(line.html);
    if (span) out.push(...wrapLine(span[2], max).map((t) => `${span[1]}${t}${span[3]}`));
    else out.push(...wrapLine(line.html, max));
  }
  return out.join('<br>');
}

/** Pixels the title block needs above the plot: its lines plus padding (and a row of panel headings). */
export function titleBlockHeight(html: string, extraRows = 0): number {
  // Plotly spaces every line of a text block by the block's font (1.3 em), whatever the size of a span in it.
  const lines = titleLinesOf(html).length;
  return TITLE_TOP_PAD + Math.ceil(lines * TITLE_FONT * 1.35) + GAP_UNDER_TITLE + extraRows * 22;
}

export function titleText(layout: Layout): string {
  const t = layout.title as { text?: string } | string | undefined;
  return typeof t === 'string' ? t : (t?.text ?? '');
}

/** Traces that show a legend entry. */
function legendTraces(spec: FigureSpec): PlotlyTrace[] {
  return spec.data.filter((t) => t.showlegend !== false && t.hoverinfo !== 'skip');
}

/** Is the legend placed clear of the plot's top band (right of the plot, or below it)? */
export function legendClear(layout: Layout): boolean {
  const l = (layout.legend ?? {}) as { x?: number; y?: number; xanchor?: string; yanchor?: string; yref?: string };
  // Under the whole figure (stacked-panel.ts legendBelow): below every axis, title and plot.
  if (l.yref === 'container' && (l.y ?? 1) <= 0.02 && l.yanchor === 'bottom') return true;
  // Plotly's default legend sits right of the plot (x 1.02); only a legend pulled over the top band collides.
  const x = l.x ?? 1.02;
  const y = l.y ?? 1;
  if (x >= 1 && (l.xanchor ?? 'left') === 'left') return true;
  return y <= 0 && (l.yanchor ?? 'top') === 'top';
}

/**
 * Make a spec's layout safe; idempotent, so writeFigure can settle again after notes were added:
 * - the title block is wrapped to the width, anchored at the top, and the top margin fits it;
 * - a legend over the title band moves right of the plot; long legend names are wrapped.
 */
export function settleLayout(spec: FigureSpec): FigureSpec {
  const layout: Layout = { ...(spec.layout ?? {}) };
  const width = spec.width ?? 800;
  const margin = { ...((layout.margin ?? {}) as Record<string, number>) };
  const text = titleText(layout);
  const headingRows = ((layout.meta as { panelHeadings?: number } | undefined)?.panelHeadings ?? 0) > 0 ? 1 : 0;
  if (text) {
    const wrapped = wrapTitle(text, width);
    const old = typeof layout.title === 'object' && layout.title ? (layout.title as Record<string, unknown>) : {};
    // The block hangs from the figure's top edge (container coordinates) into a top margin sized to hold it,
    // its gap and the panel headings. Anchored to the plot instead, it moved with the plot's height: wrapped
    // axis labels below shrink the plot, and a block of several notes then ran into the panel headings.
    // Plotly anchors a multi-line title by its first line, whose glyphs rise about half the font size above
    // the anchor: hence the extra half font under the top pad (the block's height is counted at the title's
    // line height for every line, notes included, which leaves that room).
    const height = spec.height ?? 500;
    margin.t = Math.max(margin.t ?? 0, titleBlockHeight(wrapped, headingRows));
    layout.title = {
      x: 0.02,
      xanchor: 'left',
      ...old,
      text: wrapped,
      font: { size: TITLE_FONT },
      y: 1 - (TITLE_TOP_PAD + TITLE_FONT / 2) / height,
      yref: 'container',
      yanchor: 'top',
    };
  } else margin.t = Math.max(margin.t ?? 0, 30 + headingRows * 22);
  layout.margin = margin;
  const data = spec.data.map((t) => (typeof t.name === 'string' && !t.name.includes('<br>') ? { ...t, name: wrapText(t.name, LEGEND_LINE_CHARS) } : t));
  const shows = layout.showlegend !== false && legendTraces({ ...spec, data }).length > 1;
  if (shows && !legendClear(layout)) {
    layout.legend = { ...((layout.legend ?? {}) as object), orientation: 'v', x: 1.02, xanchor: 'left', y: 1, yanchor: 'top' };
  }
  return { ...spec, data, layout };
}
