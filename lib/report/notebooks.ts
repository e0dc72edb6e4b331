/**
 * Headless execution of the project's notebooks (`kf notebooks`): every
 * notebooks/*.ipynb in name order, on the tslab TypeScript kernel, executed copies
 * written to results/notebooks/ (sources are never touched), stopping at the
 * first failing cell with the notebook, the cell and the error named.
 *
 * ---------------------------------------------------------------------------
 * FOR NOTEBOOK AUTHORS (verified with tslab 1.0.22, Node 20, nbclient 0.7)
 * ---------------------------------------------------------------------------
 * Importing the harness. tslab cannot import .ts files from outside the notebook
 * folder, so notebooks use the COMPILED library (`npm run build` -> dist/), by
 * the package's self-reference (package.json `exports`: '.' and './lib/*'):
 *
 *     const { makeRng } = require('kf-harness/lib/util/rng');     // works, value typed `any`
 *     const table = require('kf-harness/lib/report/table');
 *
 * `import ... from 'kf-harness/lib/...'` does NOT work: tslab type-checks with
 * the old Node10 module resolution, which ignores `exports` ("Cannot find module
 * 'kf-harness/lib/util/rng' or its corresponding type declarations"). For types,
 * either import relatively from dist/ (notebooks/ sits beside dist/):
 *
 *     import { makeRng } from '../dist/lib/util/rng';             // typed, same module
 *
 * or keep require() and borrow the types:
 *
 *     const rngLib: typeof import('../dist/lib/util/rng') = require('kf-harness/lib/util/rng');
 *     import type { Rng } from '../dist/lib/util/rng';
 *
 * Rebuild after changing lib/ (`npm run build`, or `kf notebooks --build`): the
 * kernel runs dist/, and a running kernel caches modules until it restarts.
 * Packages from node_modules import normally (`import * as fs from 'fs'`,
 * `import * as dfd from 'danfojs-node'`).
 *
 * Top-level await works in any cell: `const r = await runSomething();`.
 * ALWAYS await promises: a rejected await fails the cell, but a promise left
 * un-awaited that rejects is only logged by the kernel and the run goes on.
 * A cell's last expression is printed (like a REPL); console.log goes to stdout.
 * Declarations (const/let/function) persist into later cells. tslab quirk: a
 * shorthand property naming a variable declared in ANOTHER cell (`{ out }`)
 * throws "out is not defined" at run time: write `{ out: out }`.
 *
 * Inline display (tslab's display API, or the helpers in lib/report/notebook-kit):
 *
 *     import * as tslab from 'tslab';
 *     tslab.display.markdown(toMarkdown(rows, { decimals: 3 }));  // a table
 *     tslab.display.html('<b>html</b>');
 *     tslab.display.svg(svgText);  tslab.display.png(pngBytes);
 *
 *     const kit = require('kf-harness/lib/report/notebook-kit');
 *     kit.showTable(rows, { decimals: 3, notes: [OFFLINE_NOTE] });
 *     await kit.showFigure(barFigure({...}));      // static SVG: renders in Jupyter, GitHub, nbviewer
 *
 * Figures are shown as SVG (rendered by the same offline chromium as the files),
 * not as live Plotly HTML: script outputs are dropped in untrusted notebooks and
 * on GitHub, and an interactive copy would embed the 4.8 MB plotly bundle per
 * figure. The interactive version is the .html written by writeFigure.
 *
 * Errors. A failing cell (thrown error or value, rejected await, TypeScript type error)
 * stops `kf notebooks`; the message names the notebook, the cell index (0-based,
 * counting markdown cells, as in the .ipynb) and its first line. TypeScript type
 * errors ARE failures in tslab: the cell does not run.
 * Environment inside the kernel: cwd = the notebook's folder; KF_NOTEBOOK = the
 * notebook's base name (headless runs only); KF_HEADLESS=1.
 * ---------------------------------------------------------------------------
 *
 * Why not plain `jupyter nbconvert --execute`: tslab reports errors as stderr
 * text with an empty error name, so nbconvert's message is a bare "<Error>:" and
 * no partial notebook is written. We drive nbclient (the library inside
 * nbconvert's ExecutePreprocessor) with a 60-line Python script instead: it runs
 * cell by cell, knows which cell failed, and always saves what ran.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { KfError } from '../util/errors';
import { repoRoot } from '../util/paths';
import { ensureWritableDir } from '../util/fsx';
import { cellSource, readNotebook, type NotebookJson } from './ipynb';
import { acquireKernelStart } from './notebook-kernel-lock';
import { installTslabKernelSpec } from './tslab-kernelspec';

export const JUPYTER_APT = 'apt-get install -y jupyter-nbconvert jupyter-client python3-nbclient python3-ipykernel';

/** Python interpreters to try for Jupyter: Debian's first (python3 on PATH may be a pyenv build without Jupyter). */
const PYTHON_CANDIDATES = ['/usr/bin/python3', 'python3'];

/** The environment notebooks run in: node_modules/.bin (the `tslab` kernel binary) and this Node first on PATH. */
export function notebookEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const bin = path.join(repoRoot(), 'node_modules', '.bin');
  const pathParts = [bin, path.dirname(process.execPath), ...(process.env.PATH ?? '').split(path.delimiter)].filter(Boolean);
  return {
    ...process.env,
    PATH: [...new Set(pathParts)].join(path.delimiter),
    // Silence pydevd's "frozen modules" warnings from Debian's Python 3.11.
    PYDEVD_DISABLE_FILE_VALIDATION: '1',
    KF_HEADLESS: '1',
    ...extra,
  };
}

const pythonCache = new Map<string, string>();

/**
 * The Python that has nbclient + nbformat (Jupyter), or a KfError naming the apt
 * packages to install. KF_JUPYTER_PYTHON overrides the candidates.
 */
export function findJupyterPython(): string {
  const candidates = process.env.KF_JUPYTER_PYTHON ? [process.env.KF_JUPYTER_PYTHON] : PYTHON_CANDIDATES;
  const key = candidates.join('\0');
  const hit = pythonCache.get(key);
  if (hit) return hit;
  const tried: string[] = [];
  for (const py of candidates) {
    const r = spawnSync(py, ['-c', 'import nbclient, nbformat, jupyter_client'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
    if (r.status === 0) {
      pythonCache.set(key, py);
      return py;
    }
    tried.push(py);
  }
  throw new KfError('jupyter_missing', `Jupyter (nbclient) is not installed for ${tried.join(' or ')}: notebooks cannot run`, JUPYTER_APT);
}

/** Names of the kernelspecs Jupyter sees (`jupyter kernelspec list`). */
export function kernelNames(python: string, env: NodeJS.ProcessEnv = notebookEnv()): string[] {
  const r = spawnSync(
    python,
    ['-c', 'import json; from jupyter_client.kernelspec import KernelSpecManager as K; print(json.dumps(sorted(K().find_kernel_specs())))'],
    {
      env,
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  if (r.status !== 0)
    throw new KfError('jupyter_broken', `cannot list Jupyter kernels with ${python}: ${(r.stderr || '').trim().split('\n').pop()}`, JUPYTER_APT);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '[]') as string[];
}

/**
 * Register the tslab kernel when Jupyter does not know it (into the user's Jupyter
 * data folder, with absolute paths: tslab-kernelspec.ts). Returns whether it was
 * already there.
 */
export function ensureTslabKernel(python = findJupyterPython(), env: NodeJS.ProcessEnv = notebookEnv()): 'present' | 'installed' {
  if (kernelNames(python, env).includes('tslab')) return 'present';
  // Absolute paths (lib/report/tslab-kernelspec.ts), so the kernel also starts from `jupyter notebook` in a shell.
  const file = installTslabKernelSpec(python, env);
  if (!kernelNames(python, env).includes('tslab')) {
    throw new KfError(
      'tslab_install_failed',
      `wrote ${file}, but Jupyter does not list a tslab kernel`,
      'check JUPYTER_PATH / JUPYTER_DATA_DIR and `jupyter kernelspec list`',
    );
  }
  return 'installed';
}

/** Notebook files (*.ipynb) directly in dir, in name order; `only` keeps names containing it. */
export function listNotebooks(dir: string, only?: string): string[] {
  let names: string[];
  try {
    names = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.ipynb') && fs.statSync(path.join(dir, f)).isFile())
      .sort();
  } catch (e) {
    throw new KfError(
      'notebooks_dir_missing',
      `notebook folder ${dir} cannot be read (${(e as NodeJS.ErrnoException).code})`,
      'run from the project root, or check the folder',
      { concerns: dir, cause: e },
    );
  }
  if (only) {
    const picked = names.filter((n) => n.includes(only));
    if (!picked.length) {
      throw new KfError(
        'no_notebook_matches',
        `no notebook in ${dir} has "${only}" in its name`,
        names.length ? `choose from: ${names.join(', ')}` : 'the folder has no .ipynb files',
      );
    }
    names = picked;
  }
  return names.map((n) => path.join(dir, n));
}

/** lib/*.ts files whose compiled dist/ copy is missing or older: notebooks would run stale code. */
export function staleBuild(root = repoRoot()): string[] {
  const stale: string[] = [];
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) {
        const rel = path.relative(root, p);
        const js = path.join(root, 'dist', rel.replace(/\.ts$/, '.js'));
        if (!fs.existsSync(js) || fs.statSync(js).mtimeMs < fs.statSync(p).mtimeMs) stale.push(rel);
      }
    }
  };
  walk(path.join(root, 'lib'));
  return stale.sort();
}

/** Compile the library to dist/ (tsc; type errors are reported but still emit, as in `npm run build`). */
export function buildLibrary(root = repoRoot()): { ok: boolean; output: string } {
  const r = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], { cwd: root, encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

export interface CellProgress {
  /** 'start' before a code cell runs, 'ok' after it succeeded. */
  status: 'start' | 'ok';
  /** Index in the notebook's cell list (0-based, markdown included). */
  cell: number;
  /** 1-based position among code cells, and how many there are. */
  n: number;
  of: number;
  seconds?: number;
}

export interface RunNotebookOptions {
  /** Where the executed copy goes (must differ from the source). */
  outFile: string;
  /** Kernel working directory; default the notebook's folder. */
  cwd?: string;
  /** Limit in seconds for all cells of the notebook together (default 900); the kernel start has its own 60 s. */
  timeoutS?: number;
  /** Kernel name; default the notebook's kernelspec, else tslab. */
  kernel?: string;
  python?: string;
  env?: NodeJS.ProcessEnv;
  onProgress?: (p: CellProgress) => void;
}

export interface NotebookRun {
  notebook: string;
  output: string;
  seconds: number;
  cells: number;
  codeCells: number;
  /** Signed as trusted for this user's Jupyter (figures and tables render when opened); why not otherwise. */
  trusted: boolean;
  trustError?: string;
}

/** The `--dir` a rerun needs for a notebook outside the project's notebooks/ folder ('' inside it). */
function dirFlag(notebook: string): string {
  const dir = path.dirname(path.resolve(notebook));
  if (dir === path.join(repoRoot(), 'notebooks')) return '';
  // `kf notebooks` resolves --dir against the project root.
  const rel = path.relative(repoRoot(), dir);
  return ` --dir ${rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : dir}`;
}

/** A notebook failed: which notebook, which cell, what error, where the partial output is. */
export class NotebookError extends KfError {
  constructor(
    readonly notebook: string,
    readonly kind: 'error' | 'timeout' | 'dead_kernel' | 'kernel_start' | 'bad_notebook' | 'interrupted' | 'other',
    readonly cellIndex: number | null,
    readonly cellFirstLine: string | null,
    readonly errorMessage: string,
    readonly outFile: string | null,
  ) {
    const where = cellIndex === null ? '' : ` at cell ${cellIndex}${cellFirstLine ? ` (${JSON.stringify(cellFirstLine)})` : ''}`;
    const what = {
      error: 'failed',
      timeout: 'timed out',
      dead_kernel: 'lost its kernel',
      kernel_start: 'could not start its kernel',
      bad_notebook: 'could not be read',
      interrupted: 'was interrupted',
      other: 'failed',
    }[kind];
    const hint =
      kind === 'timeout'
        ? 'raise --timeout or make the notebook cheaper'
        : kind === 'kernel_start'
          ? 'check `jupyter kernelspec list` shows tslab and that node_modules/.bin/tslab exists (npm ci)'
          : `fix the cell and rerun \`kf notebooks${dirFlag(notebook)} --only ${path.basename(notebook, '.ipynb')}\``;
    super(
      `notebook_${kind}`,
      `notebook ${path.basename(notebook)} ${what}${where}: ${errorMessage}`,
      `${outFile && fs.existsSync(outFile) ? `outputs so far in ${outFile}; ` : ''}${hint}`,
      { concerns: notebook },
    );
    this.name = 'KfError';
  }
}

/** First non-empty line of a cell's source, shortened for a one-line message. */
export function firstLine(source: string, max = 80): string {
  const line =
    source
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  return line.length > max ? line.slice(0, max - 3) + '...' : line;
}

interface CellOutput {
  output_type: string;
  name?: string;
  text?: string | string[];
  ename?: string;
  evalue?: string;
}

const joinText = (t: string | string[] | undefined) => (Array.isArray(t) ? t.join('') : (t ?? ''));

/**
 * The error message of a failed cell, from its outputs. Python-style kernels
 * give an `error` output (ename/evalue); tslab writes to stderr instead: a Node
 * stack ("Error: msg\n    at ...") for thrown errors, "L:C - message" lines for
 * TypeScript type errors.
 */
export function cellErrorMessage(outputs: CellOutput[] | undefined, max = 400): string {
  const clip = (s: string) => (s.length > max ? s.slice(0, max - 3) + '...' : s);
  const errs = (outputs ?? []).filter((o) => o.output_type === 'error');
  if (errs.length) {
    const e = errs[errs.length - 1];
    return clip(`${e.ename ?? 'Error'}${e.evalue ? `: ${e.evalue}` : ''}`);
  }
  const stderr = (outputs ?? [])
    .filter((o) => o.output_type === 'stream' && o.name === 'stderr')
    .map((o) => joinText(o.text))
    .join('');
  const lines = stderr
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim());
  const typeErrors = lines.filter((l) => /^\d+:\d+ - /.test(l));
  if (typeErrors.length) return clip(`TypeScript: ${typeErrors.slice(0, 3).join('; ')}${typeErrors.length > 3 ? ` (+${typeErrors.length - 3} more)` : ''}`);
  // The exception line of a Node stack: "TypeError: x", "Error: x", "KfError: x", "Uncaught 'x'".
  const exc = lines.find((l) => /^([A-Za-z_$][\w$.]*(Error|Exception)|Error|Uncaught)\b/.test(l.trim()));
  if (exc) {
    // Multi-line messages: keep the lines up to the stack ("    at ...").
    const i = lines.indexOf(exc);
    const more: string[] = [];
    for (const l of lines.slice(i + 1)) {
      if (/^\s+at /.test(l) || /^\s*[{}]/.test(l)) break;
      more.push(l.trim());
    }
    return clip([exc.trim(), ...more].join(' '));
  }
  if (lines.length)
    return clip(
      lines
        .slice(-3)
        .map((l) => l.trim())
        .join(' '),
    );
  return 'the kernel reported an error without a message';
}

/** The Python side: nbclient, cell by cell, partial notebook always saved, result as JSON. */
const DRIVER = String.raw`
import json, os, signal, sys, time
src, out, cwd, timeout_s, kernel, result_path = sys.argv[1:7]
STARTUP_S = int(os.environ.get('KF_KERNEL_START_S') or '180')
res = {'ok': False, 'kind': 'other', 'message': 'driver did not finish'}
def progress(d):
    sys.stderr.write('KF-PROGRESS ' + json.dumps(d) + '\n'); sys.stderr.flush()
def on_term(*_):
    raise KeyboardInterrupt()
signal.signal(signal.SIGTERM, on_term)
nb = None
current = None
try:
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    try:
        nb = nbformat.read(src, as_version=4)
    except Exception as e:
        res = {'ok': False, 'kind': 'bad_notebook', 'message': '%s: %s' % (type(e).__name__, e)}
        raise SystemExit(0)
    kernel = kernel or nb.metadata.get('kernelspec', {}).get('name') or 'tslab'
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == 'code']
    client = NotebookClient(nb, timeout=max(1, int(float(timeout_s))), startup_timeout=STARTUP_S,
                            kernel_name=kernel, resources={'metadata': {'path': cwd}})
    try:
        with client.setup_kernel():
            # The limit covers the cells; the kernel start has its own (STARTUP_S), so a loaded machine
            # cannot turn a slow start into a timeout blamed on a cell.
            deadline = time.monotonic() + float(timeout_s)
            for n, i in enumerate(code):
                current = i
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CellTimeoutError('the notebook time limit (%ss) was reached before this cell' % timeout_s)
                client.timeout = max(1, int(remaining + 0.999))
                t0 = time.monotonic()
                progress({'status': 'start', 'cell': i, 'n': n + 1, 'of': len(code)})
                # The count Jupyter shows as In [n]: tslab's replies carry none, so the driver numbers the cells.
                client.execute_cell(nb.cells[i], i, execution_count=n + 1)
                progress({'status': 'ok', 'cell': i, 'n': n + 1, 'of': len(code), 'seconds': round(time.monotonic() - t0, 3)})
        res = {'ok': True, 'cells': len(nb.cells), 'codeCells': len(code)}
    except CellTimeoutError as e:
        res = {'ok': False, 'kind': 'timeout', 'cell': current, 'message': 'the notebook time limit (%ss) was reached' % timeout_s}
    except CellExecutionError as e:
        res = {'ok': False, 'kind': 'error', 'cell': current, 'message': str(e)[-2000:]}
    except DeadKernelError as e:
        res = {'ok': False, 'kind': 'dead_kernel', 'cell': current, 'message': 'the kernel died (%s)' % e}
    except KeyboardInterrupt:
        res = {'ok': False, 'kind': 'interrupted', 'cell': current, 'message': 'stopped by a signal'}
    except Exception as e:
        res = {'ok': False, 'kind': 'kernel_start' if current is None else 'other', 'cell': current, 'message': '%s: %s' % (type(e).__name__, e)}
except SystemExit:
    pass
except ImportError as e:
    res = {'ok': False, 'kind': 'missing', 'message': str(e)}
finally:
    if nb is not None:
        try:
            import nbformat
            nbformat.write(nb, out)
            res['written'] = True
            # Trusted (signed in this user's Jupyter signature store, as 'jupyter trust' does): the outputs are
            # the harness's own, so Jupyter shows their SVG figures and Markdown tables when the copy is opened.
            try:
                from nbformat.sign import NotebookNotary
                NotebookNotary().sign(nbformat.read(out, as_version=4))
                res['trusted'] = True
            except Exception as e:
                res['trustError'] = '%s: %s' % (type(e).__name__, e)
        except Exception as e:
            res['writeError'] = '%s: %s' % (type(e).__name__, e)
    with open(result_path, 'w') as f:
        json.dump(res, f)
`;

/** Kernel start limit (the driver's STARTUP_S): generous, a busy machine starts tslab slowly. KF_KERNEL_START_S overrides. */
export function kernelStartSeconds(): number {
  const v = Number(process.env.KF_KERNEL_START_S);
  return Number.isFinite(v) && v > 0 ? v : 180;
}

const NOISE = /Debugger warning|frozen modules|Xfrozen_modules|PYDEVD_DISABLE_FILE_VALIDATION|Note: Debugging will proceed|^\s*$/;

/**
 * Execute one notebook; resolves with its run, rejects with a NotebookError naming the failing cell.
 * Kernel starts are serialised across processes (notebook-kernel-lock.ts) and a failed start is
 * retried once: on a loaded machine the handshake can miss its deadline with nothing wrong.
 */
export async function runNotebook(file: string, opts: RunNotebookOptions): Promise<NotebookRun> {
  try {
    return await runNotebookOnce(file, opts);
  } catch (e) {
    if (!(e instanceof NotebookError) || e.kind !== 'kernel_start') throw e;
    await new Promise((r) => setTimeout(r, 2000));
    try {
      return await runNotebookOnce(file, opts);
    } catch (e2) {
      if (!(e2 instanceof NotebookError) || e2.kind !== 'kernel_start') throw e2;
      const kernel = opts.kernel || ((readNotebook(file).metadata?.kernelspec as { name?: string } | undefined)?.name ?? 'tslab');
      throw new NotebookError(
        e2.notebook,
        'kernel_start',
        null,
        null,
        `the "${kernel}" kernel did not start within ${kernelStartSeconds()} s, twice (${e2.errorMessage}); raise KF_KERNEL_START_S on a busy machine`,
        e2.outFile,
      );
    }
  }
}

interface DriverArgs {
  python: string;
  driver: string;
  src: string;
  outFile: string;
  cwd: string;
  timeoutS: number;
  kernel: string;
  resultFile: string;
  env: NodeJS.ProcessEnv;
  onProgress?: (p: CellProgress) => void;
  /** Called once the kernel is up (the first progress line): the next notebook may start its own. */
  onKernelUp: () => void;
}

/** Run the Python driver; resolves with its exit code and the last stderr lines that are not noise. */
function spawnDriver(a: DriverArgs): Promise<{ code: number | null; stderrTail: string[] }> {
  const stderrTail: string[] = [];
  return new Promise((resolve, reject) => {
    const child = spawn(a.python, ['-X', 'frozen_modules=off', a.driver, a.src, a.outFile, a.cwd, String(a.timeoutS), a.kernel, a.resultFile], {
      env: a.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The driver enforces the limit per cell; this is the backstop for a hung kernel start or shutdown.
    let killTimer: NodeJS.Timeout | undefined;
    const hard = setTimeout(
      () => {
        child.kill('SIGTERM');
        killTimer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      },
      (a.timeoutS + kernelStartSeconds() + 60) * 1000,
    );
    const onSignal = () => child.kill('SIGTERM');
    process.once('SIGINT', onSignal);
    let buf = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('KF-PROGRESS ')) {
          a.onKernelUp();
          try {
            a.onProgress?.(JSON.parse(line.slice(12)) as CellProgress);
          } catch {
            /* a progress line is best effort */
          }
        } else if (!NOISE.test(line)) {
          stderrTail.push(line);
          if (stderrTail.length > 40) stderrTail.shift();
        }
      }
    });
    child.stdout.resume(); // the kernel inherits stdout; cell output is in the notebook, not here
    const done = () => {
      clearTimeout(hard);
      if (killTimer) clearTimeout(killTimer);
      process.removeListener('SIGINT', onSignal);
    };
    child.on('error', (e) => {
      done();
      reject(e);
    });
    child.on('close', (c) => {
      done();
      resolve({ code: c, stderrTail });
    });
  });
}

interface DriverResult {
  ok: boolean;
  kind?: string;
  cell?: number | null;
  message?: string;
  cells?: number;
  codeCells?: number;
  written?: boolean;
  writeError?: string;
  trusted?: boolean;
  trustError?: string;
}

/** The NotebookError of a failed run: the failing cell and its error, read from the executed copy when it was written. */
function notebookFailure(src: string, outFile: string, nb: NotebookJson, res: DriverResult, stderrTail: string[]): NotebookError {
  const cellIndex = typeof res.cell === 'number' ? res.cell : null;
  let message = res.message ?? 'unknown failure';
  let first: string | null = null;
  if (cellIndex !== null) {
    first = firstLine(cellSource(nb.cells[cellIndex] ?? { source: '' }));
    if (res.kind === 'error') {
      // The executed copy holds the failing cell's outputs; read the error there.
      let outputs: CellOutput[] | undefined;
      try {
        outputs = readNotebook(outFile).cells[cellIndex]?.outputs as CellOutput[] | undefined;
      } catch {
        outputs = undefined;
      }
      message = cellErrorMessage(outputs);
    }
  } else if (res.kind === 'kernel_start' || res.kind === 'other') {
    const tail = stderrTail
      .filter((l) => !/^\s+at |Traceback|^\s+File /.test(l))
      .slice(-2)
      .join(' | ');
    if (tail && !message.includes(tail)) message += ` (${tail})`;
  }
  return new NotebookError(src, (res.kind ?? 'other') as NotebookError['kind'], cellIndex, first, message.split('\n')[0], res.written ? outFile : null);
}

async function runNotebookOnce(file: string, opts: RunNotebookOptions): Promise<NotebookRun> {
  const src = path.resolve(file);
  const outFile = path.resolve(opts.outFile);
  if (outFile === src) {
    throw new KfError('notebook_overwrite', `the executed copy of ${src} would overwrite the source`, 'choose another --out folder than the notebooks folder');
  }
  const nb = readNotebook(src); // fails early, naming the file, when it is not a notebook
  const timeoutS = opts.timeoutS ?? 900;
  if (!(timeoutS > 0)) throw new KfError('bad_timeout', `notebook timeout must be positive, got ${timeoutS}`, 'pass seconds, e.g. --timeout 600');
  const python = opts.python ?? findJupyterPython();
  ensureWritableDir(path.dirname(outFile), 'notebook output directory');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-nb-'));
  const driver = path.join(tmp, 'run_notebook.py');
  const resultFile = path.join(tmp, 'result.json');
  fs.writeFileSync(driver, DRIVER);
  const started = Date.now();
  const releaseStart = await acquireKernelStart();
  try {
    const { code, stderrTail } = await spawnDriver({
      python,
      driver,
      src,
      outFile,
      cwd: opts.cwd ?? path.dirname(src),
      timeoutS,
      kernel: opts.kernel ?? '',
      resultFile,
      env: opts.env ?? notebookEnv({ KF_NOTEBOOK: path.basename(src, '.ipynb') }),
      onProgress: opts.onProgress,
      onKernelUp: releaseStart,
    });
    let res: DriverResult;
    try {
      res = JSON.parse(fs.readFileSync(resultFile, 'utf8'));
    } catch {
      const tail = stderrTail.slice(-5).join(' | ');
      throw new NotebookError(
        src,
        'other',
        null,
        null,
        `the Jupyter driver (${python}) exited with code ${code} and no result${tail ? `: ${tail}` : ''}`,
        null,
      );
    }
    if (res.kind === 'missing') throw new KfError('jupyter_missing', `Jupyter is incomplete for ${python}: ${res.message}`, JUPYTER_APT);
    if (!res.ok) throw notebookFailure(src, outFile, nb, res, stderrTail);
    if (res.writeError)
      throw new KfError(
        'notebook_write_failed',
        `notebook ${path.basename(src)} ran but ${outFile} could not be written: ${res.writeError}`,
        'check the output folder (space, permissions)',
      );
    return {
      notebook: src,
      output: outFile,
      seconds: (Date.now() - started) / 1000,
      cells: res.cells ?? nb.cells.length,
      codeCells: res.codeCells ?? 0,
      trusted: res.trusted === true,
      ...(res.trustError ? { trustError: res.trustError } : {}),
    };
  } finally {
    releaseStart();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export interface RunNotebooksOptions {
  /** Default <repo>/notebooks. */
  notebooksDir?: string;
  /** Default <repo>/results/notebooks. */
  outDir?: string;
  only?: string;
  timeoutS?: number;
  onStart?: (notebook: string, i: number, total: number) => void;
  onDone?: (run: NotebookRun) => void;
  onProgress?: (notebook: string, p: CellProgress) => void;
}

/**
 * Run every notebook in name order, stopping at the first failure (a NotebookError).
 * Checks Jupyter and registers the tslab kernel first.
 */
export async function runNotebooks(opts: RunNotebooksOptions = {}): Promise<NotebookRun[]> {
  const dir = path.resolve(opts.notebooksDir ?? path.join(repoRoot(), 'notebooks'));
  const outDir = path.resolve(opts.outDir ?? path.join(repoRoot(), 'results', 'notebooks'));
  if (outDir === dir)
    throw new KfError(
      'notebook_overwrite',
      `--out ${outDir} is the notebooks folder: the sources would be overwritten`,
      'choose another folder (default results/notebooks)',
    );
  const files = listNotebooks(dir, opts.only);
  if (!files.length) throw new KfError('no_notebooks', `no .ipynb files in ${dir}`, 'add notebooks there (scripts/make-notebooks.ts generates them)');
  const python = findJupyterPython();
  ensureTslabKernel(python);
  ensureWritableDir(outDir, 'notebook output directory');
  const runs: NotebookRun[] = [];
  for (const [i, f] of files.entries()) {
    opts.onStart?.(f, i, files.length);
    const run = await runNotebook(f, {
      outFile: path.join(outDir, path.basename(f)),
      timeoutS: opts.timeoutS,
      python,
      onProgress: opts.onProgress ? (p) => opts.onProgress!(f, p) : undefined,
    });
    opts.onDone?.(run);
    runs.push(run);
  }
  return runs;
}
