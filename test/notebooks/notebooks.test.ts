/**
 * The project's notebooks execute headless (CI runs them too) and are in sync
 * with their sources in notebooks/src/.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../../lib/util/paths';
import { findJupyterPython } from '../../lib/report/notebooks';

const root = repoRoot();

test('notebooks/*.ipynb are generated from notebooks/src (make-notebooks --check)', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'make-notebooks.ts'), '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `notebooks are out of date with notebooks/src: ${r.stdout}${r.stderr} -- run node --import tsx scripts/make-notebooks.ts`);
});

test('every notebook executes headless on the tslab kernel (kf notebooks)', { timeout: 15 * 60_000 }, (t) => {
  let hasJupyter = true;
  try { findJupyterPython(); } catch { hasJupyter = false; }
  if (!hasJupyter) {
    t.skip('Jupyter is not installed (apt-get install jupyter-nbconvert jupyter-client python3-nbclient python3-ipykernel): notebooks not executed');
    return;
  }
  if (!fs.existsSync(path.join(root, 'dist', 'lib', 'harness.js'))) {
    t.skip('dist/ is not built (npm test builds it first): notebooks not executed');
    return;
  }
  const out = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'kf-nb-'));
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'kf.js'), 'notebooks', '--out', out], { cwd: root, encoding: 'utf8', env: { ...process.env, KF_NB_PRESET: 'tiny' } });
  process.stdout.write(r.stdout);
  assert.equal(r.status, 0, `kf notebooks failed:\n${r.stdout}\n${r.stderr}`);
  const executed = fs.readdirSync(out).filter((f) => f.endsWith('.ipynb'));
  const sources = fs.readdirSync(path.join(root, 'notebooks')).filter((f) => f.endsWith('.ipynb'));
  assert.deepEqual(executed.sort(), sources.sort());
  for (const f of executed) {
    const nb = JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')) as { cells: { cell_type: string; outputs?: { output_type: string }[] }[] };
    const errors = nb.cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.output_type === 'error'));
    assert.equal(errors.length, 0, `${f} has error outputs`);
  }
  // The quickstart writes its table and figure.
  for (const f of ['summary-by-modality.csv', 'summary-by-modality.md', 'f1-by-modality.html', 'manifest.json']) {
    assert.ok(fs.existsSync(path.join(root, 'results', '00-quickstart', f)), `results/00-quickstart/${f} written`);
  }
});
