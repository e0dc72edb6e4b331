/**
 * Pure layout of charts and diagrams: a ChartSpec becomes a list of drawing
 * operations. Rendering (chart-render.ts) executes them on a canvas; drawnTextOf()
 * lists their strings. Both read the same operations, so the manifest's
 * `drawnText` is exactly what is in the PNG, and the fragment path (no canvas)
 * knows the OCR text without rendering.
 *
 * Legibility for OCR: large dark DejaVu Sans on white, no rotated text, no text on
 * coloured fills, no tick numbers that would compete with the value labels.
 */
import type { ChartSpec } from './types';

export type DrawOp =
  | { op: 'rect'; x: number; y: number; w: number; h: number; fill?: string; stroke?: string; radius?: number }
  | { op: 'line'; pts: [number, number][]; stroke: string; width: number }
  | { op: 'circle'; x: number; y: number; r: number; fill: string }
  | { op: 'text'; text: string; x: number; y: number; size: number; bold: boolean; align: 'left' | 'center'; color: string };

export interface ChartLayout {
  width: number;
  height: number;
  ops: DrawOp[];
}

export const CHART_FONT = 'DejaVu Sans';
const INK = '#111111';
const BAR = '#4a78b5';

/** Font size that fits `text` into `maxWidth` px (DejaVu Sans averages ~0.62 em per character). */
function fit(text: string, maxWidth: number, size: number, min = 16): number {
  const need = text.length * 0.64 * size;
  return need <= maxWidth ? size : Math.max(min, Math.floor(maxWidth / (text.length * 0.64)));
}

function text(t: string, x: number, y: number, size: number, bold = false, align: 'left' | 'center' = 'center'): DrawOp {
  return { op: 'text', text: t, x, y, size, bold, align, color: INK };
}

export function layoutChart(spec: ChartSpec): ChartLayout {
  return spec.kind === 'diagram' ? layoutDiagram(spec) : layoutSeries(spec);
}

function layoutSeries(spec: Extract<ChartSpec, { kind: 'bar' | 'line' }>): ChartLayout {
  // 150 px per point keeps neighbouring value labels apart (OCR merges labels that touch into one word).
  const width = Math.max(1000, 100 + spec.points.length * 150),
    height = spec.kind === 'line' ? 680 : 640;
  const ops: DrawOp[] = [{ op: 'rect', x: 0, y: 0, w: width, h: height, fill: '#ffffff' }];
  ops.push(text(spec.title, width / 2, 44, fit(spec.title, width - 40, 30), true));
  ops.push(text(spec.yLabel, 60, 88, 20, false, 'left'));
  const left = 60,
    right = width - 40,
    top = 130,
    bottom = 530;
  ops.push({
    op: 'line',
    pts: [
      [left, top - 10],
      [left, bottom],
      [right, bottom],
    ],
    stroke: INK,
    width: 2,
  });
  const n = spec.points.length;
  const slot = (right - left) / n;
  const max = Math.max(...spec.points.map((p) => p.value));
  const yOf = (v: number) => bottom - (v / max) * (bottom - top - 20);
  const longest = Math.max(...spec.points.map((p) => p.text.length));
  const valueSize = fit('x'.repeat(longest), slot - 24, 32, 18);
  const centers = spec.points.map((_, i) => left + slot * (i + 0.5));
  if (spec.kind === 'bar') {
    spec.points.forEach((p, i) => {
      const y = yOf(p.value);
      ops.push({ op: 'rect', x: centers[i] - slot * 0.3, y, w: slot * 0.6, h: bottom - y, fill: BAR });
    });
    // Value labels on top of the bars.
    spec.points.forEach((p, i) => ops.push(text(p.text, centers[i], yOf(p.value) - 14, valueSize, true)));
    spec.points.forEach((p, i) => ops.push(text(p.label, centers[i], bottom + 36, fit(p.label, slot - 4, 26), false)));
  } else {
    ops.push({ op: 'line', pts: spec.points.map((p, i) => [centers[i], yOf(p.value)] as [number, number]), stroke: BAR, width: 4 });
    spec.points.forEach((p, i) => ops.push({ op: 'circle', x: centers[i], y: yOf(p.value), r: 7, fill: BAR }));
    // Line charts print their values as an aligned data row under the years: labels staggered
    // along a line are read by OCR as skewed text lines and get merged or dropped.
    spec.points.forEach((p, i) => ops.push(text(p.label, centers[i], bottom + 36, fit(p.label, slot - 4, 26), false)));
    spec.points.forEach((p, i) => ops.push(text(p.text, centers[i], bottom + 80, valueSize, true)));
  }
  ops.push(text(spec.xLabel, width / 2, spec.kind === 'line' ? bottom + 124 : bottom + 86, 22));
  return { width, height, ops };
}

function layoutDiagram(spec: Extract<ChartSpec, { kind: 'diagram' }>): ChartLayout {
  // Plain dark text on white, joined by connector lines: boxed or tinted text defeats OCR's page segmentation.
  const width = 1000;
  const rowH = 70;
  const top = 160;
  const height = top + spec.labels.length * rowH + 30;
  const ops: DrawOp[] = [{ op: 'rect', x: 0, y: 0, w: width, h: height, fill: '#ffffff' }];
  ops.push(text(spec.title, width / 2, 44, fit(spec.title, width - 40, 30), true));
  ops.push(text(spec.center, 40, 112, fit(spec.center, 700, 30), true, 'left'));
  // Products get a device outline to the left of the labels' trunk (never on a text line: OCR reads shapes beside text as letters).
  if (spec.centerShape === 'device') ops.push({ op: 'rect', x: 14, y: 150, w: 26, h: Math.max(40, spec.labels.length * 70 - 30), stroke: INK, radius: 10 });
  const trunkX = 60;
  const mids = spec.labels.map((_, i) => top + i * rowH + rowH / 2);
  ops.push({
    op: 'line',
    pts: [
      [trunkX, 140],
      [trunkX, mids[mids.length - 1]],
    ],
    stroke: INK,
    width: 3,
  });
  spec.labels.forEach((label, i) => {
    const mid = mids[i];
    ops.push({
      op: 'line',
      pts: [
        [trunkX, mid],
        [trunkX + 50, mid],
      ],
      stroke: INK,
      width: 3,
    });
    ops.push({ op: 'circle', x: trunkX + 56, y: mid, r: 6, fill: BAR });
    ops.push(text(label, trunkX + 84, mid + 10, fit(label, width - trunkX - 110, 28), false, 'left'));
  });
  return { width, height, ops };
}

/** Every string drawn into the image, in drawing order. */
export function drawnTextOf(spec: ChartSpec): string[] {
  return layoutChart(spec)
    .ops.filter((o): o is Extract<DrawOp, { op: 'text' }> => o.op === 'text')
    .map((o) => o.text);
}
