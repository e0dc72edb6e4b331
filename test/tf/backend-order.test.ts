/**
 * Backend selection without the native packages (they cannot be installed here): the order tried, a forced
 * backend, and how a TensorFlow binding is judged loaded (the GPU package first, then the CPU one), with
 * injected loaders standing in for `require`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backendOrder, NATIVE_PACKAGES, tryNative } from '../../lib/tf/backend';

test('the GPU binding is tried first, then native CPU, wasm, pure JS; a forced backend is tried alone', () => {
  assert.deepEqual(backendOrder(undefined), ['tensorflow-gpu', 'tensorflow', 'wasm', 'cpu']);
  assert.deepEqual(backendOrder('tensorflow-gpu'), ['tensorflow-gpu']);
  assert.deepEqual(backendOrder('wasm'), ['wasm']);
  assert.throws(() => backendOrder('cuda'), /KF_TF_BACKEND=cuda .*tensorflow-gpu, tensorflow, wasm, cpu/);
});

test('a TensorFlow binding counts only when its package loads and registers the tensorflow backend', () => {
  const tried: string[] = [];
  const missing = (pkg: string) => {
    tried.push(pkg);
    throw new Error(`Cannot find module '${pkg}'\nRequire stack: ...`);
  };
  assert.match(String(tryNative('tensorflow-gpu', missing, () => false)), /^tensorflow-gpu: Cannot find module 'tfjs-node-gpu-native'$/);
  assert.deepEqual(tried, NATIVE_PACKAGES['tensorflow-gpu'], 'the alias, then @tensorflow/tfjs-node-gpu');
  // A package that loads but registers no backend (the pure-tfjs override of @tensorflow/tfjs-node) is not a binding.
  assert.match(
    String(
      tryNative(
        'tensorflow',
        () => ({}),
        () => false,
      ),
    ),
    /@tensorflow\/tfjs-node is not installed \(or has no native binding\)/,
  );
  // The GPU package that loads and registers 'tensorflow': selected.
  let registered = false;
  const gpu = (pkg: string) => {
    if (pkg !== '@tensorflow/tfjs-node-gpu') throw new Error(`Cannot find module '${pkg}'`);
    registered = true;
  };
  assert.equal(
    tryNative('tensorflow-gpu', gpu, () => registered),
    undefined,
  );
});
