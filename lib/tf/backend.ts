/**
 * TensorFlow.js backend selection, once per process.
 *
 * Order: the CUDA-backed TensorFlow binding when `@tensorflow/tfjs-node-gpu` is
 * installed with its binary and a GPU (a machine with CUDA + cuDNN; it cannot be
 * installed here: its install script downloads libtensorflow-gpu), then the
 * native CPU TensorFlow backend when `@tensorflow/tfjs-node` really is installed
 * with its binary (machines with internet; here it cannot fetch libtensorflow),
 * then WebAssembly (ships in the npm package; ~30x the pure-JS speed), then the
 * pure-JS cpu backend. KF_TF_BACKEND=tensorflow-gpu|tensorflow|wasm|cpu forces
 * one (a forced backend that cannot load is an error, never a silent fallback).
 * Both TensorFlow bindings register tfjs backend 'tensorflow'; which library
 * answered is what TfInfo.backend says. The GNN code is backend-agnostic: the
 * same training and scoring run on any of them (README "GNN on a GPU").
 *
 * wasm lacks the UnsortedSegmentSum kernel (and therefore the gradient of
 * tf.gather, the core of message passing): we register a plain-JS kernel for it.
 */
import * as tf from '@tensorflow/tfjs';

export const TF_BACKENDS = ['tensorflow-gpu', 'tensorflow', 'wasm', 'cpu'] as const;
export type TfBackendName = (typeof TF_BACKENDS)[number];
export interface TfInfo {
  backend: TfBackendName;
  /** Why a faster backend was not used (empty when the first choice loaded). */
  fallbacks: string[];
  version: string;
}

let info: Promise<TfInfo> | undefined;

/**
 * The packages that provide each TensorFlow binding, tried in order: an optional alias first (the real
 * package installed under another name when `@tensorflow/tfjs-node` is overridden to pure tfjs for danfojs),
 * then the package itself. A binding counts only when tfjs then has its 'tensorflow' backend.
 */
export const NATIVE_PACKAGES: Record<'tensorflow-gpu' | 'tensorflow', string[]> = {
  'tensorflow-gpu': ['tfjs-node-gpu-native', '@tensorflow/tfjs-node-gpu'],
  tensorflow: ['tfjs-node-native', '@tensorflow/tfjs-node'],
};

/** Load one TensorFlow binding: undefined when loaded, else why not (the first package's error, or "not installed"). */
export function tryNative(
  name: 'tensorflow-gpu' | 'tensorflow',
  load: (pkg: string) => unknown = require,
  hasBackend = () => !!tf.findBackend('tensorflow'),
): string | undefined {
  const pkgs = NATIVE_PACKAGES[name];
  let first: string | undefined;
  for (const pkg of pkgs) {
    try {
      load(pkg);
      if (hasBackend()) return undefined;
    } catch (e) {
      first ??= `${name}: ${(e as Error).message.split('\n')[0].slice(0, 160)}`;
    }
  }
  return first ?? `${name}: ${pkgs[pkgs.length - 1]} is not installed (or has no native binding)`;
}

/** The order backends are tried in: the forced one alone, else fastest first. Unknown names are refused. */
export function backendOrder(forced: string | undefined): TfBackendName[] {
  if (!forced) return [...TF_BACKENDS];
  if (!(TF_BACKENDS as readonly string[]).includes(forced))
    throw new Error(`KF_TF_BACKEND=${forced} is not a tfjs backend this harness knows; use one of ${TF_BACKENDS.join(', ')} (or unset it)`);
  return [forced as TfBackendName];
}

function registerWasmSegmentSum(): void {
  if (tf.getKernel('UnsortedSegmentSum', 'wasm')) return;
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const { numSegments } = attrs as unknown as { numSegments: number };
      const b = backend as unknown as {
        readSync(id: unknown): tf.TypedArray;
        makeOutput(shape: number[], dtype: string, memoryOffset?: number, values?: tf.TypedArray): tf.TensorInfo;
      };
      const xv = b.readSync(x.dataId) as Float32Array;
      const ids = b.readSync(segmentIds.dataId) as Int32Array;
      const inner = x.shape.slice(1).reduce((a, c) => a * c, 1);
      const out = new Float32Array(numSegments * inner);
      for (let i = 0; i < ids.length; i++) {
        const s = ids[i];
        if (s < 0 || s >= numSegments) continue;
        const src = i * inner,
          dst = s * inner;
        for (let j = 0; j < inner; j++) out[dst + j] += xv[src + j];
      }
      // Hand the values to the wasm backend as a new output tensor.
      return b.makeOutput([numSegments, ...x.shape.slice(1)], 'float32', undefined, out);
    },
  });
}

/**
 * wasm's GatherV2 is pathologically slow for row gathers (403 ms of a 480 ms
 * GNN forward on a 5.5K-edge subgraph, measured): axis-0 gathers of float32 /
 * int32 rows are done in plain JS (row copies); anything else goes to the
 * original kernel.
 */
function registerWasmRowGather(): void {
  const original = tf.getKernel('GatherV2', 'wasm');
  if (!original || (original as { kfRowGather?: boolean }).kfRowGather) return;
  const config = {
    kernelName: 'GatherV2',
    backendName: 'wasm',
    kfRowGather: true,
    kernelFunc: (args: Parameters<typeof original.kernelFunc>[0]) => {
      const { inputs, backend, attrs } = args;
      const { x, indices } = inputs as { x: tf.TensorInfo; indices: tf.TensorInfo };
      const { axis, batchDims } = attrs as unknown as { axis: number; batchDims?: number };
      const rowAxis = axis === 0 || axis === -x.shape.length;
      if (!rowAxis || (batchDims ?? 0) !== 0 || (x.dtype !== 'float32' && x.dtype !== 'int32') || x.shape.length < 1) return original.kernelFunc(args);
      const b = backend as unknown as {
        readSync(id: unknown): tf.TypedArray;
        makeOutput(shape: number[], dtype: string, memoryOffset?: number, values?: tf.TypedArray): tf.TensorInfo;
      };
      const xv = b.readSync(x.dataId);
      const ids = b.readSync(indices.dataId);
      const rows = x.shape[0];
      const inner = x.shape.slice(1).reduce((a, c) => a * c, 1);
      const out = x.dtype === 'int32' ? new Int32Array(ids.length * inner) : new Float32Array(ids.length * inner);
      for (let i = 0; i < ids.length; i++) {
        const r = ids[i];
        if (r < 0 || r >= rows) continue; // tf.gather gives zeros for out-of-range rows on CPU backends
        out.set((xv as Float32Array).subarray(r * inner, r * inner + inner), i * inner);
      }
      return b.makeOutput([...indices.shape, ...x.shape.slice(1)], x.dtype, undefined, out);
    },
  };
  tf.unregisterKernel('GatherV2', 'wasm');
  tf.registerKernel(config as unknown as tf.KernelConfig);
}

async function select(): Promise<TfInfo> {
  const forced = process.env.KF_TF_BACKEND || undefined;
  const fallbacks: string[] = [];
  for (const name of backendOrder(forced)) {
    if (name === 'tensorflow-gpu' || name === 'tensorflow') {
      const why = tryNative(name);
      if (why) {
        fallbacks.push(why);
        continue;
      }
      await tf.setBackend('tensorflow');
      return { backend: name, fallbacks, version: tf.version.tfjs };
    }
    if (name === 'wasm') {
      try {
        require('@tensorflow/tfjs-backend-wasm');
        if (await tf.setBackend('wasm')) {
          await tf.ready();
          registerWasmSegmentSum();
          registerWasmRowGather();
          return { backend: 'wasm', fallbacks, version: tf.version.tfjs };
        }
        fallbacks.push('wasm: setBackend returned false');
      } catch (e) {
        fallbacks.push(`wasm: ${(e as Error).message.slice(0, 160)}`);
      }
      continue;
    }
    await tf.setBackend('cpu');
    await tf.ready();
    return { backend: 'cpu', fallbacks, version: tf.version.tfjs };
  }
  throw new Error(`KF_TF_BACKEND=${forced} could not be loaded (${fallbacks.join('; ')}); unset it to fall back automatically`);
}

/** Select and initialise the backend (idempotent). */
export function initTf(): Promise<TfInfo> {
  if (!info) info = select();
  return info;
}

export { tf };
