import { test } from 'node:test';
import assert from 'node:assert/strict';
import { barFigure, lineFigure, scatterFigure, type FigureSpec } from '../../lib/report/figure';
import { figureProblems } from '../../lib/report/figure-rules';
import { settleLayout, titleBlockHeight, titleText, wrapText, TICK_LINE_CHARS } from '../../lib/report/figure-layout';
import { colourOf, coloursFor, configKey, PUBLISHED_COLOUR } from '../../lib/report/palette';
import { KfError } from '../../lib/util/errors';
import { nonEmpty } from '../_shared/non-empty';

const CONFIGS = ['demo-S0', 'demo-S1', 'demo-S3', 'demo-S4v1', 'demo-S4', 'demo-M5', 'demo-DG'];
const barColour = (f: FigureSpec, i = 0) => (f.data[i].marker as { color: unknown }).color;

test('palette: one colour per configuration, whatever the figure or the benchmark prefix', () => {
  assert.equal(configKey('demo-M5'), 'M5');
  assert.equal(configKey('m3d-M5 (offline)'), 'M5');
  assert.equal(configKey('2wiki: DG-ppr'), 'DG-ppr');
  const byConfig = barFigure({ categories: CONFIGS, series: [{ name: 'f1', values: [1, 2, 3, 4, 5, 6, 7] }] });
  const grouped = barFigure({ categories: ['image', 'text'], series: CONFIGS.map((c) => ({ name: c, values: [1, 2] })) });
  const line = lineFigure({
    x: [1, 2],
    series: [
      { name: 'M5', values: [1, 2] },
      { name: 'S4', values: [2, 1] },
    ],
  });
  const perBar = barColour(byConfig) as string[];
  CONFIGS.forEach((c, i) => {
    assert.equal(perBar[i], colourOf(c), `${c} in the by-config figure`);
    assert.equal(barColour(grouped, i), colourOf(c), `${c} in the bucket figure`);
  });
  assert.equal((line.data[0].line as { color: string }).color, colourOf('demo-M5'));
  assert.equal(new Set(perBar).size, CONFIGS.length, 'configurations are told apart');
  // Unknown names: stable, and two names of one figure never share a colour.
  const unknown = ['alpha run', 'beta run', 'gamma run', 'delta run', 'epsilon run', 'zeta run'];
  assert.deepEqual(coloursFor(unknown), coloursFor(unknown));
  assert.equal(new Set(coloursFor([...unknown, 'M5', 'DG'])).size, unknown.length + 2);
});

test('every builder keeps the layout rules (title room, legend, labels, colours, published, buckets, nothing dropped)', () => {
  const long = Array.from({ length: 21 }, (_, i) => `configuration-with-a-long-name-${i}`);
  const specs: Record<string, FigureSpec> = {
    byConfig: barFigure({
      title: 'f1 by configuration',
      note: 'offline backend: not model results',
      categories: CONFIGS,
      series: [{ name: 'f1', values: [1, 2, 3, 4, 5, 6, 7] }],
    }),
    manyLabels: barFigure({
      title: 'a long title '.repeat(40),
      categories: long,
      series: [
        { name: 'a', values: long.map((_, i) => i) },
        { name: 'b', values: long.map((_, i) => i + 1) },
      ],
    }),
    bucket: barFigure({
      bucket: true,
      title: 'f1 by modality',
      categories: ['image', 'table'],
      series: ['demo-S4', 'demo-M5'].map((name) => ({ name, values: [40, 50], lo: [30, 45], hi: [50, 55], n: [48, 72] })),
    }),
    withPublished: barFigure({
      title: 'recall',
      benchmark: 'demo',
      categories: ['demo: S4', 'demo: DG', 'MMQA: DualG-MRAG'],
      series: [
        { name: 'R@2 this harness', values: [40, 50, null] },
        { name: 'R@2 published (DualG-MRAG paper)', values: [null, null, 70], published: { benchmark: 'mmqa' } },
      ],
    }),
    line: lineFigure({
      title: 'sweep',
      x: [1, 2, 3],
      series: [
        { name: 'M5', values: [1, 2, 3] },
        { name: 'gone', values: [null, null, null] },
      ],
    }),
    scatter: scatterFigure({ title: 'pairs', groups: [{ name: 'M5', x: [0, 1], y: [1, 0] }], diagonal: true }),
  };
  for (const [name, spec] of Object.entries(specs)) assert.deepEqual(figureProblems(spec), [], name);
  // Long labels: wrapped (no rotation), the figure widened to give each its slot.
  const m = specs.manyLabels;
  assert.equal((m.layout!.xaxis as { tickangle: number }).tickangle, 0);
  for (const label of nonEmpty(m.data[0].x as string[])) for (const line of label.split('<br>')) assert.ok(line.length <= TICK_LINE_CHARS, line);
  assert.ok(m.width! >= 21 * 90, `width ${m.width}`);
  // A long title is wrapped and given its room.
  assert.ok(titleText(m.layout!).split('<br>').length >= 2);
  assert.ok((m.layout!.margin as { t: number }).t >= titleBlockHeight(titleText(m.layout!)));
});

test('rule checks catch the old layout: legend on the title, rotated labels, wrong colours, dropped series', () => {
  const old: FigureSpec = {
    data: [
      { type: 'bar', name: 'demo-S0', x: ['a very long category label indeed'], y: [1], marker: { color: '#1f77b4' } },
      { type: 'bar', name: 'demo-S4', x: ['a very long category label indeed'], y: [2] },
    ],
    layout: {
      title: { text: 'title<br><span style="font-size:12px">offline backend: not model results</span>' },
      margin: { t: 40 },
      legend: { orientation: 'h', x: 0, y: 1.02, xanchor: 'left', yanchor: 'bottom' },
      meta: { series: ['demo-S0', 'demo-S4', 'demo-S1'] },
    },
  };
  const p = figureProblems(old).join('\n');
  for (const rule of ['title room', 'legend clear', 'labels: the category axis', 'labels: "a very long', 'colours: "demo-S0"', 'dropped: series "demo-S1"'])
    assert.ok(p.includes(rule), `expected "${rule}" in:\n${p}`);
  // settleLayout repairs what it can (title room, legend), idempotently.
  const settled = settleLayout(old);
  const left = figureProblems(settled).join('\n');
  assert.ok(!left.includes('title room') && !left.includes('legend clear'), left);
  assert.deepEqual(settleLayout(settled).layout, settled.layout);
});

test('bucket figures need n and a 95% interval on every bar, and show them', () => {
  assert.throws(
    () => barFigure({ bucket: true, categories: ['a'], series: [{ name: 'S4', values: [1] }] }),
    (e: unknown) => e instanceof KfError && /has no n/.test(e.message),
  );
  assert.throws(
    () => barFigure({ bucket: true, categories: ['a', 'b'], series: [{ name: 'S4', values: [1, 2], n: [3, null], lo: [0, 1], hi: [2, 3] }] }),
    /no n or interval/,
  );
  // Different n per series: n goes on the bars instead of under the category.
  const f = barFigure({
    bucket: true,
    categories: ['a'],
    series: [
      { name: 'S4', values: [1], n: [10], lo: [0], hi: [2] },
      { name: 'M5', values: [2], n: [9], lo: [1], hi: [3] },
    ],
  });
  assert.deepEqual(f.data[0].text, ['n=10']);
  assert.deepEqual(figureProblems(f), []);
  const noBars = { ...f, data: f.data.map((t) => ({ ...t, error_y: undefined })) };
  assert.match(figureProblems(noBars).join('\n'), /has no 95% interval/);
});

test('nothing dropped silently: empty series and empty categories are named in the caption', () => {
  const f = barFigure({
    title: 'retrieval',
    categories: ['R@1', 'R@8', 'docFound'],
    series: [
      { name: 'demo-S0', values: [null, null, null] },
      { name: 'demo-S4', values: [60, 70, null] },
    ],
  });
  const caption = titleText(f.layout!);
  assert.match(caption, /not shown \(no values\): demo-S0/);
  assert.match(caption, /no value for: docFound/);
  assert.deepEqual(
    f.data.map((t) => t.name),
    ['demo-S4'],
  );
  assert.throws(() => barFigure({ categories: ['a'], series: [{ name: 's', values: [null] }] }), /every series is empty/);
});

test('published numbers: beside ours only on the same benchmark and protocol, else in their own labelled panel', () => {
  const same = barFigure({
    benchmark: 'm3docvqa',
    protocol: 'full',
    categories: ['S4', 'M5'],
    series: [
      { name: 'f1 this harness', values: [40, 45] },
      { name: 'published (KnowForge)', values: [40.4, 47.5], published: { benchmark: 'm3docvqa', protocol: 'full' } },
    ],
  });
  assert.ok(same.data.every((t) => t.xaxis === 'x'));
  assert.equal(same.layout!.xaxis2, undefined);
  for (const other of [{ benchmark: 'm3docvqa', protocol: 'mid300' }, { benchmark: 'mmqa' }, undefined]) {
    const f = barFigure({
      benchmark: 'm3docvqa',
      protocol: 'full',
      categories: ['S4', 'M5'],
      series: [
        { name: 'f1 this harness', values: [40, 45] },
        { name: 'published (KnowForge)', values: [40.4, 47.5], ...(other ? { published: other } : {}) },
      ],
    });
    const pub = f.data.find((t) => t.name === 'published (KnowForge)')!;
    assert.equal(pub.xaxis, 'x2', JSON.stringify(other));
    assert.equal((pub.marker as { color: string }).color, PUBLISHED_COLOUR);
    const headings = (f.layout!.annotations as { text: string }[]).map((a) => a.text).join(' | ');
    assert.match(headings, /this harness \(m3docvqa\).*published, not measured here/);
    assert.deepEqual(figureProblems(f), []);
  }
  // A hand-made spec with published numbers of another benchmark on our axis is flagged.
  const mixed: FigureSpec = {
    data: [
      { type: 'bar', name: 'ours', x: ['a'], y: [1] },
      { type: 'bar', name: 'R@2 published', x: ['b'], y: [2] },
    ],
    layout: { meta: { benchmark: 'demo' }, xaxis: { tickangle: 0 } },
  };
  assert.match(figureProblems(mixed).join('\n'), /published: "R@2published".*own panel/);
});

test('wrapText breaks at spaces and dashes, keeps existing breaks, cuts only over-long words', () => {
  assert.equal(wrapText('short', 14), 'short');
  assert.equal(wrapText('demo-S4 - demo-S0', 10), 'demo-S4 -<br>demo-S0');
  assert.equal(wrapText('a<br>b', 14), 'a<br>b');
  assert.equal(wrapText('abcdefghijklmnopqrstuvwxyz', 10), 'abcdefghij<br>klmnopqrst<br>uvwxyz');
});
