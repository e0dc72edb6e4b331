import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OFFLINE_NOTE, manifestNotes, resultManifest, writeManifest, writeWithManifest, type ManifestDoc } from '../../lib/run/result-manifest';
import { writeTable } from '../../lib/report/table';
import { sha256 } from '../../lib/util/hash';
import { KfError } from '../../lib/util/errors';

test('resultManifest stamps code, machine, config (with hash), seed, models and backend', () => {
  const a = resultManifest({ config: { b: 1, a: 2 }, seed: 7, models: { reader: 'm1' }, backend: 'offline' });
  const b = resultManifest({ config: { a: 2, b: 1 } });
  assert.equal(a.harness.name, 'kf-harness');
  assert.match(a.harness.version, /^\d+\.\d+\.\d+/);
  assert.ok('commit' in a.git && 'dirty' in a.git);
  assert.equal(a.node, process.version);
  assert.equal(a.hostname, os.hostname());
  assert.ok(!Number.isNaN(Date.parse(a.createdAt)));
  assert.equal(a.configHash, b.configHash, 'key order does not change the config hash');
  assert.equal(a.backendNote, OFFLINE_NOTE);
  assert.equal(resultManifest({ backend: 'openai' }).backendNote, undefined);
  const notes = manifestNotes(a);
  assert.equal(notes[0], OFFLINE_NOTE);
  assert.match(notes[1], /seed 7/);
});

test('writeWithManifest records every written file with size and sha256, and later writes merge', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-manifest-'));
  const stamp = resultManifest({ seed: 1, backend: 'offline' });
  const t = await writeWithManifest(dir, stamp, (d) => writeTable([{ a: 1 }], { dir: d, name: 'first' }));
  assert.ok(fs.existsSync(t.csv));
  fs.writeFileSync(path.join(dir, 'extra.txt'), 'x');
  await writeWithManifest(dir, resultManifest({ seed: 2 }), (d) => [path.join(d, 'extra.txt'), { skipped: 'not a path' }]);
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ManifestDoc;
  assert.deepEqual(
    doc.files.map((f) => f.path),
    ['extra.txt', 'first.csv', 'first.md'],
  );
  assert.equal(doc.seed, 2, 'the newest stamp wins');
  const csv = doc.files.find((f) => f.path === 'first.csv')!;
  assert.equal(csv.sha256, sha256(fs.readFileSync(t.csv)));
  assert.equal(csv.bytes, fs.statSync(t.csv).size);
  assert.throws(
    () => writeManifest(dir, stamp, [path.join(os.tmpdir(), 'elsewhere.txt')]),
    (e: unknown) => e instanceof KfError && /outside/.test(e.message),
  );
  assert.throws(
    () => writeManifest(dir, stamp, [path.join(dir, 'missing.txt')]),
    (e: unknown) => e instanceof KfError && /does not exist/.test(e.message),
  );
});
