import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initTf, tf } from '../../lib/tf/backend';
import { gnnConfig } from '../../lib/dualg/gnn/config';
import { GnnModel } from '../../lib/dualg/gnn/model';
import { activeSubgraph } from '../../lib/dualg/gnn/active-subgraph';
import { batchSubgraphs } from '../../lib/dualg/gnn/batch';
import { makeGnnScorer, scoreBatch } from '../../lib/dualg/gnn/scorer';
import { documentScores } from '../../lib/dualg/gnn/doc-scores';
import { toyGraph, toyQuery, TOY_DIM } from './gnn-toy';

const cfg = (over = {}) => gnnConfig({ inputDim: TOY_DIM, numRelations: 6, layers: 2, hidden: 16, ...over });

test('gnn: the active subgraph holds the edges reachable from the seeds within L hops', () => {
  const g = toyGraph(3);
  const a1 = activeSubgraph(g, Int32Array.of(0), Float32Array.of(1), { layers: 1, maxEdges: 1000 });
  assert.deepEqual(
    [...a1.nodes].sort((x, y) => x - y),
    [0, 1, 3, 5],
  );
  assert.equal(a1.src.length, 3);
  assert.ok([...a1.src].every((s) => s === 0));
  const a2 = activeSubgraph(g, Int32Array.of(0), Float32Array.of(1), { layers: 2, maxEdges: 1000 });
  assert.ok(a2.nodes.includes(2) && a2.nodes.includes(4) && a2.nodes.includes(11));
  assert.equal(a2.hop[a2.nodes.indexOf(2)], 2);
  const capped = activeSubgraph(g, Int32Array.of(0), Float32Array.of(1), { layers: 2, maxEdges: 4 });
  assert.ok(capped.truncated && capped.src.length <= 4);
});

test('gnn: forward shapes, scores outside the active subgraph, no tensor leak', async () => {
  await initTf();
  const g = toyGraph(4);
  const model = new GnnModel(cfg());
  const before = tf.memory().numTensors;
  const parts = [
    activeSubgraph(g, Int32Array.of(0), Float32Array.of(1), { layers: 2, maxEdges: 1000 }),
    activeSubgraph(g, Int32Array.of(6), Float32Array.of(1), { layers: 2, maxEdges: 1000 }),
  ];
  const batch = batchSubgraphs(parts);
  const shapes = tf.tidy(() => {
    const out = model.forward(batch, [toyQuery(0, 'A').queryVector, toyQuery(1, 'B').queryVector], { edgeLogits: true });
    return { logits: out.logits.shape, edges: out.edgeLogits!.map((e) => e.shape[0]) };
  });
  assert.deepEqual(shapes.logits, [batch.numNodes]);
  assert.deepEqual(shapes.edges, [batch.src.length, batch.src.length]);
  const score = makeGnnScorer(model)(g, toyQuery(0, 'A'));
  assert.equal(score.nodeScores.length, g.numNodes);
  assert.equal(score.docScores.length, g.numDocs);
  assert.ok(score.active.nodes > 0 && score.active.nodes < g.numNodes);
  assert.equal(score.nodeScores.filter((x) => Number.isFinite(x)).length, score.active.nodes);
  assert.ok(score.paths.length > 0);
  const batched = scoreBatch(model, g, [toyQuery(0, 'A'), toyQuery(1, 'B')]);
  assert.equal(batched.length, 2);
  // The batched pass equals the single pass (disjoint union changes nothing).
  for (let v = 0; v < g.numNodes; v++) {
    const a = score.nodeScores[v],
      b = batched[0].nodeScores[v];
    assert.ok(a === b || Math.abs(a - b) < 1e-4, `node ${v}: ${a} vs ${b}`);
  }
  assert.equal(tf.memory().numTensors, before);
  model.dispose();
});

test('gnn: a graph with another relation vocabulary is refused; empty seeds score nothing', async () => {
  await initTf();
  const model = new GnnModel(cfg({ numRelations: 8 }));
  assert.throws(() => makeGnnScorer(model)(toyGraph(2), toyQuery(0, 'A')), /relations/);
  model.dispose();
  const m2 = new GnnModel(cfg());
  const out = makeGnnScorer(m2)(toyGraph(2), { seeds: new Int32Array(0), seedWeights: new Float32Array(0), queryVector: new Float32Array(TOY_DIM) });
  assert.equal(
    out.docScores.reduce((a, b) => a + b, 0),
    0,
  );
  assert.equal(out.paths.length, 0);
  m2.dispose();
});

test('gnn: document scores are idf-weighted sums over the top-k entities', () => {
  const g = toyGraph(1);
  // Entity 0 in docs 0 and 1 (df 2), entity 1 in doc 1 only.
  g.nodeDoc = { node: Int32Array.of(0, 0, 1), doc: Int32Array.of(0, 1, 1), weight: Float32Array.of(1, 1, 1) };
  const scores = new Float32Array(g.numNodes).fill(-Infinity);
  scores[0] = 0;
  scores[1] = 0;
  const d = documentScores(g, scores, 2);
  assert.ok(Math.abs(d[0] - 0.25) < 1e-6 && Math.abs(d[1] - 0.75) < 1e-6);
  assert.deepEqual(Array.from(documentScores(g, scores, 1)).slice(0, 2), [0.25, 0.25]);
});
