/**
 * Rasterise a chart layout with @napi-rs/canvas (Debian's DejaVu fonts are picked
 * up automatically). Same spec -> same PNG bytes on the same library version.
 */
import { createCanvas } from '@napi-rs/canvas';
import { CHART_FONT, layoutChart } from './chart-layout';
import type { ChartSpec } from './types';

export interface RenderedChart {
  png: Buffer;
  width: number;
  height: number;
}

export function renderChart(spec: ChartSpec): RenderedChart {
  const { width, height, ops } = layoutChart(spec);
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.textBaseline = 'alphabetic';
  for (const o of ops) {
    switch (o.op) {
      case 'rect':
        ctx.beginPath();
        if (o.radius) ctx.roundRect(o.x, o.y, o.w, o.h, o.radius);
        else ctx.rect(o.x, o.y, o.w, o.h);
        if (o.fill) {
          ctx.fillStyle = o.fill;
          ctx.fill();
        }
        if (o.stroke) {
          ctx.strokeStyle = o.stroke;
          ctx.lineWidth = 2;
          ctx.stroke();
        }
        break;
      case 'line':
        ctx.beginPath();
        ctx.strokeStyle = o.stroke;
        ctx.lineWidth = o.width;
        o.pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
        ctx.stroke();
        break;
      case 'circle':
        ctx.beginPath();
        ctx.fillStyle = o.fill;
        ctx.arc(o.x, o.y, o.r, 0, Math.PI * 2);
        ctx.fill();
        break;
      case 'text':
        ctx.font = `${o.bold ? 'bold ' : ''}${o.size}px "${CHART_FONT}"`;
        ctx.fillStyle = o.color;
        ctx.textAlign = o.align;
        ctx.fillText(o.text, o.x, o.y);
        break;
    }
  }
  return { png: canvas.toBuffer('image/png'), width, height };
}
