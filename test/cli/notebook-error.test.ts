/**
 * `kf notebooks` on a notebook that throws (the compiled CLI, as a user runs
 * it): exit 1, ONE line naming the notebook, the cell and the error, saying
 * where the partial output is and how to rerun; the source notebook untouched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureTslabKernel, findJupyterPython } from '../../lib/report/notebooks';
import { readNotebook } from '../../lib/report/ipynb';
import { KfError } from '../../lib/util/errors';
import { repoRoot } from '../../lib/util/paths';
import { tmpDir } from '../run/helpers';
import { assertCommandError, cannotRunCompiled, kf } from './helpers';

const fixtures = path.join(repoRoot(), 'test', '__fixtures__', 'notebooks');

/** Why a notebook cannot be executed here, or undefined when it can. */
function cannotRun(): string | undefined {
  const c = cannotRunCompiled();
  if (c) return c;
  if (!fs.existsSync(path.join(repoRoot(), 'dist', 'lib', 'report', 'notebook-kit.js')))
    return 'dist/ lacks lib/report/notebook-kit.js (npm run build): the fixture notebooks import it';
  try {
    ensureTslabKernel(findJupyterPython());
  } catch (e) {
    return e instanceof KfError ? e.oneLine() : String(e);
  }
  return undefined;
}

test('kf notebooks: a notebook that throws gives exit 1 and one line naming notebook, cell and error; the executed copy keeps the outputs so far', async (t) => {
  const why = cannotRun();
  if (why) {
    t.skip(why);
    return;
  }
  const out = tmpDir('kf-nb-fail-');
  const src = path.join(fixtures, 'fail.ipynb');
  const before = fs.readFileSync(src);
  const r = await kf(['notebooks', '--dir', 'test/__fixtures__/notebooks', '--only', 'fail', '--out', out, '--timeout', '120'], { timeoutMs: 150_000 });
  const [what, todo] = assertCommandError(r, 'notebooks');
  assert.match(what, /^notebook fail\.ipynb failed at cell \d+ \(".+"\): Error: fixture failure/);
  assert.ok(todo.includes(`outputs so far in ${path.join(out, 'fail.ipynb')}`), todo);
  assert.match(todo, /rerun `kf notebooks --dir test\/__fixtures__\/notebooks --only fail`/);
  assert.ok(fs.readFileSync(src).equals(before), 'the source notebook is never overwritten');
  const executed = readNotebook(path.join(out, 'fail.ipynb'));
  assert.ok(
    executed.cells.some((c) => (c.outputs ?? []).length > 0),
    'the executed copy holds the outputs of the cells that ran',
  );
});
