/**
 * The dense linker's nearest-name search (lib/dualg/query/name-index.ts): the HNSW graph with its exact re-check
 * against the brute-force scan, on seeded random vectors with planted neighbours around the 0.8 floor.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EXACT_NAMES, NameIndex, nearestRows, unitRows, type Neighbour } from '../../lib/dualg/query/name-index';
import { makeRng, type Rng } from '../../lib/util/rng';

const DIM = 64;
const MIN = 0.8;
const K = 8;

function gaussian(rng: Rng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** A unit centre plus isotropic noise of norm about `sigma` (cosine to the centre about 1 / sqrt(1 + sigma^2)). */
function around(rng: Rng, centre: Float32Array, sigma: number): Float32Array {
  const s = sigma / Math.sqrt(DIM);
  return centre.map((c) => c + s * gaussian(rng));
}

/**
 * `clusters` random unit centres with `per` names each at noise 0..0.9 (pairwise cosines spread across 0.8), and
 * one query per centre at noise 0.3: every query has neighbours on both sides of the floor.
 */
function world(seed: string, clusters: number, per: number): { names: Float32Array[]; queries: Float32Array[] } {
  const rng = makeRng(seed);
  const centres = Array.from({ length: clusters }, () => unitRows([Float32Array.from({ length: DIM }, () => gaussian(rng))], DIM));
  const names = centres.flatMap((c) => Array.from({ length: per }, () => around(rng, c, 0.9 * rng.next())));
  return { names: rng.shuffle(names), queries: centres.map((c) => around(rng, c, 0.3)) };
}

const ids = (r: Neighbour[]) => r.map((n) => n.entity);

test('HNSW name search vs the exact scan: recall of the neighbours above 0.8, every answer re-checked exactly', (t) => {
  const { names, queries } = world('dense-link-ann', 400, 10);
  const m = { dim: DIM, rows: unitRows(names, DIM) };
  const exact = nearestRows(m, queries, K, MIN);
  const ann = NameIndex.build(m, 0);
  assert.ok(ann.graph, 'exactNames 0: the graph is built');
  const got = ann.nearest(queries, K, MIN);
  let want = 0;
  let found = 0;
  got.forEach((r, i) => {
    const truth = new Map(exact[i].map((n) => [n.entity, n.similarity]));
    want += truth.size;
    for (const n of r) {
      assert.ok(n.similarity >= MIN, 'nothing below the floor');
      // The re-check is the scan's own dot product: a returned name carries exactly the scan's cosine.
      if (truth.has(n.entity)) assert.equal(n.similarity, truth.get(n.entity));
      else assert.ok(n.similarity <= exact[i][exact[i].length - 1].similarity, 'a name outside the exact top k ties with its last');
      if (truth.has(n.entity)) found++;
    }
  });
  assert.ok(want > 2 * queries.length, `the planted neighbours cross the floor (${want} above it)`);
  const recall = found / want;
  t.diagnostic(`recall ${recall.toFixed(4)}: ${found} of ${want} neighbours above ${MIN}`);
  // Measured 1.000 on this seed (4000 names, 64 dims, efSearch 128); the bound leaves room for other hnswlib builds.
  assert.ok(recall >= 0.99, `recall ${recall.toFixed(4)} of ${want} neighbours above ${MIN}`);
});

test('small name sets are scanned exactly; the graph and its rows survive a save and load', () => {
  assert.equal(EXACT_NAMES, 128, 'the smallest automatic efSearch: a beam that holds every name');
  const { names, queries } = world('dense-link-ann-small', 12, 10);
  const m = { dim: DIM, rows: unitRows(names, DIM) };
  assert.equal(NameIndex.build(m).graph, undefined, '120 names: the scan answers');
  const exact = nearestRows(m, queries, K, MIN);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-name-index-'));
  try {
    for (const built of [NameIndex.build(m), NameIndex.build(m, 0)]) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir);
      built.save(dir);
      const loaded = NameIndex.load(dir);
      assert.equal(!!loaded.graph, !!built.graph);
      assert.deepEqual(
        Array.from({ length: loaded.size }, (_, i) => loaded.row(i)),
        Array.from({ length: loaded.size }, (_, i) => m.rows.subarray(i * DIM, (i + 1) * DIM)),
      );
      assert.deepEqual(loaded.nearest(queries, K, MIN).map(ids), built.nearest(queries, K, MIN).map(ids));
      if (!built.graph) assert.deepEqual(loaded.nearest(queries, K, MIN), exact);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
