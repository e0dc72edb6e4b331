/**
 * The project's notebooks execute headless (CI runs them too), are in sync with
 * their sources in notebooks/src/, write their tables, figures and manifest
 * (checked as files: CSV columns, figure traces, axis titles, legends,
 * non-empty PNG/SVG; never pixels), and a rerun with the same inputs writes
 * identical tables. Outputs and runs go to temporary folders (KF_NB_RESULTS,
 * KF_NB_RUNS); the demo world and index caches are the project's usual ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../../lib/util/paths';
import { findJupyterPython, staleBuild } from '../../lib/report/notebooks';
import { findChromium } from '../../lib/report/figure';
import { OFFLINE_NOTE } from '../../lib/run/result-manifest';
import { csvColumns, figureProblems, folderProblems } from './written-files';

const root = repoRoot();

test('notebooks/*.ipynb are generated from notebooks/src (make-notebooks --check)', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'make-notebooks.ts'), '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `notebooks are out of date with notebooks/src: ${r.stdout}${r.stderr} -- run node --import tsx scripts/make-notebooks.ts`);
});

function kfNotebooks(args: string[], env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'bin', 'kf.js'), 'notebooks', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, KF_NB_PRESET: 'tiny', KF_KERNEL_START_S: process.env.KF_KERNEL_START_S ?? '240', ...env },
  });
  return { status: r.status, out: `${r.stdout}\n${r.stderr}` };
}

test('every notebook executes headless, writes its files, and a rerun writes identical tables', { timeout: 60 * 60_000 }, (t) => {
  try {
    findJupyterPython();
  } catch {
    t.skip('Jupyter is not installed (apt-get install jupyter-nbconvert jupyter-client python3-nbclient python3-ipykernel): notebooks not executed');
    return;
  }
  if (!fs.existsSync(path.join(root, 'dist', 'lib', 'harness.js'))) {
    t.skip('dist/ is not built (npm test builds it first): notebooks not executed');
    return;
  }
  const stale = staleBuild(root).filter((f) => f.startsWith('lib/report/'));
  if (stale.length) {
    t.skip(`dist/ is older than ${stale[0]} (npm test builds it first): notebooks not executed`);
    return;
  }
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-nb-run-'));
  const env = { KF_NB_RESULTS: path.join(base, 'results'), KF_NB_RUNS: path.join(base, 'runs') };
  try {
    const out = path.join(base, 'executed');
    const r = kfNotebooks(['--out', out], env);
    assert.equal(r.status, 0, `kf notebooks failed:\n${r.out}`);
    const executed = fs
      .readdirSync(out)
      .filter((f) => f.endsWith('.ipynb'))
      .sort();
    const sources = fs
      .readdirSync(path.join(root, 'notebooks'))
      .filter((f) => f.endsWith('.ipynb'))
      .sort();
    assert.ok(sources.length >= 19, `the paper notebooks exist (${sources.length})`);
    assert.deepEqual(executed, sources);
    for (const f of executed) {
      const nb = JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')) as {
        cells: { cell_type: string; execution_count?: number | null; outputs?: { output_type: string; text?: string | string[] }[] }[];
      };
      assert.equal(nb.cells.flatMap((c) => (c.outputs ?? []).filter((o) => o.output_type === 'error')).length, 0, `${f} has error outputs`);
      const code = nb.cells.filter((c) => c.cell_type === 'code');
      assert.deepEqual(
        code.map((c) => c.execution_count),
        code.map((_, i) => i + 1),
        `${f}: code cells numbered in order`,
      );
      // tslab prints a cell's last value: a session call returning its paths would show up as `{ csv: ...` or a bare manifest path.
      const echoed = code
        .flatMap((c) => c.outputs ?? [])
        .flatMap((o) => [o.text ?? []].flat().join('').split('\n'))
        .filter((l) => /^\{ (csv|html|md|png|svg):/.test(l) || /^\/\S+manifest\.json$/.test(l.trim()));
      assert.deepEqual(echoed, [], `${f}: a cell echoes the object its last call returned`);
    }
    // Every notebook wrote a results folder whose tables, figures and manifest are sound.
    const chromium = !!findChromium();
    let figures = 0,
      tables = 0;
    for (const f of executed) {
      const name = f.replace(/\.ipynb$/, '');
      const dir = path.join(env.KF_NB_RESULTS, name);
      assert.ok(fs.existsSync(dir), `results/${name}/ written`);
      const c = folderProblems(dir, { chromium });
      assert.deepEqual(c.problems, [], `results/${name}/`);
      figures += c.figures.length;
      tables += c.tables.length;
    }
    assert.ok(figures >= 15 && tables >= 30, `figures ${figures}, tables ${tables}`);
    // Specific shapes: the main comparison has its configurations and the offline label, the peers table its columns.
    const main = path.join(env.KF_NB_RESULTS, '20-kf-main-comparison');
    assert.deepEqual(csvColumns(path.join(main, 'vs-published.csv')), ['config', 'demo', 'lo', 'hi', 'published']);
    assert.deepEqual(figureProblems(path.join(main, 'f1-vs-published.html'), { chromium, offlineNote: OFFLINE_NOTE }), []);
    const peers = path.join(env.KF_NB_RESULTS, '50-retrieval-peers', 'recall.csv');
    if (fs.existsSync(peers)) assert.deepEqual(csvColumns(peers).slice(0, 5), ['system', 'source', 'n', 'R@2', 'allFound@2']);
    // A rerun with the same inputs writes identical tables (runs are reused by config).
    const dir21 = path.join(env.KF_NB_RESULTS, '21-kf-role-ablation');
    const before = Object.fromEntries(
      fs
        .readdirSync(dir21)
        .filter((x) => x.endsWith('.csv'))
        .map((x) => [x, fs.readFileSync(path.join(dir21, x), 'utf8')]),
    );
    assert.ok(Object.keys(before).length >= 3);
    const again = kfNotebooks(['--only', '21-kf-role-ablation', '--out', path.join(base, 'executed-again')], env);
    assert.equal(again.status, 0, again.out);
    for (const [x, text] of Object.entries(before)) assert.equal(fs.readFileSync(path.join(dir21, x), 'utf8'), text, `${x} identical on a rerun`);
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
});
