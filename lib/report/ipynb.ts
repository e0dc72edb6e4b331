/**
 * Author Jupyter notebooks from code: a list of cells in, nbformat 4.5 JSON out,
 * with the tslab (TypeScript) kernelspec, so `kf notebooks` and Jupyter both know
 * which kernel runs it.
 *
 * Why generate notebooks instead of hand-editing JSON: diffs stay readable (the
 * cell list lives in a .ts file), cell ids are deterministic (same cells -> same
 * bytes, no churn in git), and outputs are always empty in the source notebook;
 * executed copies with outputs go to results/notebooks/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha256 } from '../util/hash';
import { KfError } from '../util/errors';
import { writeFileAtomic } from '../util/fsx';

export type CellType = 'markdown' | 'code';

export interface CellSpec {
  type: CellType;
  source: string;
  /** Cell tags (e.g. 'parameters' for papermill-style parameter cells). */
  tags?: string[];
}

export interface NotebookOptions {
  /** Only tslab is supported: the TypeScript kernel the harness registers. */
  kernel?: 'tslab';
  /** Extra notebook-level metadata (merged under `metadata.kf`). */
  meta?: Record<string, unknown>;
}

/** The nbformat 4 JSON shape we write (a subset of the schema, all we need). */
export interface NotebookJson {
  cells: NotebookCellJson[];
  metadata: Record<string, unknown>;
  nbformat: 4;
  nbformat_minor: number;
}

export interface NotebookCellJson {
  cell_type: CellType;
  id: string;
  metadata: Record<string, unknown>;
  source: string[];
  execution_count?: number | null;
  outputs?: unknown[];
}

export const TSLAB_KERNELSPEC = { name: 'tslab', display_name: 'TypeScript', language: 'typescript' } as const;

/** Jupyter stores source as lines that keep their '\n' (the last line has none). */
export function toSourceLines(source: string): string[] {
  const text = source.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  if (text === '') return [];
  const lines = text.split('\n');
  return lines.map((l, i) => (i < lines.length - 1 ? l + '\n' : l));
}

/** Build a valid nbformat 4.5 notebook (cell ids included) from a cell list. */
export function makeNotebook(cells: CellSpec[], opts: NotebookOptions = {}): NotebookJson {
  if ((opts.kernel ?? 'tslab') !== 'tslab') {
    throw new KfError('bad_kernel', `unsupported notebook kernel "${opts.kernel}"`, "use kernel 'tslab' (the TypeScript kernel the harness registers)");
  }
  const seen = new Set<string>();
  const out: NotebookCellJson[] = cells.map((c, i) => {
    if (c.type !== 'markdown' && c.type !== 'code') {
      throw new KfError('bad_cell', `cell ${i} has type "${String(c.type)}"`, "a cell type is 'markdown' or 'code'");
    }
    if (typeof c.source !== 'string') throw new KfError('bad_cell', `cell ${i} has no source string`, 'give every cell a source string');
    // Deterministic id (nbformat: 1-64 chars of [a-zA-Z0-9-_]); unique even for duplicate cells.
    let id = `c${i}-${sha256(c.type + '\0' + c.source).slice(0, 8)}`;
    while (seen.has(id)) id += 'x';
    seen.add(id);
    const metadata: Record<string, unknown> = c.tags?.length ? { tags: c.tags } : {};
    const source = toSourceLines(c.source);
    return c.type === 'code'
      ? { cell_type: 'code', id, metadata, source, execution_count: null, outputs: [] }
      : { cell_type: 'markdown', id, metadata, source };
  });
  const metadata: Record<string, unknown> = {
    kernelspec: { ...TSLAB_KERNELSPEC },
    language_info: { name: 'typescript', file_extension: '.ts', mimetype: 'text/typescript' },
  };
  if (opts.meta) metadata.kf = opts.meta;
  return { cells: out, metadata, nbformat: 4, nbformat_minor: 5 };
}

/** Serialise like Jupyter does (1-space indent, trailing newline) so saving from Jupyter makes small diffs. */
export function notebookToString(nb: NotebookJson): string {
  return JSON.stringify(nb, null, 1) + '\n';
}

/** Write a notebook file atomically; returns the absolute path. */
export function writeNotebook(file: string, cells: CellSpec[], opts: NotebookOptions = {}): string {
  const abs = path.resolve(file);
  writeFileAtomic(abs, notebookToString(makeNotebook(cells, opts)));
  return abs;
}

/** Read a notebook file; a KfError names the file when it is missing or not a notebook. */
export function readNotebook(file: string): NotebookJson {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new KfError('notebook_missing', `notebook ${file} cannot be read (${(e as NodeJS.ErrnoException).code})`, 'check the path', {
      concerns: file,
      cause: e,
    });
  }
  let nb: NotebookJson;
  try {
    nb = JSON.parse(text) as NotebookJson;
  } catch (e) {
    throw new KfError(
      'bad_notebook',
      `notebook ${file} is not valid JSON: ${(e as Error).message}`,
      'regenerate it (scripts/make-notebooks.ts) or fix it in Jupyter',
      { concerns: file, cause: e },
    );
  }
  if (!nb || !Array.isArray(nb.cells) || nb.nbformat !== 4) {
    throw new KfError('bad_notebook', `notebook ${file} is not an nbformat 4 notebook`, 'regenerate it (scripts/make-notebooks.ts) or save it from Jupyter', {
      concerns: file,
    });
  }
  return nb;
}

/** Source text of a cell (joined lines). */
export function cellSource(cell: { source: string | string[] }): string {
  return Array.isArray(cell.source) ? cell.source.join('') : cell.source;
}

/**
 * Cells from a "percent format" script (the jupytext convention), so notebooks
 * can be written as plain .ts-like text files and generated:
 *
 *   // %% [markdown]
 *   // # Title
 *   // Some *markdown* (each line a `//` comment).
 *   // %% tags=["parameters"]
 *   const seed = 7;
 *   // %%
 *   console.log(seed);
 *
 * `// %%` starts a code cell, `// %% [markdown]` a markdown cell; `tags=[...]`
 * (JSON) sets cell tags. Text before the first marker becomes a code cell when not
 * blank. Leading/trailing blank lines of each cell are dropped.
 */
export function parsePercentScript(text: string, file = 'script'): CellSpec[] {
  const cells: CellSpec[] = [];
  // `explicit`: started by a marker (kept even when empty); the implicit cell before any marker is kept only when not blank.
  let cur: { type: CellType; lines: string[]; tags?: string[]; line: number; explicit: boolean } = { type: 'code', lines: [], line: 0, explicit: false };
  const flush = () => {
    let lines = cur.lines;
    if (cur.type === 'markdown') {
      lines = lines.map((l, i) => {
        if (l.trim() === '') return '';
        const m = /^\s*\/\/ ?(.*)$/.exec(l);
        if (!m)
          throw new KfError(
            'bad_percent_script',
            `${file}:${cur.line + 1 + i}: a markdown cell line must start with "//"`,
            'prefix markdown lines with "// " or start a code cell with "// %%"',
            { concerns: file },
          );
        return m[1];
      });
    }
    while (lines.length && lines[0].trim() === '') lines.shift();
    while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
    if (lines.length || cur.explicit) cells.push({ type: cur.type, source: lines.join('\n'), ...(cur.tags ? { tags: cur.tags } : {}) });
  };
  const src = text.replace(/\r\n?/g, '\n').split('\n');
  src.forEach((line, i) => {
    const m = /^\s*\/\/\s?%%(.*)$/.exec(line);
    if (!m) {
      cur.lines.push(line);
      return;
    }
    flush();
    const rest = m[1];
    const type: CellType = /\[markdown\]/.test(rest) ? 'markdown' : 'code';
    let tags: string[] | undefined;
    const t = /tags\s*=\s*(\[[^\]]*\])/.exec(rest);
    if (t) {
      try {
        tags = JSON.parse(t[1]) as string[];
      } catch {
        throw new KfError('bad_percent_script', `${file}:${i + 1}: tags must be a JSON list like tags=["parameters"]`, 'fix the cell marker', {
          concerns: file,
        });
      }
    }
    cur = { type, lines: [], tags, line: i + 1, explicit: true };
  });
  flush();
  return cells;
}
