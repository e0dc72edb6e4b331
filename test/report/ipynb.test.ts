import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { makeNotebook, notebookToString, parsePercentScript, readNotebook, toSourceLines, writeNotebook } from '../../lib/report/ipynb';
import { KfError } from '../../lib/util/errors';

test('makeNotebook: nbformat 4.5 with the tslab kernelspec, deterministic unique cell ids, Jupyter-style source lines', () => {
  const cells = [
    { type: 'markdown' as const, source: '# T\ntext' },
    { type: 'code' as const, source: 'const a = 1;\nconsole.log(a);\n' },
    { type: 'code' as const, source: 'const a = 1;\nconsole.log(a);\n', tags: ['parameters'] },
  ];
  const nb = makeNotebook(cells, { kernel: 'tslab' });
  assert.equal(nb.nbformat, 4);
  assert.equal(nb.nbformat_minor, 5);
  assert.deepEqual(nb.metadata.kernelspec, { name: 'tslab', display_name: 'TypeScript', language: 'typescript' });
  assert.deepEqual(nb.cells[1].source, ['const a = 1;\n', 'console.log(a);']);
  assert.deepEqual(nb.cells[1].outputs, []);
  assert.equal(nb.cells[1].execution_count, null);
  assert.equal(nb.cells[0].outputs, undefined);
  assert.deepEqual(nb.cells[2].metadata, { tags: ['parameters'] });
  assert.equal(new Set(nb.cells.map((c) => c.id)).size, 3);
  for (const c of nb.cells) assert.match(c.id, /^[a-zA-Z0-9_-]{1,64}$/);
  assert.equal(notebookToString(makeNotebook(cells)), notebookToString(nb), 'same cells, same bytes');
  assert.deepEqual(toSourceLines(''), []);
  assert.throws(() => makeNotebook([{ type: 'raw' as 'code', source: '' }]), KfError);
  assert.throws(() => makeNotebook([], { kernel: 'python3' as 'tslab' }), KfError);
});

test("written notebooks pass nbformat validation (Jupyter's own schema)", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-ipynb-'));
  const file = writeNotebook(path.join(dir, 'x.ipynb'), [
    { type: 'markdown', source: 'hi' },
    { type: 'code', source: '1 + 1', tags: ['t'] },
  ]);
  const py = spawnSync('/usr/bin/python3', ['-c', 'import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4)); print("valid")', file], {
    encoding: 'utf8',
  });
  if (py.error || (py.status !== 0 && /No module named/.test(py.stderr)))
    return t.skip('nbformat (Debian python3-nbformat) is not installed: schema not checked');
  assert.equal(py.stdout.trim(), 'valid', py.stderr);
  assert.equal(readNotebook(file).cells.length, 2);
  fs.writeFileSync(path.join(dir, 'bad.ipynb'), '{"cells": 3}');
  assert.throws(
    () => readNotebook(path.join(dir, 'bad.ipynb')),
    (e: unknown) => e instanceof KfError && /bad\.ipynb is not an nbformat 4 notebook/.test(e.message),
  );
  assert.throws(() => readNotebook(path.join(dir, 'none.ipynb')), /cannot be read/);
});

test('parsePercentScript: // %% code cells, // %% [markdown] comment cells, tags, leading code', () => {
  const cells = parsePercentScript(
    [
      "import * as fs from 'fs';",
      '',
      '// %% [markdown]',
      '// # Title',
      '//',
      '// Some *text*.',
      '',
      '// %% tags=["parameters"]',
      'const seed = 7;',
      '// %%',
      '',
      'console.log(seed); // not a marker: %% inside',
      '',
    ].join('\n'),
  );
  assert.deepEqual(cells, [
    { type: 'code', source: "import * as fs from 'fs';" },
    { type: 'markdown', source: '# Title\n\nSome *text*.' },
    { type: 'code', source: 'const seed = 7;', tags: ['parameters'] },
    { type: 'code', source: 'console.log(seed); // not a marker: %% inside' },
  ]);
  assert.deepEqual(parsePercentScript('\n\n// %%\nx'), [{ type: 'code', source: 'x' }]);
  assert.throws(
    () => parsePercentScript('// %% [markdown]\nnot a comment', 'nb.ts'),
    (e: unknown) => e instanceof KfError && /nb\.ts:2/.test(e.message),
  );
});
