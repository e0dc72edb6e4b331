import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { barFigure, lineFigure, scatterFigure, writeFigure, figureHtml, FigureExporter, findChromium, closeSharedExporter } from '../../lib/report/figure';
import { KfError } from '../../lib/util/errors';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kf-fig-'));

/** Width and height from a PNG's IHDR chunk (after checking the signature). */
function pngSize(buf: Buffer): { width: number; height: number } {
  assert.deepEqual([...buf.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(buf.subarray(12, 16).toString('ascii'), 'IHDR');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

test('barFigure: CI bounds become asymmetric error bars; several series become grouped bars', () => {
  const f = barFigure({ title: 'acc', categories: ['S0', 'S4'], series: [{ name: 'acc', values: [0.3, 0.6], lo: [0.25, 0.5], hi: [0.4, 0.65] }] });
  const ey = f.data[0].error_y as { array: number[]; arrayminus: number[]; symmetric: boolean };
  assert.equal(f.data[0].type, 'bar');
  assert.equal(ey.symmetric, false);
  assert.deepEqual(
    ey.array.map((x) => +x.toFixed(6)),
    [0.1, 0.05],
  );
  assert.deepEqual(
    ey.arrayminus.map((x) => +x.toFixed(6)),
    [0.05, 0.1],
  );
  const g = barFigure({
    categories: ['easy', 'hard'],
    series: [
      { name: 'S0', values: [1, 2] },
      { name: 'S4', values: [2, null] },
    ],
  });
  assert.equal(g.data.length, 2);
  assert.equal(g.layout!.barmode, 'group');
  assert.throws(
    () => barFigure({ categories: ['a', 'b'], series: [{ name: 'S1', values: [1] }] }),
    (e: unknown) => e instanceof KfError && /"S1" has 1 values for 2 categories/.test(e.message),
  );
  assert.throws(() => barFigure({ categories: ['a'], series: [{ name: 'S1', values: [NaN] }] }), KfError);
  assert.throws(() => barFigure({ categories: ['a'], series: [{ name: 'S1', values: [1], lo: [0] }] }), /one CI bound/);
});

test('lineFigure and scatterFigure build the expected traces', () => {
  const l = lineFigure({ x: [1, 2, 4], series: [{ name: 'k', values: [0.1, 0.2, 0.3] }], logX: true });
  assert.equal(l.data[0].mode, 'lines+markers');
  assert.equal((l.layout!.xaxis as { type: string }).type, 'log');
  const s = scatterFigure({ groups: [{ name: 'q', x: [0, 1], y: [1, 0.5], labels: ['a', 'b'] }], diagonal: true });
  assert.equal(s.data.length, 2);
  assert.deepEqual(s.data[1].x, [0, 1]);
  assert.throws(() => scatterFigure({ groups: [{ name: 'q', x: [0], y: [1, 2] }] }), KfError);
});

test('HTML references one plotly.min.js copied beside it and embeds the spec safely', async () => {
  const dir = tmp();
  const spec = barFigure({ categories: ['</script><b>x'], series: [{ name: 's', values: [1] }] });
  const a = await writeFigure(spec, { dir, name: 'a', formats: ['html'] });
  await writeFigure(spec, { dir, name: 'b', formats: ['html'] });
  const html = fs.readFileSync(a.html!, 'utf8');
  assert.match(html, /<script src="plotly\.min\.js"><\/script>/);
  assert.ok(!/<script[^>]+src="https?:/.test(html), 'no network script');
  assert.ok(!html.includes('</script><b>'), 'a category cannot close the script element');
  assert.equal(fs.statSync(path.join(dir, 'plotly.min.js')).size, fs.statSync(require.resolve('plotly.js-dist-min')).size);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['a.html', 'b.html', 'plotly.min.js']);
  assert.match(figureHtml(spec, { inlinePlotly: true }).slice(0, 400), /<script>/);
  await assert.rejects(writeFigure(spec, { dir, name: 'a/b' }), KfError);
  await assert.rejects(writeFigure(spec, { dir, name: 'c', formats: ['gif' as 'png'] }), /not supported/);
});

test('under a results root every figure folder shares one plotly bundle (<results>/_assets), referenced relatively', async () => {
  const root = tmp();
  const saved = process.env.KF_NB_RESULTS;
  process.env.KF_NB_RESULTS = root;
  try {
    const spec = barFigure({ categories: ['x'], series: [{ name: 's', values: [1] }] });
    const a = await writeFigure(spec, { dir: path.join(root, 'nb-a'), name: 'f', formats: ['html'] });
    const b = await writeFigure(spec, { dir: path.join(root, 'suite', 'figures'), name: 'g', formats: ['html'] });
    assert.deepEqual(fs.readdirSync(path.join(root, 'nb-a')), ['f.html'], 'no copy beside the figure');
    assert.deepEqual(fs.readdirSync(path.join(root, 'suite', 'figures')), ['g.html']);
    assert.match(fs.readFileSync(a.html!, 'utf8'), /<script src="\.\.\/_assets\/plotly\.min\.js"><\/script>/);
    assert.match(fs.readFileSync(b.html!, 'utf8'), /<script src="\.\.\/\.\.\/_assets\/plotly\.min\.js"><\/script>/);
    assert.equal(fs.statSync(path.join(root, '_assets', 'plotly.min.js')).size, fs.statSync(require.resolve('plotly.js-dist-min')).size);
  } finally {
    if (saved === undefined) delete process.env.KF_NB_RESULTS;
    else process.env.KF_NB_RESULTS = saved;
  }
});

test('without chromium: the HTML is written and one line says PNG/SVG were skipped and how to get them', async () => {
  const dir = tmp();
  const saved = process.env.KF_CHROMIUM;
  process.env.KF_CHROMIUM = path.join(dir, 'no-such-chromium');
  const lines: string[] = [];
  try {
    const p = await writeFigure(barFigure({ categories: ['a'], series: [{ name: 's', values: [1] }] }), { dir, name: 'f', warn: (l) => lines.push(l) });
    assert.ok(p.html && fs.existsSync(p.html));
    assert.equal(p.png, undefined);
    assert.equal(lines.length, 1);
    assert.match(lines[0], /PNG\/SVG skipped.*chromium not found.*apt-get install chromium/);
    assert.ok(!lines[0].includes('\n'));
    await assert.rejects(FigureExporter.open(), (e: unknown) => e instanceof KfError && e.code === 'chromium_missing');
  } finally {
    if (saved === undefined) delete process.env.KF_CHROMIUM;
    else process.env.KF_CHROMIUM = saved;
  }
});

test('with chromium: PNG of the expected size, SVG holding the trace, HTML that draws offline from disk', async (t) => {
  const exe = findChromium();
  if (!exe) return t.skip('chromium is not installed (apt-get install chromium): PNG/SVG export cannot be checked');
  const dir = tmp();
  const ex = await FigureExporter.open();
  try {
    const spec = barFigure({
      title: 'Accuracy',
      categories: ['S0', 'S4-unique'],
      series: [{ name: 'acc', values: [0.3, 0.6], lo: [0.2, 0.5], hi: [0.4, 0.7] }],
      width: 640,
      height: 400,
    });
    const p = await writeFigure(spec, { dir, name: 'acc', exporter: ex, scale: 2 });
    assert.deepEqual(pngSize(fs.readFileSync(p.png!)), { width: 1280, height: 800 });
    const svg = fs.readFileSync(p.svg!, 'utf8');
    assert.match(svg, /^<svg[^>]*width="640"[^>]*height="400"/);
    assert.match(svg, /class="trace bars"/);
    assert.match(svg, /S4-unique/);
    assert.match(svg, /class="errorbar"/);
    // Reuse of the same browser for another figure and format set.
    const l = await writeFigure(
      lineFigure({
        x: [1, 2],
        series: [
          { name: 'sweep-trace', values: [1, 2] },
          { name: 'other', values: [2, 1] },
        ],
      }),
      { dir, name: 'line', exporter: ex, formats: ['svg', 'png'], scale: 1 },
    );
    assert.equal(l.html, undefined);
    assert.deepEqual(pngSize(fs.readFileSync(l.png!)), { width: 800, height: 500 });
    assert.match(fs.readFileSync(l.svg!, 'utf8'), /sweep-trace/);

    // The HTML file draws the figure when opened from disk with every network request refused.
    const { chromium } = require('playwright-core') as typeof import('playwright-core');
    const browser = await chromium.launch({ executablePath: exe, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      const refused: string[] = [];
      await page.route(
        (u) => !/^(file|data|about):$/.test(u.protocol),
        (r) => {
          refused.push(r.request().url());
          return r.abort();
        },
      );
      await page.goto(pathToFileURL(p.html!).href);
      await page.waitForSelector('#figure .main-svg', { timeout: 20_000 });
      assert.equal(await page.locator('#figure .trace.bars').count(), 1);
      assert.deepEqual(refused, []);
    } finally {
      await browser.close();
    }
  } finally {
    await ex.close();
  }
});

test('with chromium: writeFigure without an exporter uses (and can close) the shared one', async (t) => {
  if (!findChromium()) return t.skip('chromium is not installed (apt-get install chromium): shared exporter not checked');
  const dir = tmp();
  try {
    const spec = barFigure({ categories: ['a'], series: [{ name: 's', values: [1] }], width: 300, height: 200 });
    const [a, b] = await Promise.all([
      writeFigure(spec, { dir, name: 'a', formats: ['png'], scale: 1 }),
      writeFigure(spec, { dir, name: 'b', formats: ['png'], scale: 1 }),
    ]);
    assert.deepEqual(pngSize(fs.readFileSync(a.png!)), { width: 300, height: 200 });
    assert.deepEqual(pngSize(fs.readFileSync(b.png!)), { width: 300, height: 200 });
  } finally {
    await closeSharedExporter();
  }
});
