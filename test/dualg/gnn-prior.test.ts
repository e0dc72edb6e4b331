import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { toGnnGraph } from '../../lib/dualg/graph/to-gnn';
import { graphView } from '../../lib/dualg/query/graph-view';
import { gnnConfig } from '../../lib/dualg/gnn/config';
import { GnnModel } from '../../lib/dualg/gnn/model';
import { makeGnnScorer } from '../../lib/dualg/gnn/scorer';
import { gnnQueryFor } from '../../lib/dualg/train/query-adapter';
import { queryPrior } from '../../lib/dualg/query/prior';
import { linkQuery } from '../../lib/dualg/query/link';
import { relationWords } from '../../lib/dualg/query/relation-words';
import { rankDocs } from '../../lib/dualg/train/evaluate';
import { trainGnn } from '../../lib/dualg/train/trainer';
import { initTf } from '../../lib/tf/backend';
import { validate } from '../../lib/dualg/train/step';
import { MOTHER_OF_DIRECTOR_QUESTION, NIGHT_TRAIN_PASSAGES } from './night-train-world.helper';

// The question asks for the director's mother, so the bridge is the director's passage.
const PASSAGES = NIGHT_TRAIN_PASSAGES;

const QUESTIONS = [MOTHER_OF_DIRECTOR_QUESTION, 'Where was the star of Night Train born?'];

async function fixture() {
  await initTf();
  const g = await buildDualGraph(sourceFromPassages(PASSAGES, 'prior-fixture'));
  return { g, gg: toGnnGraph(g), view: graphView(g) };
}

test('prior GNN: untrained, it ranks documents exactly as the heuristic it is conditioned on', async () => {
  const { g, gg, view } = await fixture();
  const model = new GnnModel(gnnConfig({ inputDim: 64, numRelations: gg.numRelations, layers: 2, hidden: 16, seed: 3 }));
  assert.equal(model.config.prior, true, 'prior-conditioned by default');
  const score = makeGnnScorer(model, { paths: 0 });
  let compared = 0;
  for (const q of QUESTIONS) {
    const query = gnnQueryFor(view, q)!;
    assert.ok(query?.prior, `${q}: a prior`);
    const link = linkQuery(view, q);
    const heuristic = rankDocs(queryPrior(view, link.seeds, relationWords(q, link.covered)).heuristicDocScores);
    const gnn = rankDocs(score(gg, query).docScores);
    assert.ok(heuristic.length >= 2, `${q}: the heuristic ranks documents`);
    assert.deepEqual(gnn, heuristic, `${q}: ${gnn.map((d) => g.docs[d].id)} vs ${heuristic.map((d) => g.docs[d].id)}`);
    compared++;
  }
  assert.equal(compared, QUESTIONS.length);
  model.dispose();
});

test('prior GNN: edge features carry the question relation words; training lowers the loss and ranks the gold pair first', async () => {
  const { g, gg, view } = await fixture();
  const query = gnnQueryFor(view, QUESTIONS[0])!;
  // Some edge read from "directed by Anna Berg" fits "director".
  let fitting = 0;
  for (let e = 0; e < gg.src.length; e++) if (query.prior!.edgeFeatures(e)[0] > 0 || query.prior!.edgeFeatures(e)[1] > 0) fitting++;
  assert.ok(fitting > 0, 'some edge fits the relation words');
  const gold = ['Night Train', 'Anna Berg'].map((id) => g.docs.findIndex((d) => d.id === id));
  const examples = Array.from({ length: 8 }, (_, i) => ({ id: `q${i}`, query, targetDocs: Int32Array.from(gold) }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gnn-prior-'));
  const config = gnnConfig({ inputDim: 64, numRelations: gg.numRelations, layers: 2, hidden: 16, seed: 3 });
  const r = await trainGnn({ graph: gg, config, dir, learningRate: 0.02, batchSize: 4, finetune: { epochs: 6, examples } });
  const losses = r.history.map((h) => h.meanLoss);
  assert.equal(losses.length, 6);
  assert.ok(losses[5] < losses[0], `loss ${losses[0]} -> ${losses[5]}`);
  const top2 = rankDocs(makeGnnScorer(r.model, { paths: 0 })(gg, query).docScores).slice(0, 2);
  assert.deepEqual(new Set(top2), new Set(gold), `top 2: ${top2.map((d) => g.docs[d].id)}`);
  r.model.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('prior GNN: fine-tuning that never beats the starting model on validation keeps it (epoch 0 competes)', async () => {
  const { g, gg, view } = await fixture();
  const query = gnnQueryFor(view, QUESTIONS[0])!;
  const doc = (id: string) => g.docs.findIndex((d) => d.id === id);
  const validation = [{ id: 'v', query, targetDocs: Int32Array.of(doc('Night Train'), doc('Anna Berg')) }];
  // Taught the wrong passages: the heuristic's ranking (perfect on validation) can only be matched, never beaten.
  const wrong = Array.from({ length: 8 }, (_, i) => ({ id: `w${i}`, query, targetDocs: Int32Array.of(doc('Carl Moss'), doc('Oslo')) }));
  const config = gnnConfig({ inputDim: 64, numRelations: gg.numRelations, layers: 2, hidden: 16, seed: 3 });
  const start = new GnnModel(config);
  assert.equal(validate(start, gg, validation).r2, 1, 'precondition: the untrained model (= the heuristic) is perfect on validation');
  const startWeights = await start.getWeights();
  start.dispose();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gnn-prior-'));
  const r = await trainGnn({ graph: gg, config, dir, learningRate: 0.05, batchSize: 4, finetune: { epochs: 4, examples: wrong, validation } });
  assert.equal(r.history.length, 4, 'every epoch ran');
  assert.equal(r.best?.epoch, 0, `best ${JSON.stringify(r.best)}`);
  assert.ok(
    r.history.some((h) => (h.val?.r2 ?? 1) < 1),
    'training on the wrong passages did hurt validation',
  );
  const kept = await r.model.getWeights();
  for (const [name, w] of startWeights) assert.deepEqual(kept.get(name)!.values, w.values, name);
  r.model.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});
