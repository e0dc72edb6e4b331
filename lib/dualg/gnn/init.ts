/** Seeded parameter initialisation (tf.random* would not follow the harness's seeds). */
import { makeRng, type Rng } from '../../util/rng';

function gaussian(rng: Rng): number {
  // Box-Muller; 1 - u keeps log away from 0.
  const u = 1 - rng.next(),
    v = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Normal(0, std) values for a parameter, from a stream forked by its name (adding a parameter does not shift the others). */
export function normalInit(seed: number | string, name: string, size: number, std: number): Float32Array {
  const rng = makeRng(`${seed}`).fork(name);
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) out[i] = gaussian(rng) * std;
  return out;
}

/** Glorot-normal standard deviation for a fanIn x fanOut matrix. */
export function glorotStd(fanIn: number, fanOut: number): number {
  return Math.sqrt(2 / (fanIn + fanOut));
}
