import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createGnnScorer } from '../../lib/dualg/gnn';
import { gnnConfig } from '../../lib/dualg/gnn/config';
import { trainGnn } from '../../lib/dualg/train/trainer';
import { toyExamples, toyGraph, toyQuery, TOY_DIM } from './gnn-toy';

test('createGnnScorer: finds the checkpoint trained for the graph, refuses one for another graph, none -> undefined', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gnn-scorer-'));
  const store = path.join(root, 'artifacts');
  const g = toyGraph(3);
  const r = await trainGnn({
    graph: g,
    config: gnnConfig({ inputDim: TOY_DIM, numRelations: 6, layers: 2, hidden: 8 }),
    dir: path.join(root, 'ck', 'toy'),
    finetune: { epochs: 1, examples: toyExamples(3) },
  });
  r.model.dispose();
  const old = process.env.KF_GNN_CHECKPOINTS;
  process.env.KF_GNN_CHECKPOINTS = path.join(root, 'ck');
  try {
    const lines: string[] = [];
    const loaded = await createGnnScorer({ graph: g, graphFingerprint: 'index-fp', settings: { artifacts: store }, log: (l) => lines.push(l) });
    assert.ok(loaded, 'the checkpoint under KF_GNN_CHECKPOINTS was found');
    assert.match(lines.join('\n'), /trained GNN [0-9a-f]{12} from .*preset custom, 2 layers x 8/);
    // The checkpoint's identity, as every label shows it: id, where from, preset and size, training data.
    assert.equal(loaded!.checkpoint.layers, 2);
    assert.equal(loaded!.checkpoint.hidden, 8);
    assert.equal(loaded!.checkpoint.preset, 'custom');
    assert.ok(loaded!.checkpoint.parameters > 0);
    assert.match(loaded!.checkpoint.trainedOn, /unrecorded/, 'this toy run named no training data');
    const out = await loaded!.scorer(g, toyQuery(0, 'A'));
    assert.equal(out.docScores.length, g.numDocs);
    assert.ok(out.docScores.some((x) => x > 0));
    const other = toyGraph(4);
    assert.equal(await createGnnScorer({ graph: other, graphFingerprint: 'other', settings: { artifacts: store } }), undefined);
    await assert.rejects(
      createGnnScorer({ graph: other, graphFingerprint: 'other', settings: { artifacts: store, gnnCheckpoint: path.join(root, 'ck', 'toy', 'last') } }),
      (e: Error & { code?: string }) => e.code === 'gnn_checkpoint_foreign',
    );
  } finally {
    if (old === undefined) delete process.env.KF_GNN_CHECKPOINTS;
    else process.env.KF_GNN_CHECKPOINTS = old;
    fs.rmSync(root, { recursive: true, force: true });
  }
});
