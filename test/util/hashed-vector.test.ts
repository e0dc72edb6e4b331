/**
 * The hashing trick has one implementation (lib/util/hashed-vector.ts) and two users with their own
 * parameters. Their vectors must not move when the mechanism is shared: indexes built with the
 * hashing embedder and GNN checkpoints trained on DualG's query vectors keep reading them. The
 * expected entries below were printed by the code before the merge (issue 16) and pasted here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HashingEmbedder } from '../../lib/index/embedders/hashing';
import { hashedQueryVector } from '../../lib/dualg/query/scorer';
import { hashedVector } from '../../lib/util/hashed-vector';

const TEXTS = ['Who is the mother of the mother of Ada Lovelace?', 'Tables, tables and tables: figures of 2019 figures'];

/** Non-zero entries of a 64-d vector, index -> value (float32 values printed as doubles). */
type Sparse = Record<number, number>;

function assertVector(v: Float32Array, expected: Sparse): void {
  assert.equal(v.length, 64);
  const dense = Array.from({ length: 64 }, (_, i) => expected[i] ?? 0);
  assert.deepEqual(Array.from(v), dense);
}

test('the hashing embedder (seeded FNV-1a, 1 + ln tf) gives the vectors it gave before the merge', () => {
  const e = new HashingEmbedder(64);
  const expected: Sparse[] = [
    { 29: 0.45329466462135315, 45: -0.45329466462135315, 63: 0.7674945592880249 },
    { 0: -0.5887321829795837, 7: 0.7297183871269226, 32: -0.34771472215652466 },
  ];
  TEXTS.forEach((t, i) => assertVector(e.embedOne(t), expected[i]));
});

test("DualG's query vector (plain FNV-1a, raw counts) gives the vectors it gave before the merge", () => {
  const expected: Sparse[] = [
    { 15: -0.25, 21: -0.25, 26: 0.5, 28: 0.5, 40: 0.5, 50: 0.25, 59: -0.25 },
    { 4: 0.75, 9: -0.25, 14: 0.5, 38: 0.25, 40: 0.25 },
  ];
  TEXTS.forEach((t, i) => assertVector(hashedQueryVector(t), expected[i]));
});

test('hashedVector: counts per distinct token, signed buckets, unit length; no token gives zeros', () => {
  const scheme = { dim: 4, hash: (t: string) => t.length, sign: (h: number) => (h === 2 ? -1 : 1), weight: (c: number) => c };
  // "aaa" twice -> bucket 3 (+2), "bb" once -> bucket 2 (-1), "c" once -> bucket 1 (+1); norm sqrt(6).
  const v = hashedVector(['aaa', 'bb', 'aaa', 'c'], scheme);
  const n = Math.sqrt(6);
  assert.deepEqual(Array.from(v), [0, Math.fround(1 / n), Math.fround(-1 / n), Math.fround(2 / n)]);
  assert.deepEqual(Array.from(hashedVector([], scheme)), [0, 0, 0, 0]);
});
