/**
 * Checks of what a notebook wrote into results/<notebook>/ (used by the
 * notebook tests): tables have their columns, figures have traces, axis
 * titles and legends, PNG/SVG are non-empty, the manifest lists the files.
 * Files are checked, never pixels.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseCsv } from '../../lib/report/table';

interface FigureDoc {
  data: { type?: string; name?: string; x?: unknown[]; y?: unknown[]; r?: unknown[] }[];
  layout: Record<string, unknown>;
}

/** The Plotly data and layout embedded in a figure's HTML (writeFigure's page). */
function readFigureHtml(file: string): FigureDoc {
  const html = fs.readFileSync(file, 'utf8');
  const start = html.indexOf("Plotly.newPlot('figure', ");
  const end = html.indexOf(');\n}', start);
  if (start < 0 || end < 0) throw new Error(`${file}: no Plotly.newPlot call`);
  const inner = html.slice(start + "Plotly.newPlot('figure', ".length, end);
  // The three arguments are JSON (with <, U+2028/9 escaped): valid JavaScript array elements.
  const [data, layout] = new Function(`return [${inner}]`)() as [FigureDoc['data'], Record<string, unknown>];
  return { data, layout };
}

const titleText = (t: unknown): string => (typeof t === 'string' ? t : ((t as { text?: string } | undefined)?.text ?? ''));

/** Problems with one figure (empty list = fine). */
export function figureProblems(htmlFile: string, opts: { chromium: boolean; offlineNote?: string }): string[] {
  const out: string[] = [];
  const name = path.basename(htmlFile);
  let doc: FigureDoc;
  try {
    doc = readFigureHtml(htmlFile);
  } catch (e) {
    return [(e as Error).message];
  }
  if (!doc.data.length) out.push(`${name}: no traces`);
  const title = titleText(doc.layout.title);
  if (!title) out.push(`${name}: no title`);
  if (opts.offlineNote && !title.includes(opts.offlineNote)) out.push(`${name}: title lacks "${opts.offlineNote}"`);
  const polar = !!doc.layout.polar;
  if (!polar) {
    if (!titleText((doc.layout.xaxis as Record<string, unknown> | undefined)?.title)) out.push(`${name}: no x axis title`);
    if (
      !titleText((doc.layout.yaxis as Record<string, unknown> | undefined)?.title) &&
      (doc.layout.yaxis as { visible?: boolean } | undefined)?.visible !== false
    )
      out.push(`${name}: no y axis title`);
  }
  const named = doc.data.filter((t) => t.name);
  if (doc.data.length > 1 && doc.layout.showlegend !== true) out.push(`${name}: ${doc.data.length} traces but no legend`);
  if (doc.data.length > 1 && !named.length) out.push(`${name}: traces have no names for the legend`);
  if (opts.chromium) {
    for (const ext of ['png', 'svg']) {
      const f = htmlFile.replace(/\.html$/, `.${ext}`);
      if (!fs.existsSync(f) || fs.statSync(f).size < 500) out.push(`${name}: ${ext.toUpperCase()} missing or empty`);
    }
  }
  return out;
}

/** Problems with a table (empty = fine): a header with named columns, rows parse, the Markdown twin exists. */
function tableProblems(csvFile: string): string[] {
  const name = path.basename(csvFile);
  const text = fs.readFileSync(csvFile, 'utf8');
  const header = text.split('\n')[0] ?? '';
  const out: string[] = [];
  if (!header.trim()) out.push(`${name}: no header`);
  try {
    parseCsv(text);
  } catch (e) {
    out.push(`${name}: ${(e as Error).message}`);
  }
  if (!fs.existsSync(csvFile.replace(/\.csv$/, '.md'))) out.push(`${name}: no Markdown twin`);
  return out;
}

/** Columns of a CSV file. */
export function csvColumns(csvFile: string): string[] {
  const rows = parseCsv(fs.readFileSync(csvFile, 'utf8'));
  if (rows.length) return Object.keys(rows[0]);
  return (fs.readFileSync(csvFile, 'utf8').split('\n')[0] ?? '').split(',').filter(Boolean);
}

/** Problems with a notebook's results folder as a whole. */
export function folderProblems(dir: string, opts: { chromium: boolean; offlineNote?: string }): { problems: string[]; tables: string[]; figures: string[] } {
  const problems: string[] = [];
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) return { problems: [`${path.basename(dir)}: no manifest.json`], tables: [], figures: [] };
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    files: { path: string }[];
    git: { commit: string | null };
    seed?: unknown;
    backend?: string;
  };
  const files = fs.readdirSync(dir);
  const tables = files.filter((f) => f.endsWith('.csv')).map((f) => path.join(dir, f));
  const figures = files.filter((f) => f.endsWith('.html')).map((f) => path.join(dir, f));
  for (const t of tables) problems.push(...tableProblems(t));
  for (const f of figures) problems.push(...figureProblems(f, opts));
  const listed = new Set(manifest.files.map((f) => f.path));
  for (const f of [...tables, ...figures]) if (!listed.has(path.basename(f))) problems.push(`${path.basename(dir)}: ${path.basename(f)} not in manifest.json`);
  if (manifest.seed === undefined) problems.push(`${path.basename(dir)}: manifest has no seed`);
  return { problems, tables, figures };
}
