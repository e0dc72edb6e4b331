/**
 * Figures: Plotly figure specs (plain JSON, built in figure-specs.ts) exported
 * OFFLINE to HTML, PNG and SVG.
 *
 * - HTML references ONE shared `plotly.min.js` (4.8 MB once, not inside every file
 *   nor once per folder): under results/ (or $KF_NB_RESULTS) it lives in
 *   <results>/_assets/ and figures point at it by a relative path; a figure
 *   written elsewhere gets a copy beside it. Opens from disk without network.
 * - PNG/SVG come from Plotly.toImage inside Debian's chromium driven by
 *   playwright-core; every non-file request is aborted, so nothing is fetched.
 *   Plotly 4 needs a browser (it cannot be required in Node 20).
 * - Starting chromium + loading plotly costs ~2-4 s, each figure ~0.1-0.2 s, so a
 *   process keeps ONE browser: pass a FigureExporter to writeFigure, or let
 *   writeFigure use the shared one (closed after a few idle seconds, or by
 *   closeSharedExporter()).
 * - Without chromium, writeFigure still writes the HTML and says once, on one
 *   line, that PNG/SVG were skipped and how to get them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { KfError } from '../util/errors';
import { repoRoot } from '../util/paths';
import { ensureWritableDir, writeFileAtomic } from '../util/fsx';
import { checkOutputName } from './table';
import { settleLayout } from './figure-layout';
import { figureProblems, publishedProblems } from './figure-rules';
import type { Box } from './figure-overlaps';
import type { FigureSpec } from './figure-specs';

export { barFigure, lineFigure, scatterFigure, publishedPlacement } from './figure-specs';
export type { FigureSpec, PlotlyTrace, AxisTitles, Series, ScatterGroup, BarOptions, PublishedOrigin } from './figure-specs';

// ---------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------

export type FigureFormat = 'html' | 'png' | 'svg';
export const FIGURE_FORMATS: readonly FigureFormat[] = ['html', 'png', 'svg'];

export interface FigurePaths {
  html?: string;
  png?: string;
  svg?: string;
  /** Why PNG/SVG were not written (chromium missing), when they were asked for. */
  skipped?: string;
}

/** The plotly bundle that ships in node_modules (no CDN). */
export function plotlyBundlePath(): string {
  return require.resolve('plotly.js-dist-min');
}

/** Chromium to drive: KF_CHROMIUM, /usr/bin/chromium, or chromium / chromium-browser on PATH; null when none. */
export function findChromium(): string | null {
  const env = process.env.KF_CHROMIUM;
  if (env) return fs.existsSync(env) ? env : null;
  for (const p of ['/usr/bin/chromium', '/usr/bin/chromium-browser']) if (fs.existsSync(p)) return p;
  for (const name of ['chromium', 'chromium-browser']) {
    try {
      const p = execFileSync('sh', ['-c', `command -v ${name}`], { stdio: ['ignore', 'pipe', 'ignore'] })
        .toString()
        .trim();
      if (p) return p;
    } catch {
      /* not on PATH */
    }
  }
  return null;
}

export const CHROMIUM_HINT = 'install it with `apt-get install chromium` (or set KF_CHROMIUM to a Chromium binary)';

/** Chromium flags: headless, sandbox-less (containers, root), and no network chatter of its own. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/** JSON that is safe inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v ?? {})
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function checkSpec(spec: FigureSpec, name: string): void {
  if (!spec || !Array.isArray(spec.data)) {
    throw new KfError(
      'bad_figure',
      `figure "${name}" has no data array`,
      'build the spec with barFigure/lineFigure/scatterFigure or pass {data: [...], layout}',
    );
  }
  for (const k of ['width', 'height'] as const) {
    const v = spec[k];
    if (v !== undefined && (!Number.isInteger(v) || v < 50 || v > 10000)) {
      throw new KfError('bad_figure', `figure "${name}" ${k} is ${v}`, 'use an integer number of pixels between 50 and 10000');
    }
  }
}

const escHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The HTML page of a figure. `plotlySrc` is the script reference (default the
 * plotly.min.js beside the file); `inlinePlotly` embeds the bundle instead (one
 * 4.8 MB file you can mail around).
 */
export function figureHtml(spec: FigureSpec, opts: { title?: string; plotlySrc?: string; inlinePlotly?: boolean } = {}): string {
  const w = spec.width ?? 800,
    h = spec.height ?? 500;
  const script = opts.inlinePlotly
    ? `<script>${fs.readFileSync(plotlyBundlePath(), 'utf8').replace(/<\/script/gi, '<\\/script')}</script>`
    : `<script src="${escHtml(opts.plotlySrc ?? 'plotly.min.js')}"></script>`;
  const config = { responsive: true, displaylogo: false, ...(spec.config ?? {}) };
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escHtml(opts.title ?? 'figure')}</title>
${script}
</head>
<body style="margin:0;background:white">
<div id="figure" style="width:${w}px;height:${h}px;max-width:100%"></div>
<script>
if (typeof Plotly === 'undefined') {
  document.getElementById('figure').textContent = 'plotly.min.js was not found at ' + document.scripts[0].getAttribute('src') + ' (relative to this file): copy node_modules/plotly.js-dist-min/plotly.min.js there, or rerun the command that wrote this figure.';
} else {
  Plotly.newPlot('figure', ${scriptJson(spec.data)}, ${scriptJson(spec.layout)}, ${scriptJson(config)});
}
</script>
</body>
</html>
`;
}

/** Copy plotly.min.js into dir unless an identical-size copy is there; returns its path. */
export function ensurePlotlyBeside(dir: string): string {
  const src = plotlyBundlePath();
  const dest = path.join(dir, 'plotly.min.js');
  const size = fs.statSync(src).size;
  if (!fs.existsSync(dest) || fs.statSync(dest).size !== size) writeFileAtomic(dest, fs.readFileSync(src));
  return dest;
}

/** The results roots that hold one shared bundle: $KF_NB_RESULTS and <repo>/results. */
function resultsRoots(): string[] {
  return [process.env.KF_NB_RESULTS, path.join(repoRoot(), 'results')].filter((r): r is string => !!r).map((r) => path.resolve(r));
}

/**
 * The script reference of a figure written into dir: the shared <results>/_assets/plotly.min.js
 * (copied there once) when dir is inside a results root, else a copy beside the figure.
 */
export function ensureSharedPlotly(dir: string): string {
  const abs = path.resolve(dir);
  const root = resultsRoots().find((r) => abs !== r && !path.relative(r, abs).startsWith('..') && !path.isAbsolute(path.relative(r, abs)));
  if (!root) {
    ensurePlotlyBeside(abs);
    return 'plotly.min.js';
  }
  const bundle = ensurePlotlyBeside(ensureWritableDir(path.join(root, '_assets'), 'shared figure assets folder'));
  return path.relative(abs, bundle).split(path.sep).join('/');
}

export interface RenderOptions {
  width?: number;
  height?: number;
  /** PNG pixel density: the PNG is width*scale x height*scale pixels (default 2). */
  scale?: number;
}

/** Runs in the page: draw the figure, return the boxes of what a reader sees (figure-overlaps.ts Box). */
const MEASURE_IN_PAGE = `async function (a) {
  var P = globalThis.Plotly;
  var gd = document.createElement('div');
  document.body.appendChild(gd);
  try {
    await P.newPlot(gd, a.data, Object.assign({}, a.layout, { width: a.width, height: a.height }), { staticPlot: true });
    var out = [];
    function add(kind, label, el) {
      var r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0) out.push({ kind: kind, label: label, x: r.x, y: r.y, w: r.width, h: r.height });
    }
    var fl = gd._fullLayout;
    var origin = gd.getBoundingClientRect();
    var plots = fl._plots || {};
    var ids = Object.keys(plots);
    ids.forEach(function (k) {
      var p = plots[k];
      out.push({ kind: 'plot', label: 'plot ' + k, x: origin.x + p.xaxis._offset, y: origin.y + p.yaxis._offset, w: p.xaxis._length, h: p.yaxis._length });
    });
    if (!ids.length) out.push({ kind: 'plot', label: 'plot', x: origin.x + fl._size.l, y: origin.y + fl._size.t, w: fl._size.w, h: fl._size.h });
    gd.querySelectorAll('.legend rect.bg').forEach(function (el) { add('legend', 'legend', el); });
    gd.querySelectorAll('[class^="g-"][class$="title"]').forEach(function (g) {
      var cls = g.getAttribute('class') || '';
      var text = (g.textContent || '').trim();
      if (!text) return;
      if (cls === 'g-gtitle') add('title', 'figure title', g);
      else add('axis-title', 'axis title ' + cls.replace(/^g-|title$/g, '') + ': ' + text.slice(0, 40), g);
    });
    gd.querySelectorAll('g[class$="tick"] > text').forEach(function (el) {
      var axis = ((el.parentElement && el.parentElement.getAttribute('class')) || '').replace(/tick$/, '');
      add('tick', 'tick ' + axis + ': ' + (el.textContent || '').trim().slice(0, 30), el);
    });
    gd.querySelectorAll('.annotation').forEach(function (el) { add('heading', 'heading: ' + (el.textContent || '').trim().slice(0, 40), el); });
    return out;
  } finally {
    P.purge(gd);
    gd.remove();
  }
}`;

/** One headless chromium with plotly loaded, reused for every figure of a process. */
export class FigureExporter {
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly browser: Browser,
    private readonly page: Page,
    readonly chromium: string,
  ) {}

  /** Start chromium and load plotly (~2-4 s). Throws KfError 'chromium_missing' when there is no chromium. */
  static async open(opts: { executablePath?: string } = {}): Promise<FigureExporter> {
    const exe = opts.executablePath ?? findChromium();
    if (!exe || !fs.existsSync(exe)) {
      throw new KfError('chromium_missing', `chromium was not found${exe ? ` at ${exe}` : ''}: PNG/SVG export needs it`, CHROMIUM_HINT);
    }
    const { chromium } = require('playwright-core') as typeof import('playwright-core');
    let browser: Browser;
    try {
      browser = await chromium.launch({ executablePath: exe, args: CHROMIUM_ARGS, headless: true, timeout: 60_000 });
    } catch (e) {
      throw new KfError(
        'chromium_failed',
        `chromium at ${exe} did not start: ${(e as Error).message.split('\n')[0]}`,
        'run `chromium --headless --no-sandbox --dump-dom about:blank` to see why, or reinstall it (apt-get install --reinstall chromium)',
        { cause: e },
      );
    }
    try {
      const page = await browser.newPage();
      // Offline by construction: anything that is not a local file, data: URL or about:blank is aborted.
      await page.route(
        (u) => !/^(file|data|about):$/.test(u.protocol),
        (route) => route.abort(),
      );
      // Loading plotly through a file:// page is ~1.5 s faster than addScriptTag (chromium reads it from disk).
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-plotly-'));
      try {
        const host = path.join(tmp, 'host.html');
        fs.writeFileSync(
          host,
          `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="${pathToFileURL(plotlyBundlePath()).href}"></script></head><body style="margin:0;background:white"></body></html>`,
        );
        await page.goto(pathToFileURL(host).href);
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
      if (!(await page.evaluate(() => typeof (globalThis as { Plotly?: unknown }).Plotly === 'object'))) {
        throw new Error(`plotly did not load from ${plotlyBundlePath()}`);
      }
      return new FigureExporter(browser, page, exe);
    } catch (e) {
      await browser.close().catch(() => undefined);
      throw new KfError(
        'plotly_load_failed',
        `plotly could not be loaded into chromium: ${(e as Error).message.split('\n')[0]}`,
        'check that node_modules/plotly.js-dist-min is installed (npm ci)',
        { cause: e },
      );
    }
  }

  /** Render one format. SVG comes back as text, PNG as bytes. Calls are serialised on the one page. */
  async render(spec: FigureSpec, format: 'svg', opts?: RenderOptions): Promise<string>;
  async render(spec: FigureSpec, format: 'png', opts?: RenderOptions): Promise<Buffer>;
  async render(spec: FigureSpec, format: 'png' | 'svg', opts: RenderOptions = {}): Promise<string | Buffer> {
    const out = await this.renderMany(spec, [format], opts);
    return out[format]!;
  }

  /** Render several formats from one plot (the plot is drawn once). */
  async renderMany(spec: FigureSpec, formats: ('png' | 'svg')[], opts: RenderOptions = {}): Promise<{ png?: Buffer; svg?: string }> {
    if (this.closed) throw new KfError('exporter_closed', 'the figure exporter was closed', 'open a new FigureExporter (or use writeFigure without one)');
    checkSpec(spec, 'figure');
    const width = opts.width ?? spec.width ?? 800;
    const height = opts.height ?? spec.height ?? 500;
    const scale = opts.scale ?? 2;
    if (!(scale > 0 && scale <= 10)) throw new KfError('bad_figure', `figure scale ${scale} is out of range`, 'use a scale between 0.1 and 10 (2 = crisp PNG)');
    const job = this.queue.then(async () => {
      const urls = await this.page.evaluate(
        async ({ data, layout, config, width, height, scale, formats }) => {
          const P = (globalThis as unknown as { Plotly: any }).Plotly; // eslint-disable-line @typescript-eslint/no-explicit-any
          const gd = document.createElement('div');
          gd.style.width = `${width}px`;
          gd.style.height = `${height}px`;
          document.body.appendChild(gd);
          try {
            await P.newPlot(gd, data, { ...layout, width, height }, { ...config, staticPlot: true });
            const res: Record<string, string> = {};
            for (const f of formats) res[f] = await P.toImage(gd, { format: f, width, height, scale: f === 'png' ? scale : 1 });
            return res;
          } finally {
            P.purge(gd);
            gd.remove();
          }
        },
        { data: spec.data, layout: spec.layout ?? {}, config: spec.config ?? {}, width, height, scale, formats },
      );
      const result: { png?: Buffer; svg?: string } = {};
      if (urls.png) result.png = Buffer.from(urls.png.replace(/^data:image\/png;base64,/, ''), 'base64');
      if (urls.svg) result.svg = decodeSvgDataUrl(urls.svg);
      return result;
    });
    this.queue = job.catch(() => undefined);
    try {
      return await job;
    } catch (e) {
      if (e instanceof KfError) throw e;
      throw new KfError(
        'figure_render_failed',
        `plotly could not draw the figure: ${(e as Error).message.split('\n')[0]}`,
        'check the figure spec (trace types, data arrays); the HTML file shows the same error in a browser console',
        { cause: e },
      );
    }
  }

  /** Draw a spec and measure what a reader sees (plots, legend, axis titles, tick labels, title, headings): figure-overlaps.ts. */
  async layoutBoxes(spec: FigureSpec): Promise<Box[]> {
    checkSpec(spec, 'figure');
    const args = JSON.stringify({ data: spec.data, layout: spec.layout ?? {}, width: spec.width ?? 800, height: spec.height ?? 500 });
    // A source string, not a function: a transpiler's helpers (tsx's __name) do not exist in the page.
    const job = this.queue.then(() => this.page.evaluate(`(${MEASURE_IN_PAGE})(${args})`));
    this.queue = job.catch(() => undefined);
    return (await job) as Box[];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.browser.close().catch(() => undefined);
  }
}

function decodeSvgDataUrl(url: string): string {
  const comma = url.indexOf(',');
  const head = url.slice(0, comma);
  const body = url.slice(comma + 1);
  return head.endsWith(';base64') ? Buffer.from(body, 'base64').toString('utf8') : decodeURIComponent(body);
}

// A process-wide exporter for callers that do not manage one. It closes itself
// after IDLE_MS without use, so a script that forgets close() still exits.
interface SharedEntry {
  exporter: Promise<FigureExporter>;
  active: number;
  timer?: NodeJS.Timeout;
}
let shared: SharedEntry | undefined;
const IDLE_MS = 5_000;

/** Take the shared exporter (started on first use); pair with releaseShared(). */
async function acquireShared(): Promise<FigureExporter> {
  if (!shared) {
    const entry: SharedEntry = { exporter: FigureExporter.open(), active: 0 };
    shared = entry;
    entry.exporter.catch(() => {
      if (shared === entry) shared = undefined;
    });
  }
  const entry = shared;
  entry.active++;
  if (entry.timer) {
    clearTimeout(entry.timer);
    entry.timer = undefined;
  }
  try {
    return await entry.exporter;
  } catch (e) {
    entry.active--;
    throw e;
  }
}

function releaseShared(): void {
  const entry = shared;
  if (!entry) return;
  entry.active = Math.max(0, entry.active - 1);
  if (entry.active === 0)
    entry.timer = setTimeout(() => {
      if (shared === entry) void closeSharedExporter();
    }, IDLE_MS);
}

/** Close the shared exporter now (CLI commands call this in `finally`). */
export async function closeSharedExporter(): Promise<void> {
  const entry = shared;
  shared = undefined;
  if (!entry) return;
  if (entry.timer) clearTimeout(entry.timer);
  const ex = await entry.exporter.catch(() => undefined);
  await ex?.close();
}

let warnedSkip = false;

export interface WriteFigureOptions extends RenderOptions {
  dir: string;
  /** Base file name: writes <name>.html/.png/.svg. */
  name: string;
  /** Default all three. */
  formats?: FigureFormat[];
  /** Reuse this browser (recommended for many figures); default the shared one. */
  exporter?: FigureExporter;
  /** Embed plotly in the HTML instead of referencing plotly.min.js beside it. */
  inlinePlotly?: boolean;
  /** Where the skip line goes (default console.warn, once per process). */
  warn?: (line: string) => void;
}

/**
 * Write a figure as <dir>/<name>.html (+ the shared plotly.min.js, see ensureSharedPlotly), .png and .svg.
 * Returns the absolute paths written. Without chromium the HTML is still written
 * and `skipped` says why PNG/SVG are missing.
 */
export async function writeFigure(given: FigureSpec, opts: WriteFigureOptions): Promise<FigurePaths> {
  checkOutputName(opts.name, 'figure');
  checkSpec(given, opts.name);
  // Settle again: notes added after the spec was built (e.g. a notebook's offline note) need their room too.
  const spec = settleLayout(given);
  // Published numbers on our axes from another benchmark or subset mislead: refused, not warned about.
  const misleading = publishedProblems(spec);
  if (misleading.length) {
    throw new KfError(
      'figure_misleading',
      `figure ${opts.name}: ${misleading[0]}`,
      'mark the series as published ({published: {benchmark}}) and pass the benchmark of our numbers: the builders draw it in a "published, not measured here" panel',
    );
  }
  for (const p of figureProblems(spec)) (opts.warn ?? console.warn)(`WARNING: figure ${opts.name}: ${p}`);
  const formats = opts.formats ?? [...FIGURE_FORMATS];
  for (const f of formats) {
    if (!FIGURE_FORMATS.includes(f)) throw new KfError('bad_figure_format', `figure format "${f}" is not supported`, `use ${FIGURE_FORMATS.join(', ')}`);
  }
  const dir = ensureWritableDir(opts.dir, 'figure directory');
  const out: FigurePaths = {};
  if (formats.includes('html')) {
    const plotlySrc = opts.inlinePlotly ? undefined : ensureSharedPlotly(dir);
    out.html = path.join(dir, `${opts.name}.html`);
    const sizedSpec = { ...spec, width: opts.width ?? spec.width, height: opts.height ?? spec.height };
    writeFileAtomic(out.html, figureHtml(sizedSpec, { title: opts.name, inlinePlotly: opts.inlinePlotly, plotlySrc }));
  }
  const images = formats.filter((f): f is 'png' | 'svg' => f !== 'html');
  if (!images.length) return out;
  let exporter = opts.exporter;
  if (!exporter) {
    if (!findChromium()) {
      out.skipped = `${images.join('/').toUpperCase()} skipped for ${opts.name}: chromium not found -- ${CHROMIUM_HINT}; the HTML was written`;
      if (!warnedSkip || opts.warn) (opts.warn ?? console.warn)(out.skipped);
      warnedSkip = true;
      return out;
    }
    exporter = await acquireShared();
  }
  try {
    const r = await exporter.renderMany(spec, images, opts);
    if (r.png) {
      out.png = path.join(dir, `${opts.name}.png`);
      writeFileAtomic(out.png, r.png);
    }
    if (r.svg) {
      out.svg = path.join(dir, `${opts.name}.svg`);
      writeFileAtomic(out.svg, r.svg);
    }
  } catch (e) {
    if (e instanceof KfError && e.code === 'figure_render_failed') {
      throw new KfError(e.code, `figure "${opts.name}": ${e.message}`, e.hint, { concerns: opts.name, cause: e });
    }
    throw e;
  } finally {
    if (!opts.exporter) releaseShared();
  }
  return out;
}

/** SVG text of a figure (for inline display in notebooks). Uses the shared exporter unless one is given. */
export async function figureSvg(spec: FigureSpec, opts: RenderOptions & { exporter?: FigureExporter } = {}): Promise<string> {
  if (opts.exporter) return opts.exporter.render(spec, 'svg', opts);
  const ex = await acquireShared();
  try {
    return await ex.render(spec, 'svg', opts);
  } finally {
    releaseShared();
  }
}
