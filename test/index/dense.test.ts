import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DenseIndex, type DenseRanking } from '../../lib/index/dense';
import { makeRng } from '../../lib/util/rng';

/** n random vectors of `dim` dimensions (seeded); `firstSign` forces the sign of coordinate 0 per row when given. */
function randomVectors(n: number, dim: number, seed: string, firstSign?: (i: number) => number): Float32Array[] {
  const rng = makeRng(seed);
  return Array.from({ length: n }, (_, i) => {
    const v = Float32Array.from({ length: dim }, () => rng.next() * 2 - 1);
    if (firstSign) v[0] = Math.abs(v[0]) * firstSign(i);
    return v;
  });
}

function indexOf(vecs: Float32Array[], opts = { M: 8, efConstruction: 64, efSearch: 200 }): DenseIndex {
  const ix = new DenseIndex(vecs[0].length, opts);
  vecs.forEach((v, i) => ix.add(i, v));
  return ix;
}

const slotsOf = (r: DenseRanking) => Array.from(r.slots);

/** A mask allowing every step-th slot of n, and the allowed slots. */
function everyNth(n: number, step: number): { mask: Uint8Array; allowed: number[] } {
  const mask = new Uint8Array(n);
  const allowed: number[] = [];
  for (let s = 0; s < n; s += step) {
    mask[s] = 1;
    allowed.push(s);
  }
  return { mask, allowed };
}

test('filtered search, exact branch: a small allowed set is scanned exactly and equals exact search under the mask', () => {
  const vecs = randomVectors(3000, 16, 'small-filter');
  const ix = indexOf(vecs);
  const { mask, allowed } = everyNth(3000, 30);
  const q = randomVectors(1, 16, 'q1')[0];
  const r = ix.searchFiltered(q, 10, mask, allowed);
  assert.equal(r.exact, true, `100 allowed slots cost fewer dot products than an over-fetched graph search`);
  assert.deepEqual(slotsOf(r.ranking), slotsOf(ix.exactSearch(q, 10, mask)));
});

test('filtered search, graph branch: a large allowed set is answered by the over-fetched graph, post-filtered, only allowed slots', () => {
  const vecs = randomVectors(3000, 16, 'large-filter');
  const ix = indexOf(vecs, { M: 8, efConstruction: 64, efSearch: 16 });
  const { mask, allowed } = everyNth(3000, 2);
  let found = 0;
  for (const q of randomVectors(20, 16, 'queries')) {
    const r = ix.searchFiltered(q, 10, mask, allowed);
    assert.equal(r.exact, false, 'half the corpus allowed: the graph is cheaper (max(2k, ef) x 2 = 40 wanted x 16 links < 1,500 dot products)');
    assert.equal(r.ranking.slots.length, 10);
    assert.ok(
      slotsOf(r.ranking).every((s) => mask[s] === 1),
      'only allowed slots come back',
    );
    for (let i = 1; i < r.ranking.scores.length; i++) assert.ok(r.ranking.scores[i - 1] >= r.ranking.scores[i], 'ranked by cosine');
    const exact = new Set(slotsOf(ix.exactSearch(q, 10, mask)));
    found += slotsOf(r.ranking).filter((s) => exact.has(s)).length;
  }
  assert.ok(found / 200 >= 0.95, `recall of the post-filtered graph search vs exact: ${found / 200}`);
});

test('filtered search falls back to the exact scan when too few allowed slots survive the over-fetch', () => {
  // Allowed = rows with a negative first coordinate; the query points the other way, so the graph's top candidates are all disallowed.
  const vecs = randomVectors(3000, 8, 'fallback', (i) => (i % 2 === 0 ? -1 : 1)).map((v) => {
    v[0] *= 8;
    return v;
  });
  const ix = indexOf(vecs, { M: 8, efConstruction: 64, efSearch: 16 });
  const { mask, allowed } = everyNth(3000, 2);
  const q = new Float32Array(8);
  q[0] = 1;
  const r = ix.searchFiltered(q, 10, mask, allowed);
  assert.equal(r.exact, true);
  assert.deepEqual(slotsOf(r.ranking), slotsOf(ix.exactSearch(q, 10, mask)));
});

test('determinism: the same vectors in the same order and seed give the same graph (same results and neighbour lists)', () => {
  const vecs = randomVectors(1500, 16, 'determinism');
  const a = indexOf(vecs, { M: 8, efConstruction: 32, efSearch: 16 });
  const b = indexOf(vecs, { M: 8, efConstruction: 32, efSearch: 16 });
  for (const q of randomVectors(10, 16, 'dq')) assert.deepEqual(slotsOf(a.search(q, 8)), slotsOf(b.search(q, 8)));
  const la = a.neighbourLists();
  const lb = b.neighbourLists();
  assert.deepEqual(Array.from(la.offsets), Array.from(lb.offsets));
  assert.deepEqual(Array.from(la.ids), Array.from(lb.ids));
});

test('save/load round trip with the default graph parameters: same results, same neighbour lists, filtered search unchanged', () => {
  const vecs = randomVectors(1200, 16, 'persist');
  const a = new DenseIndex(16);
  vecs.forEach((v, i) => a.add(i, v));
  a.remove(7);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-dense-'));
  try {
    a.save(path.join(dir, 'g.hnsw'), path.join(dir, 'v.bin'));
    const b = DenseIndex.load(path.join(dir, 'g.hnsw'), path.join(dir, 'v.bin'), 16, a.options, a.liveStates());
    const mask = new Uint8Array(1200).fill(1);
    const allowed = Array.from({ length: 1200 }, (_, i) => i);
    for (const q of randomVectors(5, 16, 'pq')) {
      assert.deepEqual(slotsOf(b.search(q, 8)), slotsOf(a.search(q, 8)));
      assert.ok(!slotsOf(b.search(q, 20)).includes(7), 'a removed slot stays out after loading');
      assert.deepEqual(slotsOf(b.searchFiltered(q, 8, mask, allowed).ranking), slotsOf(a.searchFiltered(q, 8, mask, allowed).ranking));
    }
    assert.deepEqual(Array.from(b.neighbourLists().ids), Array.from(a.neighbourLists().ids));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
