/**
 * Measured cost of the dense linker's nearest-name search (lib/dualg/query/name-index.ts) on this machine:
 * milliseconds per query with 1 and 2 mentions, the exact scan (`nearestRows`) against the HNSW index with its
 * exact re-check, over random unit vectors at the 2Wiki graph's size by default (36,804 names x 384 dims). Each
 * mention is a noisy copy of a random name (noise norm 0.4, cosine about 0.93), so every query has a link to
 * find; the recall of the scan's links is printed with the times, and the build/save/load times of the index.
 * The embedding call of the mentions is not included (it is the endpoint's). Prints the 1-minute load average.
 *
 *   nice -n 10 node --import tsx lib/dualg/scripts/link-cost.ts --names 36804 --dim 384 --queries 60
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { scriptArgs } from '../../util/script-args';
import { MAX_PER_NAME } from '../query/link';
import { NameIndex, nearestRows, unitRows } from '../query/name-index';
import { DENSE_LINK_MIN } from '../query/dense-link';
import { percentile } from '../../util/percentile';
import { makeRng, type Rng } from '../../util/rng';

const { values } = scriptArgs(__filename, {
  options: {
    names: { type: 'string', default: '36804' },
    dim: { type: 'string', default: '384' },
    queries: { type: 'string', default: '60' },
    seed: { type: 'string', default: 'link-cost' },
  },
});
const N = Number(values.names);
const DIM = Number(values.dim);
const Q = Number(values.queries);

const gaussian = (rng: Rng) => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());

function mention(rng: Rng, rows: Float32Array): Float32Array {
  const o = rng.int(0, N - 1) * DIM;
  return Float32Array.from({ length: DIM }, (_, j) => rows[o + j] + (0.4 / Math.sqrt(DIM)) * gaussian(rng));
}

function time<T>(f: () => T): [T, number] {
  const t0 = performance.now();
  const r = f();
  return [r, performance.now() - t0];
}

const fmt = (xs: number[]) => `p50 ${percentile(xs, 0.5)!.toFixed(2)} ms, p90 ${percentile(xs, 0.9)!.toFixed(2)} ms`;

function main(): void {
  const rng = makeRng(values.seed!);
  const rows = unitRows(
    Array.from({ length: N }, () => Float32Array.from({ length: DIM }, () => gaussian(rng))),
    DIM,
  );
  const m = { dim: DIM, rows };
  const [built, buildMs] = time(() => NameIndex.build(m, 0));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-link-cost-'));
  const [, saveMs] = time(() => built.save(dir));
  const [ix, loadMs] = time(() => NameIndex.load(dir));
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(`${N} names x ${DIM} dims: HNSW build ${(buildMs / 1000).toFixed(1)} s, save ${saveMs.toFixed(0)} ms, load ${loadMs.toFixed(0)} ms`);
  for (const mentions of [1, 2]) {
    const sets = Array.from({ length: Q }, () => Array.from({ length: mentions }, () => mention(rng, rows)));
    // Warm-up: both paths compiled before they are timed.
    for (const qs of sets.slice(0, 3)) {
      nearestRows(m, qs, MAX_PER_NAME, DENSE_LINK_MIN);
      ix.nearest(qs, MAX_PER_NAME, DENSE_LINK_MIN);
    }
    const brute: number[] = [];
    const ann: number[] = [];
    let want = 0;
    let found = 0;
    for (const qs of sets) {
      const [exact, tb] = time(() => nearestRows(m, qs, MAX_PER_NAME, DENSE_LINK_MIN));
      const [got, ta] = time(() => ix.nearest(qs, MAX_PER_NAME, DENSE_LINK_MIN));
      brute.push(tb);
      ann.push(ta);
      exact.forEach((r, i) => {
        want += r.length;
        found += r.filter((n) => got[i].some((g) => g.entity === n.entity)).length;
      });
    }
    console.log(`${mentions} mention(s), ${Q} queries: brute ${fmt(brute)}; HNSW ${fmt(ann)}; recall of the scan's links ${found}/${want}`);
  }
  console.log(`load average (1 min): ${os.loadavg()[0].toFixed(2)}`);
}

main();
