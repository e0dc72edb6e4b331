/**
 * The prior-conditioned GNN reads the hybrid retriever's ranking (QueryPrior.docHybrid): untrained it still ranks
 * the heuristic's documents in the heuristic's order, the hybrid's other documents are scored after them, training
 * can lift a passage only the hybrid found, the searcher hands the model the hybrid ranking it fetched, training
 * queries get theirs once per text, and a checkpoint of the earlier two-feature prior is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { toGnnGraph } from '../../lib/dualg/graph/to-gnn';
import { graphView } from '../../lib/dualg/query/graph-view';
import { gnnConfig, HYBRID_UNIT } from '../../lib/dualg/gnn/config';
import { GnnModel } from '../../lib/dualg/gnn/model';
import { makeGnnScorer, type GnnScorer } from '../../lib/dualg/gnn/scorer';
import { loadGnnModel } from '../../lib/dualg/gnn/load';
import { checkpointIdentity } from '../../lib/dualg/gnn/identity';
import { checkpointLabel } from '../../lib/dualg/query/scorer-identity';
import { gnnQueryFor } from '../../lib/dualg/train/query-adapter';
import { HYBRID_PRIOR_HITS, hybridRecip } from '../../lib/dualg/query/prior';
import { DualgSearcher, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { searcherParts } from '../../lib/dualg/retriever';
import { attachHybridEvidence } from '../../lib/dualg/train/hybrid-evidence';
import { writeCheckpoint } from '../../lib/dualg/train/checkpoint';
import { rankDocs } from '../../lib/dualg/train/evaluate';
import { trainGnn } from '../../lib/dualg/train/trainer';
import type { GnnQuery } from '../../lib/dualg/types';
import { initTf, tf } from '../../lib/tf/backend';
import { passageKb } from './passage-kb.helper';
import { MOTHER_OF_DIRECTOR_QUESTION, NIGHT_TRAIN_PASSAGES } from './night-train-world.helper';

// The Night Train world and a passage no entity of the question leads to (only text search finds it).
const PASSAGES = [...NIGHT_TRAIN_PASSAGES, { id: 'Lund', title: 'Lund', text: 'Lund is a university town where a mother of a director may live.' }];
const QUESTION = MOTHER_OF_DIRECTOR_QUESTION;

async function fixture() {
  await initTf();
  const g = await buildDualGraph(sourceFromPassages(PASSAGES, 'hybrid-prior-fixture'));
  const gg = toGnnGraph(g);
  const doc = (id: string) => g.docs.findIndex((d) => d.id === id);
  const config = gnnConfig({ inputDim: 64, numRelations: gg.numRelations, layers: 2, hidden: 16, seed: 3 });
  return { g, gg, view: graphView(g), doc, config };
}

/** The question's query with the hybrid ranking `order` (document ids, best first). */
function withHybrid(query: GnnQuery, order: number[]): GnnQuery {
  return { ...query, prior: { ...query.prior!, docHybrid: new Map(order.map((d, i) => [d, 1 / (1 + i)])) } };
}

test('hybrid prior: untrained, the heuristic order first, the hybrid-only passage scored after it', async () => {
  const { gg, view, doc, config } = await fixture();
  const plain = gnnQueryFor(view, QUESTION)!;
  const heuristic = rankDocs(plain.prior!.docPrior);
  assert.ok(heuristic.length >= 2 && !heuristic.includes(doc('Lund')), `precondition: the graph does not reach Lund (${heuristic})`);
  const model = new GnnModel(config);
  assert.deepEqual(model.priorScales(), { doc: 4, recip: 1, absent: 0, hybrid: 0 });
  // The hybrid scalar is read in the prior's units (config.hybridUnit), in the score and in the loss alike.
  model.p('prior.scales').assign(tf.tensor1d([4, 1, 0, 0.5]));
  assert.equal(model.priorScales().hybrid, 0.5 * HYBRID_UNIT);
  assert.deepEqual(Array.from(model.priorScaleTensor().dataSync()), [4, 1, 0, 0.5 * HYBRID_UNIT]);
  model.p('prior.scales').assign(tf.tensor1d([4, 1, 0, 0]));
  const scores = makeGnnScorer(model, { paths: 0 })(gg, withHybrid(plain, [doc('Lund'), doc('Night Train')])).docScores;
  const ranked = rankDocs(scores);
  assert.deepEqual(ranked.slice(0, heuristic.length), heuristic, 'the heuristic documents in the heuristic order');
  assert.ok(scores[doc('Lund')] > 0, 'the hybrid candidate is scored');
  assert.equal(ranked.indexOf(doc('Lund')), heuristic.length, 'right after the heuristic documents');
  model.dispose();
});

test('hybrid prior: training on gold only the hybrid found ranks that passage in the top 2', async () => {
  const { gg, view, doc, config } = await fixture();
  const query = withHybrid(gnnQueryFor(view, QUESTION)!, [doc('Lund'), doc('Oslo')]);
  const gold = Int32Array.of(doc('Night Train'), doc('Lund'));
  const examples = Array.from({ length: 16 }, (_, i) => ({ id: `q${i}`, query, targetDocs: gold }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gnn-hybrid-'));
  try {
    const r = await trainGnn({ graph: gg, config, dir, learningRate: 0.1, batchSize: 4, finetune: { epochs: 8, examples } });
    assert.ok(r.model.priorScales().hybrid > 0, `the hybrid scale learned a positive weight (${JSON.stringify(r.model.priorScales())})`);
    const top2 = rankDocs(makeGnnScorer(r.model, { paths: 0 })(gg, query).docScores).slice(0, 2);
    assert.deepEqual(new Set(top2), new Set(gold), `top 2: ${top2}`);
    r.model.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('hybrid prior: the searcher gives the GNN the hybrid ranking it fetched, which training reads alike', async () => {
  const { g, gg, doc } = await fixture();
  let seen: Map<number, number> | undefined;
  const scorer: GnnScorer = (graph, query) => {
    seen = query.prior?.docHybrid;
    const docScores = new Float32Array(graph.numDocs);
    docScores[doc('Night Train')] = 1;
    return {
      nodeScores: new Float32Array(graph.numNodes),
      docScores,
      paths: [],
      active: { nodes: 0, edges: 0, truncated: false },
      timings: { gnnMs: 0, pathsMs: 0 },
    };
  };
  const searcher = new DualgSearcher({ ...searcherParts(g), gnn: { graph: gg, scorer } }, { ...SEARCHER_DEFAULTS, scorer: 'gnn' }, 'dualg-gnn');
  const order = ['Lund', 'Oslo', 'Lund', 'Night Train'];
  await searcher.search(QUESTION, { k: 3 }, passageKb(PASSAGES, order));
  assert.deepEqual(
    [...(seen ?? [])],
    [
      [doc('Lund'), 1],
      [doc('Oslo'), 1 / 2],
      [doc('Night Train'), 1 / 3],
    ],
    'distinct documents, reciprocal rank',
  );
  // Training: the same map from the same hits, one search per query text however many examples share it.
  const { view } = await fixture();
  const q = gnnQueryFor(view, QUESTION)!;
  const examples = [
    { id: 'a', query: q },
    { id: 'b', query: q },
  ];
  let searches = 0;
  const n = await attachHybridEvidence(
    examples,
    gg.docIds,
    async () => (
      searches++,
      passageKb(PASSAGES, order)
        .search(QUESTION)
        .then((r) => r.hits)
    ),
  );
  assert.equal(n, 2);
  assert.equal(searches, 1, 'searched once per text');
  assert.deepEqual([...examples[1].query.prior!.docHybrid], [...seen!]);
  const many = Array.from({ length: HYBRID_PRIOR_HITS + 5 }, (_, i) => ({ docId: `d${i}` }));
  const index = new Map(many.map((h, i) => [h.docId, i]));
  assert.equal(hybridRecip(many, index).size, HYBRID_PRIOR_HITS, `the first ${HYBRID_PRIOR_HITS} hits only`);
  assert.equal(SEARCHER_DEFAULTS.pool, HYBRID_PRIOR_HITS, 'the pool the searcher fetches anyway');
});

test('hybrid prior: a checkpoint of the two-feature prior is refused naming the retraining command; labels say what the prior reads', async () => {
  const { config } = await fixture();
  const model = new GnnModel(config);
  const weights = await model.getWeights();
  model.dispose();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gnn-hybrid-ck-'));
  const manifest = { graphFingerprint: 'f'.repeat(64), config, progress: { pretrainEpochs: 0, finetuneEpochs: 0 } };
  try {
    writeCheckpoint(path.join(dir, 'new'), { manifest, params: weights, optimizer: [] });
    const current = checkpointIdentity(path.join(dir, 'new'));
    assert.equal(current.prior, 'heuristic + hybrid rank');
    assert.match(checkpointLabel(current), /prior: heuristic \+ hybrid rank/);
    (await loadGnnModel(path.join(dir, 'new'))).dispose();
    // The earlier layout: two node-feature rows, three score scalars.
    const old = new Map(weights);
    const nodeW = weights.get('prior.nodeW')!;
    old.set('prior.nodeW', { shape: [2, nodeW.shape[1]], values: nodeW.values.slice(0, 2 * nodeW.shape[1]) });
    old.set('prior.scales', { shape: [3], values: Float32Array.of(4, 1, 0) });
    writeCheckpoint(path.join(dir, 'old'), { manifest, params: old, optimizer: [] });
    await assert.rejects(loadGnnModel(path.join(dir, 'old')), (e: Error & { code?: string; hint?: string }) => {
      assert.equal(e.code, 'gnn_checkpoint_stale');
      assert.match(e.message, /reads 2 prior features.*reads 3 \(heuristic \+ hybrid rank\)/);
      assert.match(String(e.hint), /kf train gnn --bench <bench> --index <index dir>/);
      return true;
    });
    assert.match(String(checkpointIdentity(path.join(dir, 'old')).prior), /^heuristic \(2 features; retrain/);
    // A checkpoint written before hybridUnit existed learned the raw scalar: it reads back with unit 1.
    const { hybridUnit, ...before } = config;
    assert.equal(hybridUnit, HYBRID_UNIT);
    writeCheckpoint(path.join(dir, 'unit'), { manifest: { ...manifest, config: before as typeof config }, params: weights, optimizer: [] });
    const unit1 = await loadGnnModel(path.join(dir, 'unit'));
    assert.equal(unit1.config.hybridUnit, 1);
    unit1.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
