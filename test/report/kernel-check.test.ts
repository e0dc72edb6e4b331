/**
 * `kf doctor`'s notebook checks: the tslab kernel counts as working only when it
 * executes a cell (checked here through the same driver `kf notebooks` uses),
 * and the notebook front-end is `jupyter notebook --version`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTslabKernel, notebookFrontEnd } from '../../lib/report/kernel-check';
import { findJupyterPython, kernelNames } from '../../lib/report/notebooks';

function noKernel(): string | undefined {
  try {
    return kernelNames(findJupyterPython()).includes('tslab') ? undefined : 'the tslab kernel is not registered (bash scripts/setup.sh registers it)';
  } catch {
    return 'Jupyter is not installed (bash scripts/setup.sh installs it from apt)';
  }
}

test('the tslab kernel executes a cell: kf doctor reports it working', { timeout: 5 * 60_000 }, async (t) => {
  const why = noKernel();
  if (why) {
    t.skip(`${why}: kernel not checked`);
    return;
  }
  const r = await checkTslabKernel({ timeoutS: 240 });
  assert.ok(r.ok, r.detail);
  assert.match(r.detail, /^working: executed a TypeScript cell in \d+\.\d s/);
});

test('the notebook front-end check says what to install when it is missing', () => {
  const r = notebookFrontEnd();
  if (r.ok) assert.match(r.detail, /^jupyter notebook \d+\.\d+/);
  else assert.match(r.detail, /apt-get install jupyter-notebook/);
});
