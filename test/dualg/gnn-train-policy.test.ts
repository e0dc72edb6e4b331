/**
 * GNN training is never a side effect nobody asked for: kf run / kf ask set
 * KF_GNN_TRAIN=0 unless --train, and a missing checkpoint is then refused with
 * the estimate and the commands that train it on purpose.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GNN_TRAIN_ENV, implicitTrainingAllowed, refuseUnaskedTraining, setImplicitTraining } from '../../lib/dualg/gnn/train-policy';
import { isKfError } from '../../lib/util/errors';

test('kf run / kf ask: no --train -> training refused; --train or an exported KF_GNN_TRAIN=1 -> allowed; unset (kf demo, suite) -> allowed', () => {
  const bare: NodeJS.ProcessEnv = {};
  assert.equal(implicitTrainingAllowed(bare), true, 'library callers and kf demo train, announced');
  setImplicitTraining(false, bare);
  assert.equal(bare[GNN_TRAIN_ENV], '0');
  assert.equal(implicitTrainingAllowed(bare), false);
  const flagged: NodeJS.ProcessEnv = {};
  setImplicitTraining(true, flagged);
  assert.equal(implicitTrainingAllowed(flagged), true);
  const exported: NodeJS.ProcessEnv = { [GNN_TRAIN_ENV]: '1' };
  setImplicitTraining(false, exported);
  assert.equal(implicitTrainingAllowed(exported), true, 'a value the user exported is kept');
});

test('the refusal names the estimate (graph size, CPU minutes), --train, kf prepare gnn-checkpoint, kf train gnn and DG-heuristic', () => {
  let caught: unknown;
  try {
    refuseUnaskedTraining({ numNodes: 1234, edges: 5678 }, '/idx/demo', { [GNN_TRAIN_ENV]: '0' });
  } catch (e) {
    caught = e;
  }
  assert.ok(isKfError(caught), 'a KfError');
  assert.equal(caught.code, 'gnn_training_not_asked');
  assert.match(caught.message, /1234 nodes, 5678 edges/);
  assert.match(caught.message, /about 4 minutes/);
  for (const want of ['--train', 'kf prepare gnn-checkpoint --set index=/idx/demo', 'kf train gnn --index /idx/demo', 'DG-heuristic'])
    assert.ok(caught.hint.includes(want), `the hint names ${want}: ${caught.hint}`);
  assert.doesNotThrow(() => refuseUnaskedTraining({ numNodes: 1, edges: 1 }, '/idx', {}), 'unset: allowed');
});
