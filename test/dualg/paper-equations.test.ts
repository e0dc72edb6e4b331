/**
 * The `paper` preset's equations on a hand-computed graph of three nodes (every number below is worked out by
 * hand in the comments): the paper's update (binary seed mask, DistMult with a layer-specific relation
 * projection, sum of messages then one linear layer, P_q(v) = MLP(h_v(L))), the sparse entity-to-document
 * projection, and ScienceQA's additive ranking; beside them the cpu preset's variants (GFM-RAG's top-k x 1/df
 * ranker, the max fusion), so the difference is visible.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initTf, tf } from '../../lib/tf/backend';
import { gnnConfig } from '../../lib/dualg/gnn/config';
import { GnnModel } from '../../lib/dualg/gnn/model';
import type { SubgraphBatch } from '../../lib/dualg/gnn/batch';
import { documentScores, sparseDocumentScores } from '../../lib/dualg/gnn/doc-scores';
import { GNN_PRESETS, presetOf } from '../../lib/dualg/gnn/preset';
import { fuseScores, sumScores } from '../../lib/dualg/query/fuse';
import type { GnnGraph } from '../../lib/dualg/types';
import { searcherSettings } from '../../lib/dualg/query/searcher-settings';
import { DualgSearcher, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { searcherParts } from '../../lib/dualg/retriever';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { acmeSource } from './acme-world.helper';

const close = (actual: ArrayLike<number>, expected: number[], what: string) => {
  assert.equal(actual.length, expected.length, what);
  expected.forEach((e, i) => assert.ok(Math.abs(actual[i] - e) < 1e-5, `${what}[${i}]: ${actual[i]} != ${e}`));
};

// Three nodes, one relation, edges 0->1, 0->2, 1->2; node 0 is the only seed (given weight 0.5: the paper's mask
// is binary, so the weight must not matter).
const BATCH: SubgraphBatch = {
  numQueries: 1,
  numNodes: 3,
  nodeQuery: Int32Array.of(0, 0, 0),
  edgeQuery: Int32Array.of(0, 0, 0),
  seedWeight: Float32Array.of(0.5, 0, 0),
  src: Int32Array.of(0, 0, 1),
  dst: Int32Array.of(1, 2, 2),
  rel: Int32Array.of(0, 0, 0),
  weight: Float32Array.of(0.3, 0.3, 0.3),
  nodeOffsets: Int32Array.of(0, 3),
  edgeOffsets: Int32Array.of(0, 3),
  parts: [],
};

/** d = 2, q = [1, 2], Enc' = identity, E_rel = [1, 1], g_l = identity, W_self = I, W_agg = diag(2, 1), b = [0.1, 0], MLP: I, relu, [1, -1]. */
function handModel(): GnnModel {
  const m = new GnnModel(
    gnnConfig({ inputDim: 2, numRelations: 1, layers: 2, hidden: 2, prior: false, update: 'paper', projection: 'sparse', queryEncoder: 'embeddings' }),
  );
  const I = [1, 0, 0, 1];
  const w = new Map<string, { shape: number[]; values: Float32Array }>();
  const set = (name: string, shape: number[], values: number[]) => w.set(name, { shape, values: Float32Array.from(values) });
  set('query.W', [2, 2], I);
  set('query.b', [2], [0, 0]);
  set('relation.E', [1, 2], [1, 1]);
  for (const l of [0, 1]) {
    set(`layer${l}.relW`, [2, 2], I);
    set(`layer${l}.Wself`, [2, 2], I);
    set(`layer${l}.Wagg`, [2, 2], [2, 0, 0, 1]);
    set(`layer${l}.b`, [2], [0.1, 0]);
  }
  set('mlp.W1node', [2, 2], I);
  set('mlp.b1', [2], [0, 0]);
  set('mlp.W2', [2, 1], [1, -1]);
  set('mlp.b2', [1], [0]);
  m.setWeights(w);
  return m;
}

test('paper update: h(0) on the binary mask, DistMult messages, sum then one linear layer, P_q = MLP(h(L)), by hand', async () => {
  await initTf();
  const m = handModel();
  assert.deepEqual(
    [...m.params.keys()].filter((k) => /lnGain|relU|W1query|prior/.test(k)),
    [],
    'no LayerNorm, query gate, query half of the MLP or prior',
  );
  const out = tf.tidy(() => {
    const r = m.forward(BATCH, [Float32Array.of(1, 2)], { edgeLogits: true });
    return { logits: r.logits.dataSync().slice(), flow: r.edgeLogits!.map((t) => t.dataSync().slice()) };
  });
  // h(0) = [[1, 2], [0, 0], [0, 0]]                       (Enc'(q) on the seed, whatever its weight)
  // layer 1: messages h_u * [1, 1]: 0->1 [1, 2], 0->2 [1, 2], 1->2 [0, 0]; sums n0 [0, 0], n1 [1, 2], n2 [1, 2]
  //   h(1) = h(0) I + sum diag(2, 1) + [0.1, 0] = n0 [1.1, 2], n1 [2.1, 2], n2 [2.1, 2]
  // layer 2: messages 0->1 [1.1, 2], 0->2 [1.1, 2], 1->2 [2.1, 2]; sums n1 [1.1, 2], n2 [3.2, 4]
  //   h(2) = n0 [1.1, 2] + [0.1, 0] = [1.2, 2]; n1 [2.1, 2] + [2.2, 2] + [0.1, 0] = [4.4, 4]; n2 [2.1, 2] + [6.4, 4] + [0.1, 0] = [8.6, 6]
  // P_q(v) = relu(h I) . [1, -1]: n0 1.2 - 2 = -0.8, n1 4.4 - 4 = 0.4, n2 8.6 - 6 = 2.6
  close(out.logits, [-0.8, 0.4, 2.6], 'node logits');
  // flow logits of layer 2, m_uv . h_v(2): 0->1 [1.1, 2].[4.4, 4] = 12.84; 0->2 [1.1, 2].[8.6, 6] = 21.46; 1->2 [2.1, 2].[8.6, 6] = 30.06
  close(out.flow[1], [12.84, 21.46, 30.06], 'layer-2 flow logits');
  // layer 1: 0->1 [1, 2].[2.1, 2] = 6.1; 0->2 the same; 1->2 [0, 0] . anything = 0
  close(out.flow[0], [6.1, 6.1, 0], 'layer-1 flow logits');
  m.dispose();
});

// Entity -> document incidence M: node 0 in d0 (1), node 1 in d0 (1) and d1 (1), node 2 in d1 (0.5).
const GRAPH = {
  numNodes: 3,
  numRelations: 1,
  src: Int32Array.of(),
  dst: Int32Array.of(),
  rel: Int32Array.of(),
  nodeDoc: { node: Int32Array.of(0, 1, 1, 2), doc: Int32Array.of(0, 0, 1, 1), weight: Float32Array.of(1, 1, 1, 0.5) },
  numDocs: 2,
  docIds: ['d0', 'd1'],
  nodeText: ['a', 'b', 'c'],
  relationText: ['r'],
} as GnnGraph;

test('sparse entity-to-document projection (paper) against GFM-RAG top-k x 1/df (cpu variant), by hand', () => {
  // logits [0, ln 3, unreached]: sigmoid 0.5 and 0.75
  const scores = Float32Array.of(0, Math.log(3), -Infinity);
  // paper: t_d0 = 1 x 0.5 + 1 x 0.75 = 1.25; t_d1 = 1 x 0.75 (node 2 unreached) = 0.75
  close(sparseDocumentScores(GRAPH, scores), [1.25, 0.75], 'sparse');
  // node 2 reached at logit 0: t_d1 = 0.75 + 0.5 x 0.5 = 1.0
  close(sparseDocumentScores(GRAPH, Float32Array.of(0, Math.log(3), 0)), [1.25, 1.0], 'sparse, all reached');
  // GFM-RAG, top-1 entity (node 1, df 2): 0.75 x 1/2 x 1 to each of d0, d1
  close(documentScores(GRAPH, scores, 1), [0.375, 0.375], 'top-k idf');
});

test("ScienceQA's additive ranking against the max fusion, by hand", () => {
  const macro = new Map([
    [0, 2],
    [1, 4],
    [2, 6],
  ]);
  const micro = new Map([
    [0, 0.9],
    [3, 0.2],
  ]);
  // sum: min-max macro d0 0, d1 0.5, d2 1; plus micro: d0 0.9, d1 0.5, d2 1, d3 0.2
  assert.deepEqual(
    [...sumScores(macro, micro)].sort((a, b) => a[0] - b[0]),
    [
      [0, 0.9],
      [1, 0.5],
      [2, 1],
      [3, 0.2],
    ],
  );
  // max fusion, no visual document: i*_d = minmax(0.1 x 0 + 0.9 x s_micro) = d0 1, d3 0; s_final = max(t_d, i*_d): d0 1, d1 .5, d2 1, d3 0
  const max = fuseScores(macro, new Set(), micro);
  close(
    [0, 1, 2, 3].map((d) => max.get(d)!),
    [1, 0.5, 1, 0],
    'max fusion',
  );
});

test('the paper preset is the paper update with the sparse projection; the rich update at the same size is custom', () => {
  assert.equal(GNN_PRESETS.paper.update, 'paper');
  assert.equal(GNN_PRESETS.paper.projection, 'sparse');
  assert.equal(GNN_PRESETS.cpu.update, 'rich');
  assert.equal(GNN_PRESETS.cpu.projection, 'topk-idf');
  const facts = { layers: 6, hidden: 512, queryEncoder: 'embeddings' as const, prior: false };
  assert.equal(presetOf({ ...facts, update: 'paper', projection: 'sparse' }), 'paper');
  assert.equal(presetOf(facts), 'custom', 'a checkpoint without the setting has the rich update: not the paper preset');
  assert.throws(() => gnnConfig({ inputDim: 2, numRelations: 1, update: 'paper', prior: true }), /reads no heuristic prior/);
});

test('fusionRule: "sum" is read, named in the identity, and a bad value refused; the default keeps its label', async () => {
  assert.equal(searcherSettings({}, 'heuristic').fusionRule, 'max');
  assert.equal(searcherSettings({ fusionRule: 'sum' }, 'heuristic').fusionRule, 'sum');
  assert.throws(() => searcherSettings({ fusionRule: 'mean' }, 'heuristic'), /fusionRule must be one of max, sum/);
  const parts = searcherParts(await buildDualGraph(acmeSource('fusion-rule', 'fp-fusion-rule')));
  assert.equal(new DualgSearcher(parts, SEARCHER_DEFAULTS, 'dualg').identity.label, 'scorer heuristic (untrained)');
  const sum = new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, fusionRule: 'sum' }, 'dualg').identity;
  assert.match(sum.label, /s_final = macro \+ micro \(ScienceQA's sum\)/);
  assert.equal(sum.fusionRule, 'sum');
});
