import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generateWorld } from '../../lib/demo';
import { listFiles, writeTemp } from './helpers';
import { nonEmpty } from '../_shared/non-empty';

test('same seed -> byte-identical files (documents, PDFs, PNGs, questions, manifest)', async () => {
  const a = await writeTemp({ preset: 'tiny' }, 'det-a');
  const b = await writeTemp({ preset: 'tiny' }, 'det-b');
  const fa = listFiles(a.dir),
    fb = listFiles(b.dir);
  assert.deepEqual(fa, fb);
  assert.ok(
    fa.some((f) => f.endsWith('.pdf')) && fa.some((f) => f.endsWith('.png')) && fa.some((f) => f.endsWith('.html')) && fa.some((f) => f.endsWith('.md')),
  );
  for (const f of nonEmpty(fa, 'files'))
    assert.ok(fs.readFileSync(path.join(a.dir, f)).equals(fs.readFileSync(path.join(b.dir, f))), `${f} differs between two runs`);
  // The manifest's hashes describe the files.
  assert.deepEqual(
    Object.keys(a.manifest.files).sort(),
    fa.filter((f) => f !== 'manifest.json'),
  );
  for (const d of [a.dir, b.dir]) fs.rmSync(d, { recursive: true, force: true });
});

test('generateWorld is pure; a different seed gives a different world', () => {
  const w1 = generateWorld({ preset: 'tiny' });
  const w2 = generateWorld({ preset: 'tiny' });
  assert.deepEqual(w1, w2);
  const w3 = generateWorld({ preset: 'tiny', seed: 'another-seed' });
  const names = (w: typeof w1) => w.entities.map((e) => e.name);
  assert.notDeepEqual(names(w3), names(w1));
  assert.notDeepEqual(
    w3.questions.map((q) => q.question),
    w1.questions.map((q) => q.question),
  );
  // Numbers and strings are the same seed.
  assert.deepEqual(generateWorld({ preset: 'tiny', seed: 7 }).entities, generateWorld({ preset: 'tiny', seed: '7' }).entities);
});

test('the question count does not change any document (independent random streams)', () => {
  const w1 = generateWorld({ preset: 'tiny', questions: 10 });
  const w2 = generateWorld({ preset: 'tiny', questions: 40 });
  assert.deepEqual(w1.docs, w2.docs);
  assert.equal(w1.questions.length, 10);
  assert.equal(w2.questions.length + w2.questionShortfall, 40);
});
