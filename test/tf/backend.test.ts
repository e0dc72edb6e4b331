import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initTf, tf } from '../../lib/tf/backend';

test('tfjs: a backend is active and computes correctly (matmul, gather gradient)', async () => {
  const info = await initTf();
  console.log(`tfjs backend: ${info.backend} (tfjs ${info.version})${info.fallbacks.length ? `; fell back because: ${info.fallbacks.join('; ')}` : ''}`);
  assert.ok(['tensorflow', 'wasm', 'cpu'].includes(info.backend));
  assert.equal(tf.getBackend(), info.backend);
  const a = tf.tensor2d([
    [1, 2],
    [3, 4],
  ]);
  const b = tf.tensor2d([
    [5, 6],
    [7, 8],
  ]);
  assert.deepEqual(Array.from(await a.matMul(b).data()), [19, 22, 43, 50]);
  // gather's gradient needs UnsortedSegmentSum (missing on wasm: we register it).
  const x = tf.variable(
    tf.tensor2d([
      [1, 1],
      [2, 2],
      [3, 3],
    ]),
  );
  const idx = tf.tensor1d([0, 2, 2], 'int32');
  const g = tf.grad((v: tf.Tensor) => tf.gather(v, idx).sum())(x);
  assert.deepEqual(Array.from(await g.data()), [1, 1, 0, 0, 2, 2]);
  const seg = tf.unsortedSegmentSum(tf.tensor1d([1, 2, 3, 4]), tf.tensor1d([0, 1, 0, 1], 'int32'), 2);
  assert.deepEqual(Array.from(await seg.data()), [4, 6]);
});
