/**
 * OCR legibility: the values drawn into a generated chart are read back by
 * tesseract.js offline (English data shipped in @tesseract.js-data/eng). One image
 * only: OCR costs seconds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { drawnTextOf, generateWorld, renderChart } from '../../lib/demo';
import type { ChartSpec } from '../../lib/demo';
import { nonEmpty } from '../_shared/non-empty';

test('tesseract reads the value labels, years and title of a generated bar chart', async () => {
  const world = generateWorld({ preset: 'tiny' });
  let chart: ChartSpec | undefined;
  for (const d of world.docs)
    for (const s of d.sections) for (const b of s.blocks) if (!chart && b.kind === 'figure' && b.chart.kind === 'bar') chart = b.chart;
  assert.ok(chart && chart.kind === 'bar', 'the tiny world has a bar chart');
  const { png } = renderChart(chart);
  const { createWorker, OEM } = await import('tesseract.js');
  const langPath = path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
  const worker = await createWorker('eng', OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' });
  try {
    const { data } = await worker.recognize(png);
    const read = data.text.replace(/\s+/g, ' ');
    const values = chart.points.map((p) => p.text);
    const years = chart.points.map((p) => p.label);
    const missing = [...values, ...years].filter((v) => !read.includes(v));
    assert.deepEqual(missing, [], `OCR missed ${missing.join(', ')}; read: ${read}`);
    // Everything OCR must find is in the manifest's drawn text.
    const drawn = drawnTextOf(chart);
    for (const v of nonEmpty(values, 'drawn values')) assert.ok(drawn.includes(v));
    assert.ok(read.includes(chart.title.split(':')[0]), `title "${chart.title}" read as: ${read}`);
  } finally {
    await worker.terminate();
  }
});
