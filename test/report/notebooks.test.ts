import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  NotebookError,
  cellErrorMessage,
  ensureTslabKernel,
  findJupyterPython,
  firstLine,
  listNotebooks,
  runNotebook,
  runNotebooks,
} from '../../lib/report/notebooks';
import { writeNotebook, readNotebook } from '../../lib/report/ipynb';
import { repoRoot } from '../../lib/util/paths';
import { KfError } from '../../lib/util/errors';

const fixtures = path.join(repoRoot(), 'test', '__fixtures__', 'notebooks');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kf-nbrun-'));

/** Why notebook execution cannot be tested here, or null when it can. */
function cannotRun(): string | null {
  try {
    ensureTslabKernel(findJupyterPython());
  } catch (e) {
    return e instanceof KfError ? e.oneLine() : String(e);
  }
  if (!fs.existsSync(path.join(repoRoot(), 'dist', 'lib', 'report', 'notebook-kit.js')))
    return 'dist/ is not built (npm run build): fixture notebooks import the compiled library';
  return null;
}

test('error messages are read from tslab stderr: thrown errors, type errors, error outputs', () => {
  assert.equal(
    cellErrorMessage([
      {
        output_type: 'stream',
        name: 'stderr',
        text: 'evalmachine.<anonymous>:6\n  throw new Error("x");\n  ^\n\nError: boom "q"\n    at f (evalmachine.<anonymous>:6:15)\n',
      },
    ]),
    'Error: boom "q"',
  );
  assert.equal(
    cellErrorMessage([{ output_type: 'stream', name: 'stderr', text: ["1:5 - Type 'string' is not assignable to type 'number'.\n"] }]),
    "TypeScript: 1:5 - Type 'string' is not assignable to type 'number'.",
  );
  assert.equal(cellErrorMessage([{ output_type: 'error', ename: 'ValueError', evalue: 'bad' }]), 'ValueError: bad');
  assert.equal(cellErrorMessage([]), 'the kernel reported an error without a message');
  assert.equal(firstLine('\n\n  const x = 1;\nmore'), 'const x = 1;');
});

test('listNotebooks: name order, --only filter, clear error when nothing matches', () => {
  const names = listNotebooks(fixtures).map((f) => path.basename(f));
  assert.deepEqual(names, [...names].sort());
  assert.ok(names.includes('pass.ipynb') && names.includes('fail.ipynb'));
  assert.deepEqual(
    listNotebooks(fixtures, 'fai').map((f) => path.basename(f)),
    ['fail.ipynb'],
  );
  assert.throws(
    () => listNotebooks(fixtures, 'zzz'),
    (e: unknown) => e instanceof KfError && /choose from: fail\.ipynb/.test(e.hint),
  );
});

test('a missing Jupyter fails with one line naming the apt packages', () => {
  const saved = process.env.KF_JUPYTER_PYTHON;
  process.env.KF_JUPYTER_PYTHON = '/nonexistent/python3';
  try {
    assert.throws(
      () => findJupyterPython(),
      (e: unknown) =>
        e instanceof KfError &&
        e.code === 'jupyter_missing' &&
        /apt-get install -y jupyter-nbconvert .*python3-nbclient/.test(e.hint) &&
        !e.oneLine().includes('\n'),
    );
  } finally {
    if (saved === undefined) delete process.env.KF_JUPYTER_PYTHON;
    else process.env.KF_JUPYTER_PYTHON = saved;
  }
});

test('the executed copy never overwrites its source', async () => {
  const src = path.join(fixtures, 'pass.ipynb');
  await assert.rejects(runNotebook(src, { outFile: src }), (e: unknown) => e instanceof KfError && e.code === 'notebook_overwrite');
  await assert.rejects(runNotebooks({ notebooksDir: fixtures, outDir: fixtures }), (e: unknown) => e instanceof KfError && e.code === 'notebook_overwrite');
});

// Headless runs: each starts a tslab kernel (~3 s) and the timeout case waits 5 s, so the
// subtests run side by side (started together, awaited together).
test('headless execution on the tslab kernel', { concurrency: true }, async (t) => {
  const why = cannotRun();
  if (why) return t.skip(`notebooks cannot run here: ${why}`);
  const runs: Promise<void>[] = [];

  runs.push(
    t.test('the passing fixture runs; it imports kf-harness (self-reference and typed dist import) and displays a table and figure', async () => {
      const out = path.join(tmp(), 'pass.ipynb');
      const before = fs.readFileSync(path.join(fixtures, 'pass.ipynb'), 'utf8');
      const progress: number[] = [];
      const run = await runNotebook(path.join(fixtures, 'pass.ipynb'), {
        outFile: out,
        timeoutS: 120,
        onProgress: (p) => {
          if (p.status === 'ok') progress.push(p.cell);
        },
      });
      assert.equal(run.codeCells, 5);
      assert.deepEqual(progress, [1, 2, 3, 4, 5]);
      assert.equal(fs.readFileSync(path.join(fixtures, 'pass.ipynb'), 'utf8'), before, 'source untouched');
      const cells = readNotebook(out).cells;
      const text = (i: number) => JSON.stringify(cells[i].outputs);
      assert.match(text(1), /rng 0\.\d+/);
      assert.match(text(2), /same module true/);
      assert.match(text(3), /awaited 42 notebook pass/);
      assert.match(text(4), /text\/markdown.*\| S4 +\| +0\.60 \|/);
      assert.match(text(5), /image\/svg\+xml.*trace bars|chromium not found/);
      // Jupyter shows In [n]: the executed copy numbers its code cells in order (tslab's replies carry no count).
      assert.deepEqual(
        cells.filter((c) => c.cell_type === 'code').map((c) => c.execution_count),
        [1, 2, 3, 4, 5],
      );
    }),
  );

  runs.push(
    t.test("runNotebooks stops at the failing fixture's cell 2, naming the notebook, the cell, its first line and the error", async () => {
      const outDir = tmp();
      const started: string[] = [];
      await assert.rejects(
        runNotebooks({ notebooksDir: fixtures, outDir, only: 'fail', timeoutS: 120, onStart: (f) => started.push(path.basename(f)) }),
        (e: unknown) => {
          assert.ok(e instanceof NotebookError, String(e));
          assert.equal(e.cellIndex, 2);
          assert.equal(e.kind, 'error');
          assert.equal(e.message, 'notebook fail.ipynb failed at cell 2 ("// cell 2 throws"): Error: fixture failure: n=3 is too big');
          assert.match(e.hint, /outputs so far in .*fail\.ipynb/);
          return true;
        },
      );
      assert.deepEqual(started, ['fail.ipynb']);
      // The partial copy holds what ran; cell 3 never ran.
      const cells = readNotebook(path.join(outDir, 'fail.ipynb')).cells;
      assert.match(JSON.stringify(cells[1].outputs), /cell 1 runs/);
      assert.deepEqual(cells[3].outputs, []);
    }),
  );

  runs.push(
    t.test('a TypeScript type error is a failure with the compiler message', async () => {
      const dir = tmp();
      const nb = writeNotebook(path.join(dir, 'types.ipynb'), [
        { type: 'code', source: "const n: number = 'text';" },
        { type: 'code', source: 'console.log(1)' },
      ]);
      await assert.rejects(
        runNotebook(nb, { outFile: path.join(dir, 'out', 'types.ipynb'), timeoutS: 120 }),
        (e: unknown) => e instanceof NotebookError && e.cellIndex === 0 && /TypeScript: 1:7 - Type 'string' is not assignable to type 'number'/.test(e.message),
      );
    }),
  );

  runs.push(
    t.test('the per-notebook timeout stops a hung cell and names it', async () => {
      const dir = tmp();
      const nb = writeNotebook(path.join(dir, 'slow.ipynb'), [
        { type: 'code', source: 'console.log("quick")' },
        { type: 'code', source: 'await new Promise((r) => setTimeout(r, 600_000));' },
      ]);
      await assert.rejects(
        runNotebook(nb, { outFile: path.join(dir, 'out.ipynb'), timeoutS: 5 }),
        (e: unknown) => e instanceof NotebookError && e.kind === 'timeout' && e.cellIndex === 1 && /timed out at cell 1 .*time limit \(5s\)/.test(e.message),
      );
    }),
  );
  await Promise.all(runs);
});
