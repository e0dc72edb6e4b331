import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuse, minMax, peakedness, queryWeights, rrfScores, weightedScores, type FusionCandidate } from '../../lib/index/fusion';
import { KfError } from '../../lib/util/errors';

const cands: FusionCandidate[] = [
  { id: 0, bm25: 10, dense: 0.2, bm25Rank: 1, denseRank: Infinity },
  { id: 1, bm25: 4, dense: 0.9, bm25Rank: 2, denseRank: 1 },
  { id: 2, bm25: 0, dense: 0.5, bm25Rank: Infinity, denseRank: 2 },
];

test('weighted RRF: sum of w / (k + rank) over the lists a candidate is in', () => {
  const s = rrfScores(cands, { bm25: 0.7, dense: 0.3 }, 60);
  assert.ok(Math.abs(s[0] - 0.7 / 61) < 1e-15);
  assert.ok(Math.abs(s[1] - (0.7 / 62 + 0.3 / 61)) < 1e-15);
  assert.ok(Math.abs(s[2] - 0.3 / 62) < 1e-15);
});

test('min-max normalisation and the weighted sum', () => {
  assert.deepEqual(Array.from(minMax([2, 4, 6])), [0, 0.5, 1]);
  assert.deepEqual(Array.from(minMax([3, 3])), [1, 1]);
  assert.deepEqual(Array.from(minMax([0, 0])), [0, 0]);
  const s = weightedScores(cands, { bm25: 0.8, dense: 0.2 });
  // bm25 normalised: 1, 0.4, 0; dense normalised: 0, 1, 3/7
  assert.ok(Math.abs(s[0] - 0.8) < 1e-12);
  assert.ok(Math.abs(s[1] - (0.8 * 0.4 + 0.2)) < 1e-12);
  assert.ok(Math.abs(s[2] - 0.2 * (0.3 / 0.7)) < 1e-12);
});

test('fuse ranks best first, ties broken by id, and the method is selectable', () => {
  const w = fuse(cands, { method: 'weighted', weights: { bm25: 0.8, dense: 0.2 } }).map((x) => x.cand.id);
  assert.deepEqual(w, [0, 1, 2]);
  const d = fuse(cands, { method: 'weighted', weights: { bm25: 0.1, dense: 0.9 } }).map((x) => x.cand.id);
  assert.deepEqual(d, [1, 2, 0]);
  const r = fuse(cands, { method: 'rrf', weights: { bm25: 0.5, dense: 0.5 } }).map((x) => x.cand.id);
  assert.deepEqual(r, [1, 0, 2]);
  const tie: FusionCandidate[] = [
    { id: 7, bm25: 1, dense: 1, bm25Rank: 1, denseRank: 1 },
    { id: 3, bm25: 1, dense: 1, bm25Rank: 1, denseRank: 1 },
  ];
  assert.deepEqual(
    fuse(tie).map((x) => x.cand.id),
    [3, 7],
  );
  assert.deepEqual(fuse([]), []);
});

test('a retriever with weight 0 cannot change the order of the other', () => {
  const bmOnly = fuse(cands, { weights: { bm25: 1, dense: 0 } }).map((x) => x.cand.id);
  assert.deepEqual(bmOnly, [0, 1, 2]);
});

test('adaptive weights follow how peaked each score list is, and stay normalised', () => {
  assert.equal(peakedness([1]), 0);
  assert.equal(peakedness([2, 2, 2]), 0);
  assert.ok(peakedness([10, 1, 1, 1]) > peakedness([4, 3, 2, 1]));
  const peakedBm25: FusionCandidate[] = [
    { id: 0, bm25: 20, dense: 0.5, bm25Rank: 1, denseRank: 1 },
    { id: 1, bm25: 1, dense: 0.49, bm25Rank: 2, denseRank: 2 },
    { id: 2, bm25: 1, dense: 0.48, bm25Rank: 3, denseRank: 3 },
    { id: 3, bm25: 1, dense: 0.47, bm25Rank: 4, denseRank: 4 },
  ];
  const w = queryWeights(peakedBm25, { weights: { bm25: 0.5, dense: 0.5 }, adaptive: true });
  assert.ok(w.bm25 > 0.5 && w.dense < 0.5);
  assert.ok(Math.abs(w.bm25 + w.dense - 1) < 1e-12);
  const plain = queryWeights(peakedBm25, { weights: { bm25: 0.6, dense: 0.2 } });
  assert.ok(Math.abs(plain.bm25 - 0.75) < 1e-12 && Math.abs(plain.dense - 0.25) < 1e-12);
});

test('bad weights and methods are refused with a KfError', () => {
  assert.throws(() => fuse(cands, { weights: { bm25: -1, dense: 1 } }), KfError);
  assert.throws(() => fuse(cands, { weights: { bm25: 0, dense: 0 } }), KfError);
  assert.throws(() => fuse(cands, { method: 'magic' as never }), KfError);
});
