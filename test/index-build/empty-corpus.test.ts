/**
 * Empty indexes are refused (issue 19 item 3), through the CLI entry point: a
 * build that yields no fragment (an empty passages file, a folder of corrupt
 * PDFs) exits non-zero with an error naming the corpus, and the
 * previous CURRENT stays in place; opening an index whose live build holds no
 * fragment is an error naming the corpus and the command that fixes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kfInProcess } from '../_shared/cli-in-process';
import { openIndex } from '../../lib/index/open';
import { isKfError } from '../../lib/util/errors';
import { DOCS, writeCorpus } from './corpus';
import { tempDir } from './helpers';

const FAST = ['--offline', '--embedder', 'hash', '--ocr', 'off', '--no-relations', '--quiet'];

const current = (out: string) => fs.readFileSync(path.join(out, 'CURRENT'), 'utf8').trim();

test('a build with no fragment exits non-zero, names the corpus and leaves the previous CURRENT in place', async () => {
  const dir = tempDir('kf-empty-index-');
  try {
    const out = path.join(dir, 'index');
    const good = writeCorpus(path.join(dir, 'good'), { 'alpha.md': DOCS['alpha.md'], 'beta.md': DOCS['beta.md'] });
    const first = await kfInProcess(['index', 'build', '--corpus', good, '--out', out, ...FAST]);
    assert.equal(first.code, 0, first.err);
    assert.equal(current(out), 'build-000001');
    const builds = () => fs.readdirSync(out).filter((n) => /^\.?build-\d/.test(n));

    // An empty passages file used to exit 0 with a 0-fragment index made current.
    const emptyJson = path.join(dir, 'passages.json');
    fs.writeFileSync(emptyJson, '[]\n');
    const empty = await kfInProcess(['index', 'build', '--corpus', emptyJson, '--out', out, ...FAST]);
    assert.notEqual(empty.code, 0, 'an empty corpus build fails');
    assert.match(empty.err, /produced no fragment/);
    assert.ok(empty.err.includes(emptyJson), `the error names the passages file: ${empty.err}`);
    assert.match(empty.err, /build-000001\) stays current/);
    assert.equal(current(out), 'build-000001', 'CURRENT still names the previous build');
    assert.deepEqual(builds(), ['build-000001'], 'no new build folder, no temporary left');

    // Every document corrupt: the reasons are quoted, CURRENT stays.
    const broken = writeCorpus(path.join(dir, 'broken'), { 'one.pdf': '%PDF-1.7\nnot a pdf\n', 'two.pdf': '%PDF-1.4\n%%EOF garbage' });
    const bad = await kfInProcess(['index', 'build', '--corpus', broken, '--out', out, ...FAST]);
    assert.notEqual(bad.code, 0);
    assert.match(bad.err, /2 documents scanned, 2 failed or skipped/);
    assert.match(bad.err, /one: .*one\.pdf/);
    assert.equal(current(out), 'build-000001');
    const idx = await openIndex(out);
    assert.deepEqual(
      idx.documents().map((d) => d.id),
      ['alpha', 'beta'],
      'the previous index is still the one opened',
    );

    // A fresh folder and an empty corpus folder: nothing becomes current at all.
    const fresh = path.join(dir, 'fresh');
    fs.mkdirSync(path.join(dir, 'nothing'));
    const folder = await kfInProcess(['index', 'build', '--corpus', path.join(dir, 'nothing'), '--out', fresh, ...FAST]);
    assert.notEqual(folder.code, 0);
    assert.match(folder.err, /holds no document/);
    const none = await kfInProcess(['index', 'build', '--corpus', emptyJson, '--out', fresh, ...FAST]);
    assert.notEqual(none.code, 0);
    assert.match(none.err, /no document was found/);
    assert.match(none.err, /no index was written/);
    assert.ok(!fs.existsSync(path.join(fresh, 'CURRENT')));
    await assert.rejects(openIndex(fresh), (e: unknown) => isKfError(e) && e.code === 'index_missing');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('opening an index whose live build holds no fragment is an error naming the corpus and the rebuild command', async () => {
  const dir = tempDir('kf-empty-index-');
  try {
    const out = path.join(dir, 'index');
    const good = writeCorpus(path.join(dir, 'good'), { 'gamma.md': DOCS['gamma.md'] });
    const r = await kfInProcess(['index', 'build', '--corpus', good, '--out', out, ...FAST]);
    assert.equal(r.code, 0, r.err);
    // An index written before empty builds were refused: its manifest counts no fragment.
    const manifestFile = path.join(out, current(out), 'manifest.json');
    const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
    m.counts.fragments = 0;
    fs.writeFileSync(manifestFile, JSON.stringify(m));
    await assert.rejects(openIndex(out), (e: unknown) => {
      assert.ok(isKfError(e) && e.code === 'empty_index', String(e));
      assert.match(e.message, /corpus "good"/);
      assert.match(e.message, /holds no fragment/);
      assert.match(e.hint, /kf index build --corpus/);
      return true;
    });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
