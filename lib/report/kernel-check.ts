/**
 * `kf doctor`'s notebook check: the tslab kernel is working only when it
 * executes a cell, so this runs a one-cell notebook through the same driver
 * `kf notebooks` uses (nbclient) and reads the cell's output back. A kernel that
 * is registered but cannot start (tslab missing from node_modules, Node not on
 * the kernel's PATH) fails here with the driver's message, not later in a
 * notebook.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { makeNotebook } from './ipynb';
import { findJupyterPython, kernelNames, notebookEnv, runNotebook } from './notebooks';
import { errorMessage } from '../util/errors';

export interface KernelCheck {
  ok: boolean;
  /** One line: what ran and how long, or what failed and what to do. */
  detail: string;
}

const MARK = 'kf-doctor-cell';

/** Execute `console.log(...)` in the tslab kernel and check its output. */
export async function checkTslabKernel(opts: { timeoutS?: number } = {}): Promise<KernelCheck> {
  let python: string;
  try {
    python = findJupyterPython();
  } catch (e) {
    return { ok: false, detail: `no Jupyter: ${errorMessage(e)}` };
  }
  if (!kernelNames(python).includes('tslab'))
    return { ok: false, detail: `tslab is not registered with ${python}: run bash scripts/setup.sh (or npx tslab install --python=${python})` };
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-doctor-'));
  try {
    const src = path.join(tmp, 'check.ipynb');
    const out = path.join(tmp, 'check.out.ipynb');
    fs.writeFileSync(src, JSON.stringify(makeNotebook([{ type: 'code', source: `const n: number = 6 * 7;\nconsole.log('${MARK}', n);` }])));
    const r = await runNotebook(src, { outFile: out, timeoutS: opts.timeoutS ?? 120, python, kernel: 'tslab', cwd: tmp });
    const text = JSON.stringify(JSON.parse(fs.readFileSync(out, 'utf8')).cells?.[0]?.outputs ?? []);
    if (!text.includes(`${MARK} 42`)) return { ok: false, detail: `the tslab kernel ran a cell but printed something else: ${text.slice(0, 160)}` };
    return { ok: true, detail: `working: executed a TypeScript cell in ${r.seconds.toFixed(1)} s (${python})` };
  } catch (e) {
    return { ok: false, detail: `not working: ${errorMessage(e).split('\n')[0]}` };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** `jupyter notebook --version` (the front-end the README opens), or why there is none. */
export function notebookFrontEnd(): KernelCheck {
  const r = spawnSync('jupyter', ['notebook', '--version'], { env: notebookEnv(), encoding: 'utf8', timeout: 30_000 });
  if (r.status === 0) return { ok: true, detail: `jupyter notebook ${r.stdout.trim().split('\n').pop()}` };
  const why = r.error ? 'jupyter is not on PATH' : `${r.stderr ?? ''}`.trim().split('\n').pop();
  return { ok: false, detail: `missing (${why}): apt-get install jupyter-notebook (bash scripts/setup.sh does it)` };
}
