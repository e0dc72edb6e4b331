import { test } from 'node:test';
import assert from 'node:assert/strict';
import { logFlows } from '../../lib/dualg/paths/flows';
import { backtrack, viterbi } from '../../lib/dualg/paths/viterbi';
import { serializePaths, snippetAround } from '../../lib/dualg/paths/serialize';

// Hand-made DAG: seed 0; 0->1, 0->2, 1->3, 2->3, 3->4 (node 4 reachable only in 3 hops).
const edges = { src: Int32Array.of(0, 0, 1, 2, 3), dst: Int32Array.of(1, 2, 3, 3, 4) };

test("paths: flows are a softmax over each node's in-edges", () => {
  const lf = logFlows(Float32Array.of(0, 0, 2, 0, 5), edges.dst, 5, 1);
  const p = Array.from(lf, Math.exp);
  assert.ok(Math.abs(p[0] - 1) < 1e-6 && Math.abs(p[1] - 1) < 1e-6 && Math.abs(p[4] - 1) < 1e-6);
  assert.ok(Math.abs(p[2] + p[3] - 1) < 1e-6 && p[2] > p[3]);
  // A lower temperature sharpens the choice.
  const sharp = Array.from(logFlows(Float32Array.of(0, 0, 2, 0, 5), edges.dst, 5, 0.25), Math.exp);
  assert.ok(sharp[2] > p[2]);
});

test('paths: Viterbi + backtracking recover the known best path, shorter paths kept', () => {
  const seed = Float32Array.of(1, 0, 0, 0, 0);
  // Layer logits: at layer 2 the flow into 3 prefers 2 -> 3 (logit 3 vs 0).
  const layer = Float32Array.of(0, 0, 0, 3, 0);
  const flows = [layer, layer, layer].map((a) => logFlows(a, edges.dst, 5, 1));
  const t = viterbi(edges, 5, seed, flows);
  assert.ok(Number.isFinite(t.best[4]));
  const path = backtrack(t, edges, 4).map((x) => `${edges.src[x.edge]}->${edges.dst[x.edge]}`);
  assert.deepEqual(path, ['0->2', '2->3', '3->4']);
  // Node 1 is one hop away: the seed waits two layers, then moves.
  const p1 = backtrack(t, edges, 1);
  assert.deepEqual(
    p1.map((x) => [edges.src[x.edge], edges.dst[x.edge], x.layer]),
    [[0, 1, 2]],
  );
  // With only two layers node 4 is out of reach.
  const t2 = viterbi(edges, 5, seed, flows.slice(0, 2));
  assert.equal(t2.best[4], -Infinity);
});

test('paths: serialisation names each step and quotes the source passage', () => {
  const text = serializePaths(
    [
      {
        score: 0.9,
        docs: ['Lothair II', 'Ermengarde of Tours'],
        steps: [{ from: 'Lothair II', relation: 'mother', to: 'Ermengarde of Tours', source: { docId: 'Lothair II' } }],
      },
    ],
    { docText: (id) => (id === 'Lothair II' ? 'Lothair II (835-869) was the son of Emperor Lothair I and Ermengarde of Tours.' : undefined) },
  );
  assert.match(text, /Path 1 \(score 0\.900\):/);
  assert.match(text, /Lothair II -mother-> Ermengarde of Tours \[Lothair II\]: ".*Ermengarde of Tours\."/);
  assert.equal(snippetAround('abc def ghi', ['zzz'], 5), 'abc d...');
});
