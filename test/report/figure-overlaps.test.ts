/**
 * Figures that cannot mislead:
 *  - every builder keeps published numbers of another benchmark or subset off our axes (their own
 *    "published, not measured here" plot), and writeFigure refuses a spec that does not;
 *  - on the layout Chromium actually draws, no legend or axis title covers a plot, a tick label,
 *    another title or a heading (the two-axis sweep of notebook 23 included); the old two-axis layout,
 *    legend right of the plot, is caught covering the right axis.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { barFigure, findChromium, FigureExporter, lineFigure, scatterFigure, writeFigure, type FigureSpec, type PlotlyTrace } from '../../lib/report/figure';
import { layoutOverlaps } from '../../lib/report/figure-overlaps';
import { settleLayout } from '../../lib/report/figure-layout';
import { figureProblems, publishedProblems } from '../../lib/report/figure-rules';
import { dualAxisFigure, logScatterFigure, radarFigure, stackedBarFigure } from '../../lib/report/notebook-figures';
import { labelFigure } from '../../lib/report/notebook-session';
import { nonEmpty } from '../_shared/non-empty';
import { ownScratch } from '../_shared/scratch';

const DIAG = ['0+0', '1+0', '1+1', '2+2', '3+3', '4+4', '5+5', '6+6'];
const MID300 = { benchmark: 'm3docvqa-mid300' };

/** Notebook 23's sweep: our demo run with the paper's M3DocVQA mid300 line. */
function sweep(published = true): FigureSpec {
  return dualAxisFigure({
    x: DIAG,
    benchmark: 'demo',
    left: [
      { name: 'f1 (this run)', values: [73, 73, 73, 73, 83, 83, 83, 83] },
      ...(published ? [{ name: 'f1 published (KnowForge, Qwen3.6-35B-A3B), mid300', values: [43, null, 46, 47, 46, 51, 49, 50.5], published: MID300 }] : []),
    ],
    right: [{ name: 'R@all (this run)', values: [89, 89, 89, 89, 96, 98, 98, 98] }],
    title: 'Round-cap sweep L+R',
    xTitle: 'L+R (Locator + Deep Reader rounds)',
    yTitle: 'f1 x100',
    y2Title: 'R@all x100 (dashed)',
    yRange: [0, 100],
    y2Range: [0, 100],
  });
}

/** One spec per builder and shape, each with the offline note a notebook adds. */
function everyShape(): Record<string, FigureSpec> {
  const specs: Record<string, FigureSpec> = {
    bar: barFigure({
      title: 'f1 by configuration',
      xTitle: 'configuration',
      yTitle: 'f1',
      categories: ['demo-S4', 'demo-M5', 'demo-DG'],
      series: [{ name: 'f1', values: [40, 50, 45] }],
    }),
    barPanel: barFigure({
      title: 'recall',
      benchmark: 'demo',
      categories: ['demo: S4', 'demo: DG', 'MMQA: DualG-MRAG'],
      series: [
        { name: 'R@2 this harness', values: [40, 50, null] },
        { name: 'R@2 published (DualG-MRAG paper)', values: [null, null, 70], published: { benchmark: 'mmqa' } },
      ],
    }),
    bucket: barFigure({
      bucket: true,
      title: 'f1 by modality',
      categories: ['image', 'table'],
      series: ['demo-S4', 'demo-M5'].map((name) => ({ name, values: [40, 50], lo: [30, 45], hi: [50, 55], n: [48, 72] })),
    }),
    line: lineFigure({
      title: 'sweep',
      xTitle: 'k',
      yTitle: 'value',
      x: [1, 2, 3],
      series: [
        { name: 'M5', values: [1, 2, 3] },
        { name: 'S4', values: [2, 1, 3] },
      ],
    }),
    linePanel: lineFigure({
      title: 'sweep with the paper',
      benchmark: 'demo',
      xTitle: 'k',
      yTitle: 'value',
      x: [1, 2, 3],
      series: [
        { name: 'M5', values: [1, 2, 3] },
        { name: 'M5 published', values: [2, 2, 4], published: MID300 },
      ],
    }),
    sweep: sweep(),
    sweepOurs: sweep(false),
    scatter: scatterFigure({ title: 'pairs', xTitle: 'A', yTitle: 'B', groups: [{ name: 'M5', x: [0, 1], y: [1, 0] }], diagonal: true }),
    logScatterPanel: logScatterFigure({
      title: 'Efficiency vs effectiveness',
      benchmark: 'demo tiny',
      xTitle: 'seconds per query (log)',
      yTitle: 'R@5 x100',
      groups: [
        { name: 'this harness (demo tiny)', x: [0.01, 0.1, 1], y: [40, 60, 70], labels: ['hybrid', 'dualg', 'dualg-gnn'] },
        { name: 'published (DualG-MRAG paper, MMQA)', x: [0.5, 2], y: [70, 80], labels: ['GFM-RAG', 'DualG-MRAG'], published: { benchmark: 'mmqa' } },
      ],
    }),
    radar: radarFigure({
      title: 'by bucket',
      axes: ['text', 'table', 'image'],
      series: [
        { name: 'run A', values: [50, 60, 40] },
        { name: 'run B', values: [40, 50, 30] },
      ],
    }),
    stacked: stackedBarFigure({
      title: 'latency by stage',
      xTitle: 'ms',
      categories: ['hybrid', 'dualg'],
      series: [
        { name: 'search', values: [2, 5] },
        { name: 'rank', values: [1, 8] },
      ],
    }),
  };
  for (const k of Object.keys(specs)) specs[k] = settleLayout(labelFigure(specs[k], 'offline backend: not model results'));
  return specs;
}

const axesOf = (t: PlotlyTrace) => `${String(t.xaxis ?? 'x')}/${String(t.yaxis ?? 'y').replace(/^y2$/, 'y')}`;
const isPub = (t: PlotlyTrace) => (t.meta as { role?: string } | undefined)?.role === 'published';

test('every builder draws published numbers of another benchmark or subset in their own plot, never on our axes', () => {
  const specs = everyShape();
  for (const [name, spec] of Object.entries(specs)) {
    assert.deepEqual(publishedProblems(spec), [], name);
    assert.deepEqual(figureProblems(spec), [], name);
    const ours = new Set(spec.data.filter((t) => !isPub(t) && t.hoverinfo !== 'skip').map(axesOf));
    for (const t of spec.data.filter(isPub)) assert.ok(!ours.has(axesOf(t)), `${name}: "${String(t.name)}" is on our axes ${axesOf(t)}`);
  }
  for (const name of ['barPanel', 'linePanel', 'sweep', 'logScatterPanel']) {
    const headings = nonEmpty((specs[name].layout!.annotations as { text: string }[]) ?? [], `${name} headings`).map((a) => a.text);
    assert.ok(
      headings.some((h) => /published, not measured here/.test(h)),
      `${name}: ${headings.join(' | ')}`,
    );
  }
  // The paper's mid300 line is published on M3DocVQA mid300: beside ours only on that benchmark and subset.
  const same = lineFigure({
    benchmark: 'm3docvqa-mid300',
    x: [1, 2],
    series: [
      { name: 'ours', values: [1, 2] },
      { name: 'published', values: [2, 3], published: MID300 },
    ],
  });
  assert.equal(new Set(same.data.map(axesOf)).size, 1, 'same benchmark and subset: one plot');
});

test('writeFigure refuses published numbers on our axes (another benchmark, or published values as our categories)', async () => {
  const dir = ownScratch('kf-fig-refuse-');
  try {
    const onOurAxis: FigureSpec = {
      data: [
        { type: 'scatter', name: 'f1 (this run)', x: [1, 2], y: [70, 80] },
        { type: 'scatter', name: 'f1 published, mid300', x: [1, 2], y: [45, 50], meta: { role: 'published', benchmark: 'm3docvqa-mid300' } },
      ],
      layout: { meta: { benchmark: 'demo' } },
    };
    await assert.rejects(writeFigure(onOurAxis, { dir, name: 'mixed', formats: ['html'] }), /figure_misleading|shares an axis/);
    const asCategories = barFigure({ categories: ['set-up A', 'published M5 (Qwen)'], series: [{ name: 'f1', values: [40, 51] }] });
    await assert.rejects(writeFigure(asCategories, { dir, name: 'cats', formats: ['html'] }), /published numbers as its categories/);
    assert.ok(!fs.existsSync(path.join(dir, 'mixed.html')), 'nothing written');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('on the drawn layout no legend or axis title covers a plot, a tick label, a title or a heading', { timeout: 180_000 }, async (t) => {
  if (!findChromium()) {
    console.log('# skipped: Chromium is not installed (apt-get install chromium)');
    t.skip('Chromium is not installed');
    return;
  }
  const ex = await FigureExporter.open();
  try {
    for (const [name, spec] of Object.entries(everyShape())) {
      const boxes = await ex.layoutBoxes(spec);
      assert.ok(boxes.some((b) => b.kind === 'plot') && boxes.some((b) => b.kind === 'tick'), `${name}: the layout was measured`);
      if (spec.data.filter((x) => x.showlegend !== false && x.hoverinfo !== 'skip').length > 1)
        assert.ok(
          boxes.some((b) => b.kind === 'legend'),
          `${name}: its legend was measured`,
        );
      assert.deepEqual(layoutOverlaps(boxes), [], name);
    }
    // The layout notebook 23 had: legend right of the plot, over the right axis and its title.
    const old = sweep(false);
    old.layout = {
      ...old.layout,
      legend: { orientation: 'v', x: 1.02, xanchor: 'left', y: 1, yanchor: 'top' },
      margin: { ...(old.layout!.margin as object), b: 70 },
    };
    const found = layoutOverlaps(await ex.layoutBoxes(old)).join('\n');
    assert.match(found, /legend overlaps (tick y2|axis title y2)/);
  } finally {
    await ex.close();
  }
});
