import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeRng } from '../../lib/util/rng';
import { canonicalJson, shortHash } from '../../lib/util/hash';
import { JsonlWriter, readJsonl, ensureWritableDir } from '../../lib/util/fsx';
import { resolveInside } from '../../lib/util/paths';
import { KfError } from '../../lib/util/errors';

test('rng: same seed, same stream; forks are independent and stable', () => {
  const a = makeRng(42),
    b = makeRng(42);
  const xs = Array.from({ length: 5 }, () => a.int(0, 1000));
  const ys = Array.from({ length: 5 }, () => b.int(0, 1000));
  assert.deepEqual(xs, ys);
  assert.equal(makeRng(42).fork('x').next(), makeRng(42).fork('x').next());
  assert.notEqual(makeRng(42).fork('x').next(), makeRng(42).fork('y').next());
});

test('canonical JSON ignores key order; hashes follow', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: 2, c: 3 } }), canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
  assert.equal(shortHash({ b: 1, a: 2 }), shortHash({ a: 2, b: 1 }));
});

test('jsonl: a partial last line (crash) is skipped and the next append starts clean', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-jsonl-'));
  const f = path.join(dir, 'r.jsonl');
  fs.writeFileSync(f, '{"id":1}\n{"id":2,"tru');
  const w = new JsonlWriter(f);
  w.write({ id: 3 });
  w.close();
  const { records, badLines } = readJsonl<{ id: number }>(f);
  assert.deepEqual(
    records.map((r) => r.id),
    [1, 3],
  );
  assert.equal(badLines, 1);
});

test('resolveInside refuses paths escaping the root', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-root-'));
  assert.equal(resolveInside(dir, 'a/b.png'), path.join(dir, 'a/b.png'));
  assert.throws(
    () => resolveInside(dir, '../etc/passwd'),
    (e: unknown) => e instanceof KfError && e.code === 'path_escape',
  );
  assert.throws(() => resolveInside(dir, '/etc/passwd'), KfError);
  fs.symlinkSync('/etc', path.join(dir, 'link'));
  assert.throws(() => resolveInside(dir, 'link/passwd'), KfError);
});

test('ensureWritableDir: clear error for a file in the way', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-w-'));
  const f = path.join(dir, 'file');
  fs.writeFileSync(f, 'x');
  assert.throws(
    () => ensureWritableDir(f),
    (e: unknown) => e instanceof KfError && /not a directory/.test(e.message),
  );
  assert.equal(ensureWritableDir(path.join(dir, 'new/sub')), path.join(dir, 'new/sub'));
});
