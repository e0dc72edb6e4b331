import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gnnConfig } from '../../lib/dualg/gnn/config';
import { trainGnn } from '../../lib/dualg/train/trainer';
import { readCheckpoint } from '../../lib/dualg/train/checkpoint';
import { validate } from '../../lib/dualg/train/step';
import { GnnModel } from '../../lib/dualg/gnn/model';
import { makeGnnScorer } from '../../lib/dualg/gnn/scorer';
import { toyExamples, toyGraph, toyQuery, TOY_DIM } from './gnn-toy';
import { initTf } from '../../lib/tf/backend';

const cfg = () => gnnConfig({ inputDim: TOY_DIM, numRelations: 6, layers: 2, hidden: 16, seed: 7 });
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gnn-train-'));

test('train: the loss decreases and the GNN learns to follow the relation the query names', async () => {
  await initTf();
  const g = toyGraph(6);
  const ex = toyExamples(6);
  const untrained = new GnnModel(cfg());
  const before = validate(untrained, g, ex);
  untrained.dispose();
  const dir = tmp();
  const r = await trainGnn({ graph: g, config: cfg(), dir, learningRate: 0.01, batchSize: 4, finetune: { epochs: 25, examples: ex, validation: ex } });
  const losses = r.history.map((h) => h.meanLoss);
  assert.equal(losses.length, 25);
  assert.ok(losses[losses.length - 1] < losses[0] * 0.7, `loss ${losses[0]} -> ${losses[losses.length - 1]}`);
  const after = validate(r.model, g, ex);
  assert.ok(after.r2 > before.r2, `R@2 ${before.r2} -> ${after.r2}`);
  assert.ok(after.r2 >= 0.9, `trained R@2 ${after.r2}`);
  // The decoded top path follows the query's relation: s0 -A-> a10 -A-> a20.
  const out = makeGnnScorer(r.model)(g, toyQuery(0, 'A'));
  const top = out.paths[0];
  assert.ok(top, 'a path was decoded');
  assert.deepEqual(
    top.steps.map((s) => `${s.from} -${s.relation}-> ${s.to}`),
    ['s0 -A-> a10', 'a10 -A-> a20'],
  );
  r.model.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('train: same seed, same losses; resume continues the same trajectory', async () => {
  const g = toyGraph(4);
  const ex = toyExamples(4);
  const run = (dir: string, epochs: number) =>
    trainGnn({
      graph: g,
      config: cfg(),
      dir,
      seed: 3,
      learningRate: 0.01,
      batchSize: 4,
      pretrain: { epochs: 1, examples: ex },
      finetune: { epochs, examples: ex },
    });
  const [d1, d2, d3] = [tmp(), tmp(), tmp()];
  const a = await run(d1, 4);
  const b = await run(d2, 4);
  assert.deepEqual(
    a.history.map((h) => h.meanLoss),
    b.history.map((h) => h.meanLoss),
  );
  const half = await run(d3, 2);
  assert.equal(half.resumed, false);
  const resumed = await run(d3, 4);
  assert.equal(resumed.resumed, true);
  assert.equal(resumed.history.length, 5);
  const x = a.history.map((h) => h.meanLoss),
    y = resumed.history.map((h) => h.meanLoss);
  x.forEach((v, i) => assert.ok(Math.abs(v - y[i]) < 1e-4 * Math.max(1, Math.abs(v)), `epoch ${i}: ${v} vs ${y[i]}`));
  for (const r of [a, b, half, resumed]) r.model.dispose();
  for (const d of [d1, d2, d3]) fs.rmSync(d, { recursive: true, force: true });
});

test('train: a checkpoint is refused for another graph, for resuming and for scoring', async () => {
  const dir = tmp();
  const r = await trainGnn({ graph: toyGraph(3), config: cfg(), dir, finetune: { epochs: 1, examples: toyExamples(3) } });
  r.model.dispose();
  const other = toyGraph(4);
  await assert.rejects(
    trainGnn({ graph: other, config: cfg(), dir, finetune: { epochs: 2, examples: toyExamples(4) } }),
    (e: Error & { code?: string }) => e.code === 'gnn_checkpoint_foreign' && /not this graph/.test(e.message),
  );
  assert.throws(() => readCheckpoint(path.join(dir, 'last'), { graphFingerprint: 'f'.repeat(64) }), /not this graph/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('train: a NaN loss stops with a clear error and keeps the last good checkpoint', async () => {
  const dir = tmp();
  const g = toyGraph(3);
  const ex = toyExamples(3);
  const bad = ex.map((e) => ({ ...e, query: { ...e.query, queryVector: new Float32Array(TOY_DIM).fill(NaN) } }));
  await assert.rejects(
    trainGnn({ graph: g, config: cfg(), dir, pretrain: { epochs: 1, examples: ex }, finetune: { epochs: 2, examples: bad } }),
    (e: Error & { code?: string }) => e.code === 'gnn_nan_loss' && /NaN/.test(e.message),
  );
  const ck = readCheckpoint(path.join(dir, 'last'));
  assert.equal(ck.manifest.progress.pretrainEpochs, 1);
  assert.equal(ck.manifest.progress.finetuneEpochs, 0);
  assert.ok([...ck.params.values()].every((p) => p.values.every(Number.isFinite)));
  fs.rmSync(dir, { recursive: true, force: true });
});
