/**
 * TensorFlow.js backend selection, once per process.
 *
 * Order: the native TensorFlow backend when `@tensorflow/tfjs-node` really is
 * installed with its binary (machines with internet; here it cannot fetch
 * libtensorflow), then WebAssembly (ships in the npm package; ~30x the pure-JS
 * speed), then the pure-JS cpu backend. KF_TF_BACKEND=tensorflow|wasm|cpu forces one.
 *
 * wasm lacks the UnsortedSegmentSum kernel (and therefore the gradient of
 * tf.gather, the core of message passing): we register a plain-JS kernel for it.
 */
import * as tf from '@tensorflow/tfjs';

export type TfBackendName = 'tensorflow' | 'wasm' | 'cpu';
export interface TfInfo {
  backend: TfBackendName;
  /** Why a faster backend was not used (empty when the first choice loaded). */
  fallbacks: string[];
  version: string;
}

let info: Promise<TfInfo> | undefined;

function tryNative(): string | undefined {
  // The real package is installed as the optional alias `tfjs-node-native` (its install script cannot
  // download libtensorflow here, so it is not approved); `@tensorflow/tfjs-node` itself is overridden
  // to pure tfjs for danfojs. Either one loads only when its native binding exists.
  for (const name of ['tfjs-node-native', '@tensorflow/tfjs-node']) {
    try {
      require(name);
      if (tf.findBackend('tensorflow')) return undefined;
    } catch (e) {
      const msg = (e as Error).message.split('\n')[0];
      if (name === 'tfjs-node-native') return `tensorflow: ${msg.slice(0, 160)}`;
    }
  }
  return 'tensorflow: the native tfjs-node binding is not installed';
}

function registerWasmSegmentSum(): void {
  if (tf.getKernel('UnsortedSegmentSum', 'wasm')) return;
  tf.registerKernel({
    kernelName: 'UnsortedSegmentSum',
    backendName: 'wasm',
    kernelFunc: ({ inputs, backend, attrs }) => {
      const { x, segmentIds } = inputs as { x: tf.TensorInfo; segmentIds: tf.TensorInfo };
      const { numSegments } = attrs as unknown as { numSegments: number };
      const b = backend as unknown as { readSync(id: unknown): tf.TypedArray; makeOutput(shape: number[], dtype: string, memoryOffset?: number, values?: tf.TypedArray): tf.TensorInfo };
      const xv = b.readSync(x.dataId) as Float32Array;
      const ids = b.readSync(segmentIds.dataId) as Int32Array;
      const inner = x.shape.slice(1).reduce((a, c) => a * c, 1);
      const out = new Float32Array(numSegments * inner);
      for (let i = 0; i < ids.length; i++) {
        const s = ids[i];
        if (s < 0 || s >= numSegments) continue;
        const src = i * inner, dst = s * inner;
        for (let j = 0; j < inner; j++) out[dst + j] += xv[src + j];
      }
      // Hand the values to the wasm backend as a new output tensor.
      return b.makeOutput([numSegments, ...x.shape.slice(1)], 'float32', undefined, out);
    },
  });
}

async function select(): Promise<TfInfo> {
  const forced = process.env.KF_TF_BACKEND as TfBackendName | undefined;
  const fallbacks: string[] = [];
  const order: TfBackendName[] = forced ? [forced] : ['tensorflow', 'wasm', 'cpu'];
  for (const name of order) {
    if (name === 'tensorflow') {
      const why = tryNative();
      if (why) { fallbacks.push(why); continue; }
      await tf.setBackend('tensorflow');
      return { backend: 'tensorflow', fallbacks, version: tf.version.tfjs };
    }
    if (name === 'wasm') {
      try {
        require('@tensorflow/tfjs-backend-wasm');
        if (await tf.setBackend('wasm')) {
          await tf.ready();
          registerWasmSegmentSum();
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
