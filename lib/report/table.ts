/**
 * Result tables: rows in, a CSV (for machines) and a GitHub-Markdown table (for
 * people: aligned columns, fixed decimals, caption and footnotes) out.
 *
 * Why our own CSV writer: danfojs-node's `toCSV` does not quote fields, so a
 * string holding a comma, quote or newline corrupts the file. We follow RFC 4180
 * (quote when needed, double inner quotes, CRLF-free "\n" line ends) and keep full
 * numeric precision in the CSV; rounding is only for the Markdown view.
 *
 * A danfojs DataFrame is accepted anywhere rows are (it is read through its
 * `columns` and `values`, so this module never loads danfojs itself: loading it
 * costs ~1.5 s).
 */
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { ensureWritableDir, writeFileAtomic } from '../util/fsx';

export type Row = Record<string, unknown>;

/** The part of a danfojs DataFrame we read (duck-typed, no import). */
export interface DataFrameLike {
  columns: string[];
  values: unknown[][] | unknown[];
  shape: number[];
}

export interface ColumnSpec {
  /** Key in the row objects. */
  key: string;
  /** Header shown in Markdown (the CSV header keeps the key: stable for machines). */
  label?: string;
  /** Decimals for non-integer numbers in this column (overrides TableOptions.decimals). */
  decimals?: number;
  /** Markdown alignment; default right for numeric columns, left otherwise. */
  align?: 'left' | 'right' | 'center';
  /** Custom Markdown cell text (the CSV keeps the raw value). */
  format?: (value: unknown, row: Row) => string;
}

export interface TableOptions {
  /** Columns in order (a subset is fine); default: every key, in first-seen order. */
  columns?: (string | ColumnSpec)[];
  /** Decimals for numbers in Markdown (default 3). A column holding only integers (counts) prints them as integers. */
  decimals?: number;
  /** A line above the Markdown table, e.g. "Table 2: answer accuracy by mode". */
  caption?: string;
  /** Footnote lines below the Markdown table, e.g. "offline backend: not model results". */
  notes?: string[];
}

export interface WriteTableOptions extends TableOptions {
  dir: string;
  /** Base file name without extension: writes <name>.csv and <name>.md. */
  name: string;
}

export interface TablePaths {
  csv: string;
  md: string;
}

/** Text shown in Markdown for missing values (null, undefined, NaN). */
export const MISSING = 'n/a';

function isDataFrameLike(x: unknown): x is DataFrameLike {
  return !!x && typeof x === 'object' && !Array.isArray(x) && Array.isArray((x as DataFrameLike).columns) && Array.isArray((x as DataFrameLike).values);
}

/** Rows of a danfojs DataFrame (or rows unchanged). */
export function rowsOf(input: Row[] | DataFrameLike): Row[] {
  if (Array.isArray(input)) {
    input.forEach((r, i) => {
      if (!r || typeof r !== 'object' || Array.isArray(r)) {
        throw new KfError(
          'bad_table_row',
          `table row ${i} is ${Array.isArray(r) ? 'an array' : typeof r}, not an object`,
          'pass rows as objects like {mode: "S4", accuracy: 0.61}',
        );
      }
    });
    return input;
  }
  if (isDataFrameLike(input)) {
    const cols = input.columns;
    // A one-column frame's values can be a flat array.
    const values = (input.values as unknown[]).map((v) => (Array.isArray(v) ? v : [v]));
    return values.map((vals) => Object.fromEntries(cols.map((c, j) => [c, vals[j]])));
  }
  throw new KfError(
    'bad_table',
    `a table needs an array of row objects or a danfojs DataFrame, got ${typeof input}`,
    'pass rows as objects like [{mode: "S4", accuracy: 0.61}]',
  );
}

function resolveColumns(rows: Row[], columns?: (string | ColumnSpec)[]): ColumnSpec[] {
  if (columns?.length) {
    const specs = columns.map((c) => (typeof c === 'string' ? { key: c } : c));
    const seen = new Set<string>();
    for (const c of specs) {
      if (!c || typeof c.key !== 'string' || c.key === '')
        throw new KfError('bad_table_column', 'a table column has no key', 'give every column a key naming a row field');
      if (seen.has(c.key)) throw new KfError('bad_table_column', `table column "${c.key}" is listed twice`, 'list each column once');
      seen.add(c.key);
    }
    return specs;
  }
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const r of rows)
    for (const k of Object.keys(r))
      if (!seen.has(k)) {
        seen.add(k);
        keys.push(k);
      }
  return keys.map((key) => ({ key }));
}

const isMissing = (v: unknown) => v === null || v === undefined || (typeof v === 'number' && Number.isNaN(v));

/** Full-precision text of a value for the CSV. */
function rawText(v: unknown): string {
  if (isMissing(v)) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

/** RFC 4180 field: quoted when it holds a comma, quote, CR/LF, or edge spaces; inner quotes doubled. */
export function csvField(v: unknown): string {
  const s = rawText(v);
  return /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** CSV text: header of column keys, one line per row, "\n" line ends, trailing newline. */
export function toCsv(input: Row[] | DataFrameLike, opts: Pick<TableOptions, 'columns'> = {}): string {
  const rows = rowsOf(input);
  const cols = resolveColumns(rows, opts.columns);
  if (!cols.length) return '';
  const lines = [cols.map((c) => csvField(c.key)).join(',')];
  for (const r of rows) lines.push(cols.map((c) => csvField(r[c.key])).join(','));
  return lines.join('\n') + '\n';
}

function checkDecimals(d: number | undefined, what: string): void {
  if (d !== undefined && (!Number.isInteger(d) || d < 0 || d > 20)) {
    throw new KfError('bad_decimals', `${what} decimals must be an integer in 0..20, got ${d}`, 'pass e.g. decimals: 3');
  }
}

/**
 * Markdown text of one value: escaped pipes, <br> for newlines; numbers with
 * fixed decimals, except integers in a column holding only integers (counts),
 * so one column never mixes "8" and "56.0".
 */
function mdText(v: unknown, decimals: number, integerColumn = false): string {
  if (isMissing(v)) return MISSING;
  let s: string;
  if (typeof v === 'number') s = Number.isInteger(v) && integerColumn ? String(v) : Number.isFinite(v) ? v.toFixed(decimals) : String(v);
  else s = rawText(v);
  return escapeMd(s);
}

function escapeMd(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/** Display width: code points, so accented letters count once. */
const width = (s: string) => [...s].length;

function pad(s: string, w: number, align: 'left' | 'right' | 'center'): string {
  const gap = w - width(s);
  if (gap <= 0) return s;
  if (align === 'right') return ' '.repeat(gap) + s;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(gap - Math.floor(gap / 2));
  return s + ' '.repeat(gap);
}

/**
 * A GitHub-Markdown table with columns padded to equal width (readable as plain
 * text too), numbers right-aligned, an optional caption line above and footnote
 * lines below. Ends with a newline.
 */
export function toMarkdown(input: Row[] | DataFrameLike, opts: TableOptions = {}): string {
  const rows = rowsOf(input);
  const cols = resolveColumns(rows, opts.columns);
  const decimals = opts.decimals ?? 3;
  checkDecimals(decimals, 'table');
  const out: string[] = [];
  if (opts.caption) out.push(escapeCaption(opts.caption), '');
  if (!cols.length) {
    out.push('_(no rows)_');
  } else {
    const header = cols.map((c) => escapeMd(c.label ?? c.key));
    const integerCols = cols.map((c) => rows.every((r) => typeof r[c.key] !== 'number' || Number.isInteger(r[c.key])));
    const cells = rows.map((r) =>
      cols.map((c, j) => {
        checkDecimals(c.decimals, `column "${c.key}"`);
        return c.format ? escapeMd(c.format(r[c.key], r)) : mdText(r[c.key], c.decimals ?? decimals, integerCols[j]);
      }),
    );
    const aligns = cols.map((c) => c.align ?? (isNumericColumn(rows, c.key) ? 'right' : 'left'));
    // Separator needs at least 3 characters (':--' etc.).
    const widths = cols.map((_, j) => Math.max(3, width(header[j]), ...cells.map((row) => width(row[j]))));
    const line = (vals: string[]) => `| ${vals.map((v, j) => pad(v, widths[j], aligns[j])).join(' | ')} |`;
    out.push(line(header));
    out.push(`| ${aligns.map((a, j) => sepCell(a, widths[j])).join(' | ')} |`);
    for (const row of cells) out.push(line(row));
    if (!rows.length) out.push('', '_(no rows)_');
  }
  if (opts.notes?.length) {
    // Two trailing spaces = a Markdown line break, so each note stays on its own line.
    out.push('', opts.notes.map(escapeCaption).join('  \n'));
  }
  return out.join('\n') + '\n';
}

function escapeCaption(s: string): string {
  return s.replace(/\r?\n/g, ' ');
}

function sepCell(align: 'left' | 'right' | 'center', w: number): string {
  if (align === 'right') return '-'.repeat(w - 1) + ':';
  if (align === 'center') return ':' + '-'.repeat(w - 2) + ':';
  return '-'.repeat(w);
}

/** A column is numeric when every present value is a number. */
function isNumericColumn(rows: Row[], key: string): boolean {
  let any = false;
  for (const r of rows) {
    const v = r[key];
    if (v === null || v === undefined) continue;
    if (typeof v !== 'number') return false;
    any = true;
  }
  return any;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Checks a base file name given to writeTable / writeFigure (no folders, no odd characters). */
export function checkOutputName(name: string, what: string): void {
  if (typeof name !== 'string' || !SAFE_NAME.test(name) || name.includes('..')) {
    throw new KfError(
      'bad_output_name',
      `${what} name "${name}" is not a plain file name`,
      'use letters, digits, ".", "_" and "-" only (the folder goes in `dir`)',
    );
  }
}

/** Write <dir>/<name>.csv and <dir>/<name>.md atomically; returns their absolute paths. */
export function writeTable(input: Row[] | DataFrameLike, opts: WriteTableOptions): TablePaths {
  checkOutputName(opts.name, 'table');
  const dir = ensureWritableDir(opts.dir, 'table directory');
  const md = toMarkdown(input, opts);
  const csv = toCsv(input, opts);
  const paths = { csv: path.join(dir, `${opts.name}.csv`), md: path.join(dir, `${opts.name}.md`) };
  writeFileAtomic(paths.csv, csv);
  writeFileAtomic(paths.md, md);
  return paths;
}

/** Parse RFC 4180 CSV (as written by toCsv) back into rows of strings: used by tests and notebooks reading results. */
export function parseCsv(text: string): Row[] {
  const records: string[][] = [];
  let field = '';
  let rec: string[] = [];
  let i = 0;
  let quoted = false;
  let any = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"') {
      quoted = true;
      any = true;
      i++;
      continue;
    }
    if (ch === ',') {
      rec.push(field);
      field = '';
      any = true;
      i++;
      continue;
    }
    if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      rec.push(field);
      records.push(rec);
      rec = [];
      field = '';
      any = false;
      i++;
      continue;
    }
    field += ch;
    any = true;
    i++;
  }
  if (quoted) throw new KfError('bad_csv', 'CSV ends inside a quoted field', 'the file was cut short: regenerate it');
  if (any || field) {
    rec.push(field);
    records.push(rec);
  }
  if (!records.length) return [];
  const [header, ...body] = records;
  return body.map((r) => Object.fromEntries(header.map((h, j) => [h, r[j] ?? ''])));
}
