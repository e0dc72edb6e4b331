/**
 * What notebooks call to show results inline (tslab kernel) and to find their
 * output folder. Keeps notebooks thin: one call per table or figure.
 *
 *   const kit = require('kf-harness/lib/report/notebook-kit');
 *   kit.showTable(rows, { caption: 'Accuracy by mode', decimals: 3, notes: [OFFLINE_NOTE] });
 *   await kit.showFigure(spec);                     // renders an SVG inline
 *   await kit.showFigure(await writeFigure(spec, { dir, name, exporter: kit.exporter() }))  // show what was written
 *
 * The figure browser (chromium) stays open for the kernel's life, so figure
 * cells after the first cost ~0.2 s; `await kit.closeFigures()` frees it.
 * Outside a tslab kernel the show* functions print text instead (scripts, tests).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../util/paths';
import { toMarkdown, type DataFrameLike, type Row, type TableOptions } from './table';
import { CHROMIUM_HINT, FigureExporter, findChromium, type FigurePaths, type FigureSpec, type RenderOptions } from './figure';

interface TslabDisplay {
  markdown(s: string): void;
  html(s: string): void;
  svg(s: string): void;
  text(s: string): void;
}

/** One display output with several representations (Jupyter shows the richest it may). */
type MimeBundle = Record<string, string>;

interface TslabJupyter {
  lastWriteDisplayData?: (d: { data: MimeBundle; metadata: Record<string, unknown>; transient: Record<string, unknown> }, update: boolean) => void;
}

/** tslab's jupyter module when running inside a tslab kernel, else null. */
function tslabJupyter(): TslabJupyter | null {
  try {
    // Inside a kernel, tslab's jupyter module is already loaded (same node_modules/tslab, same
    // instance); outside one we must not load it (it pulls in a whole TypeScript compiler).
    const cached = require.cache[require.resolve('tslab/dist/jupyter')];
    const jupyter = cached?.exports as TslabJupyter | undefined;
    return jupyter?.lastWriteDisplayData ? jupyter : null;
  } catch {
    return null;
  }
}

/** tslab's display, or null when not running inside a tslab kernel. */
function tslabDisplay(): TslabDisplay | null {
  if (!tslabJupyter()) return null;
  try {
    return (require('tslab') as { display: TslabDisplay }).display;
  } catch {
    return null;
  }
}

/**
 * Show one output with fallbacks: a notebook opened untrusted (or a viewer without SVG/Markdown) still
 * shows the PNG or the plain text, never nothing. Returns false outside a kernel.
 */
function displayBundle(data: MimeBundle): boolean {
  const j = tslabJupyter();
  if (!j?.lastWriteDisplayData) return false;
  j.lastWriteDisplayData({ data, metadata: {}, transient: {} }, false);
  return true;
}

/** The results root of notebooks: KF_NB_RESULTS (tests point it at a temporary folder) or <repo>/results. */
export function notebookResultsRoot(): string {
  return path.resolve(process.env.KF_NB_RESULTS || path.join(repoRoot(), 'results'));
}

/** results/<name>/ for a notebook (created). Name defaults to KF_NOTEBOOK, set by `kf notebooks`. */
export function notebookResultsDir(name = process.env.KF_NOTEBOOK): string {
  if (!name) throw new Error('notebookResultsDir needs the notebook name (e.g. notebookResultsDir("01-demo")) when not run by `kf notebooks`');
  const dir = path.join(notebookResultsRoot(), name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/** Markdown inline, with its text as the plain-text fallback. */
export function showMarkdown(md: string): void {
  if (!displayBundle({ 'text/markdown': md, 'text/plain': md })) console.log(md);
}

/** A table inline, as GitHub Markdown (same text as the .md file writeTable writes). */
export function showTable(rows: Row[] | DataFrameLike, opts: TableOptions = {}): void {
  showMarkdown(toMarkdown(rows, opts));
}

let kitExporter: Promise<FigureExporter> | undefined;

/** The kernel-lifetime figure exporter (pass it to writeFigure to share the browser). */
export function exporter(): Promise<FigureExporter> {
  if (!kitExporter) {
    kitExporter = FigureExporter.open();
    kitExporter.catch(() => {
      kitExporter = undefined;
    });
  }
  return kitExporter;
}

export async function closeFigures(): Promise<void> {
  const p = kitExporter;
  kitExporter = undefined;
  if (p) await (await p.catch(() => undefined))?.close();
}

/**
 * A figure inline as SVG: from a spec (rendered now) or from writeFigure's paths
 * (the written .svg is shown). Without chromium it says where the HTML is instead.
 */
export async function showFigure(fig: FigureSpec | FigurePaths, opts: RenderOptions = {}): Promise<void> {
  const d = tslabDisplay();
  const isPaths = !Array.isArray((fig as FigureSpec).data);
  let svg: string | undefined;
  let png: Buffer | undefined;
  let alt: string;
  if (isPaths) {
    const p = fig as FigurePaths;
    alt = `figure ${path.basename(p.svg ?? p.png ?? p.html ?? 'figure')}`;
    if (p.png && fs.existsSync(p.png)) png = fs.readFileSync(p.png);
    if (p.svg && fs.existsSync(p.svg)) svg = fs.readFileSync(p.svg, 'utf8');
    else {
      const msg = `figure: no SVG to show (${p.skipped ?? 'SVG not written'})${p.html ? `; open ${p.html}` : ''}`;
      if (d) d.text(msg);
      else console.log(msg);
      return;
    }
  } else if (!findChromium()) {
    const msg = `figure not shown inline: chromium not found -- ${CHROMIUM_HINT}; writeFigure still writes the HTML`;
    if (d) d.text(msg);
    else console.log(msg);
    return;
  } else {
    const spec = fig as FigureSpec;
    const title = (spec.layout as { title?: { text?: string } | string } | undefined)?.title;
    alt = `figure: ${(typeof title === 'string' ? title : title?.text) ?? 'untitled'}`.replace(/<[^>]+>/g, ' ');
    ({ svg, png } = await (await exporter()).renderMany(spec, ['svg', 'png'], { scale: 1, ...opts }));
  }
  // SVG for trusted notebooks, PNG when the viewer will not draw SVG (untrusted), text last.
  const bundle: MimeBundle = { 'image/svg+xml': svg!, 'text/plain': alt };
  if (png) bundle['image/png'] = png.toString('base64');
  if (!displayBundle(bundle)) console.log(`[svg figure, ${svg!.length} chars]`);
}
