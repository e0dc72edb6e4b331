/**
 * The rules a figure must keep so it cannot mislead, checked on the spec (no
 * browser needed). figure-specs.ts builds figures that keep them; writeFigure
 * warns about any spec (a hand-made one, say) that breaks one.
 *
 *  1. title room: the top margin holds every line of the title block;
 *  2. legend clear: a legend sits right of the plot or below it, never on the title;
 *  3. labels: category labels are not rotated and their lines are short (wrapped);
 *  4. colours: a configuration has its palette colour (the same in every figure);
 *  5. published numbers share our axis only when measured on the same benchmark and protocol;
 *  6. bucket figures show n and the 95% interval on every bar;
 *  7. nothing dropped silently: every input series is drawn or named in the caption.
 */
import { fixedColour } from './palette';
import { legendClear, stripTags, titleBlockHeight, titleText, TICK_LINE_CHARS } from './figure-layout';
import type { FigureSpec, PlotlyTrace } from './figure-specs';

type Obj = Record<string, unknown>;
interface Meta {
  kind?: string;
  benchmark?: string;
  protocol?: string;
  series?: string[];
  panelHeadings?: number;
}

/** Names compared across wrapping: no tags, no whitespace. */
const squash = (s: string) => stripTags(s.replace(/<br\s*\/?>/gi, ' ')).replace(/\s+/g, '');

const isPublished = (t: PlotlyTrace) => (t.meta as Obj | undefined)?.role === 'published' || /published/i.test(squash(String(t.name ?? '')));

function titleRoom(layout: Obj, meta: Meta): string[] {
  const text = titleText(layout);
  if (!text) return [];
  const need = titleBlockHeight(text, (meta.panelHeadings ?? 0) > 0 ? 1 : 0);
  const t = ((layout.margin ?? {}) as Obj).t;
  return typeof t === 'number' && t >= need - 1 ? [] : [`title room: the title block needs ${need}px above the plot, margin.t is ${String(t)}`];
}

function legendRule(spec: FigureSpec, layout: Obj): string[] {
  const entries = spec.data.filter((t) => t.showlegend !== false && t.hoverinfo !== 'skip').length;
  if (layout.showlegend === false || entries < 2) return [];
  return legendClear(layout) ? [] : ['legend clear: the legend overlaps the title band (place it right of the plot, x >= 1, or below it, y <= 0)'];
}

function labelRule(spec: FigureSpec, layout: Obj): string[] {
  const out: string[] = [];
  for (const t of spec.data.filter((x) => x.type === 'bar' && Array.isArray(x.x) && (x.x as unknown[]).some((v) => typeof v === 'string'))) {
    const axis = (layout[t.xaxis === 'x2' ? 'xaxis2' : 'xaxis'] ?? {}) as Obj;
    if (axis.tickangle !== 0) out.push(`labels: the category axis of "${String(t.name)}" may rotate its labels (set tickangle 0 and wrap them)`);
    for (const label of t.x as string[]) {
      const long = label.split(/<br\s*\/?>/i).find((line) => !line.startsWith('n=') && stripTags(line).length > TICK_LINE_CHARS);
      if (long) out.push(`labels: "${stripTags(label)}" has a line of ${long.length} characters (wrap at ${TICK_LINE_CHARS})`);
    }
  }
  return [...new Set(out)];
}

function colourRule(spec: FigureSpec): string[] {
  const out: string[] = [];
  for (const t of spec.data) {
    if (isPublished(t) || t.hoverinfo === 'skip') continue;
    const colour = ((t.marker ?? {}) as Obj).color;
    const meta = (t.meta ?? {}) as { name?: string; categories?: string[] };
    const name = meta.name ?? stripTags(String(t.name ?? '').replace(/<br\s*\/?>/gi, ' '));
    if (Array.isArray(colour)) {
      (meta.categories ?? []).forEach((cat, i) => {
        const want = fixedColour(cat);
        if (want && colour[i] !== want) out.push(`colours: category "${cat}" is ${String(colour[i])}, its palette colour is ${want}`);
      });
      continue;
    }
    const want = fixedColour(name);
    if (want && colour !== want) out.push(`colours: "${name}" is ${String(colour)}, its palette colour is ${want}`);
  }
  return out;
}

/** Published numbers written into one of our series as categories ("published M5 (model)"): same axis, same colour. */
function publishedCategories(spec: FigureSpec): string[] {
  const out: string[] = [];
  for (const t of spec.data.filter((x) => !isPublished(x) && Array.isArray(x.x))) {
    const ys = Array.isArray(t.y) ? (t.y as unknown[]) : [];
    const cats = (t.x as unknown[]).filter((c, i): c is string => typeof c === 'string' && ys[i] != null && /\bpublished\b/i.test(stripTags(c)));
    if (cats.length)
      out.push(
        `published: "${squash(String(t.name))}" holds published numbers as its categories (${stripTags(cats[0])}): give them a published series of their own`,
      );
  }
  return out;
}

/** Published numbers share an axis with ours only when measured on the same benchmark and subset/protocol. */
export function publishedProblems(spec: FigureSpec): string[] {
  const meta = ((spec.layout ?? {}) as Obj).meta as Meta | undefined;
  return [...publishedRule(spec, meta ?? {}), ...publishedCategories(spec)];
}

function publishedRule(spec: FigureSpec, meta: Meta): string[] {
  const axesOf = (t: PlotlyTrace) => `${String(t.xaxis ?? 'x')}/${String(t.yaxis ?? 'y').replace(/^y2$/, 'y')}`;
  const ourAxes = new Set(spec.data.filter((t) => !isPublished(t)).map(axesOf));
  const out: string[] = [];
  for (const t of spec.data.filter(isPublished)) {
    if (!ourAxes.has(axesOf(t))) continue;
    const m = (t.meta ?? {}) as Obj;
    const same = meta.benchmark !== undefined && m.benchmark === meta.benchmark && (m.protocol ?? '') === (meta.protocol ?? '');
    if (!same)
      out.push(
        `published: "${squash(String(t.name))}" (${String(m.benchmark ?? 'benchmark unknown')}) shares an axis with numbers on ${meta.benchmark ?? 'another benchmark'}: give it its own panel`,
      );
  }
  return out;
}

function bucketRule(spec: FigureSpec, meta: Meta): string[] {
  if (meta.kind !== 'bucket') return [];
  const out: string[] = [];
  for (const t of spec.data.filter((x) => x.type === 'bar' && !isPublished(x))) {
    const ys = t.y as (number | null)[];
    const e = (t.error_y ?? {}) as { array?: (number | null)[]; arrayminus?: (number | null)[] };
    const text = Array.isArray(t.text) ? (t.text as string[]) : [];
    ys.forEach((y, i) => {
      if (y === null) return;
      if (e.array?.[i] == null || e.arrayminus?.[i] == null) out.push(`bucket: bar ${i} of "${squash(String(t.name))}" has no 95% interval`);
      const nShown = /n=\d+/.test((t.x as string[])[i]) || /n=\d+/.test(text[i] ?? '');
      if (!nShown) out.push(`bucket: bar ${i} of "${squash(String(t.name))}" does not show its n`);
    });
  }
  return out;
}

function droppedRule(spec: FigureSpec, layout: Obj, meta: Meta): string[] {
  const drawn = new Set(spec.data.map((t) => squash(String(t.name ?? ''))));
  const caption = squash(titleText(layout));
  return (meta.series ?? [])
    .filter((n) => !drawn.has(squash(n)) && !caption.includes(squash(n)))
    .map((n) => `dropped: series "${n}" is neither drawn nor named in the caption`);
}

/** Every broken rule of a spec, one line each (empty = the figure keeps every rule). */
export function figureProblems(spec: FigureSpec): string[] {
  const layout = (spec.layout ?? {}) as Obj;
  const meta = (layout.meta ?? {}) as Meta;
  return [
    ...titleRoom(layout, meta),
    ...legendRule(spec, layout),
    ...labelRule(spec, layout),
    ...colourRule(spec),
    ...publishedRule(spec, meta),
    ...publishedCategories(spec),
    ...bucketRule(spec, meta),
    ...droppedRule(spec, layout, meta),
  ];
}
