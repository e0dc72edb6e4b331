/**
 * Paired statistics: the exact sign test against scipy.stats.binomtest (given
 * values and a live python3 cross-check), the seeded paired bootstrap
 * (reproducible, and covering the true mean difference at about the nominal
 * rate in simulation), standard error, and comparePaired per bucket.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  binomCdfHalf,
  comparePaired,
  comparePairedByBucket,
  flips,
  pairedBootstrapCI,
  pairedStandardError,
  quantileSorted,
  signTestP,
} from '../../lib/eval/stats';
import { makeRng } from '../../lib/util/rng';

const rel = (a: number, b: number) => (b === 0 ? Math.abs(a) : Math.abs(a - b) / Math.abs(b));

test('sign test matches scipy.stats.binomtest(k, n, 0.5).pvalue to 1e-9 relative (paper checks)', () => {
  // scipy 1.17 values.
  assert.ok(rel(signTestP(447, 255), 4.0567218120420974e-13) < 1e-9);
  assert.ok(rel(signTestP(215, 157), 0.003071646758837251) < 1e-9);
  assert.ok(rel(signTestP(115, 129), 0.4053238859067225) < 1e-9);
  // The spec's rounded figures.
  assert.equal(signTestP(447, 255).toPrecision(5), '4.0567e-13');
  assert.equal(signTestP(215, 157).toPrecision(5), '0.0030716');
  assert.equal(signTestP(115, 129).toPrecision(5), '0.40532');
});

test('sign test: tiny and tied cases', () => {
  assert.equal(signTestP(0, 0), 1);
  assert.equal(signTestP(1, 0), 1); // 2 * 1/2
  assert.equal(signTestP(0, 1), 1);
  assert.equal(signTestP(2, 0), 0.5);
  assert.equal(signTestP(5, 0), 0.0625);
  assert.equal(signTestP(0, 5), 0.0625);
  assert.equal(signTestP(3, 3), 1);
  assert.equal(signTestP(2, 1), 1); // 2 * P(X <= 1 | n=3) = 1
  assert.equal(signTestP(10, 3), 0.09228515625); // 2 * 378/8192
  assert.equal(signTestP(0, 30), 2 ** -29);
  assert.equal(signTestP(7, 9), signTestP(9, 7)); // symmetric
  assert.throws(() => signTestP(-1, 2));
  assert.throws(() => signTestP(1.5, 2));
  assert.equal(binomCdfHalf(2, 4), 11 / 16);
  assert.equal(binomCdfHalf(-1, 4), 0);
  assert.equal(binomCdfHalf(4, 4), 1);
});

function scipyAvailable(): string | false {
  try {
    execFileSync('python3', ['-c', 'import scipy.stats'], { stdio: 'ignore' });
    return false;
  } catch {
    return 'python3 with scipy is not available here (the three reference values above are still checked)';
  }
}

test('sign test cross-check against python3 scipy on a grid (exact BigInt path and large-n path)', { skip: scipyAvailable() }, () => {
  const cases: [number, number][] = [
    [1, 2],
    [4, 9],
    [17, 3],
    [50, 61],
    [120, 80],
    [447, 255],
    [215, 157],
    [115, 129],
    [700, 650],
    [1000, 1100],
    [2441, 2300],
    [5000, 4800],
    [9999, 10001],
    [10200, 9800],
    [12000, 9000],
    [15000, 14000],
    [26000, 24000],
    [30000, 29500],
    [40000, 38000],
  ];
  const script = 'import json,sys\nfrom scipy.stats import binomtest\nprint(json.dumps([binomtest(w, w + l, 0.5).pvalue for w, l in json.load(sys.stdin)]))';
  const py = JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify(cases) }).toString()) as number[];
  cases.forEach(([w, l], i) => {
    const p = signTestP(w, l);
    assert.ok(rel(p, py[i]) < 1e-9, `${w}:${l} -> ${p} vs scipy ${py[i]} (rel ${rel(p, py[i])})`);
  });
});

test('flips at a margin; paired standard error; numpy-style quantiles', () => {
  assert.deepEqual(flips([1, 0.5, 0.2, 0], [0, 0.45, 0.6, 0], 0.1), { won: 1, lost: 1, tied: 2 });
  assert.deepEqual(flips([1, 0.5, 0.2, 0], [0, 0.45, 0.6, 0]), { won: 2, lost: 1, tied: 1 });
  // diffs 1, 0, -1, 0: sd = sqrt(2/3), se = sd / 2.
  assert.ok(Math.abs(pairedStandardError([1, 0, -1, 0]) - Math.sqrt(2 / 3) / 2) < 1e-15);
  assert.ok(Number.isNaN(pairedStandardError([1])));
  assert.equal(quantileSorted([1, 2, 3, 4], 0.5), 2.5);
  assert.equal(quantileSorted([1, 2, 3, 4], 0.025), 1.075);
});

test('bootstrap: reproducible by seed, different across seeds, brackets the observed mean', () => {
  const rng = makeRng('data');
  const diffs: number[] = Array.from({ length: 300 }, () => (rng.next() < 0.3 ? 1 : rng.next() < 0.2 ? -1 : 0));
  const a = pairedBootstrapCI(diffs, { seed: 7 });
  const b = pairedBootstrapCI(diffs, { seed: 7 });
  const c = pairedBootstrapCI(diffs, { seed: 8 });
  assert.deepEqual(a, b);
  assert.notDeepEqual(a, c);
  const m = diffs.reduce((s, x) => s + x, 0) / diffs.length;
  assert.ok(a[0] < m && m < a[1]);
  assert.deepEqual(pairedBootstrapCI([], { seed: 1 }).map(Number.isNaN), [true, true]);
});

test('bootstrap coverage: 95% intervals cover the true mean difference in ~95% of 200 simulated datasets', (t) => {
  // Paired per-question scores with a known mean difference: A ~ Bernoulli(0.6); B copies A with
  // probability 0.7, else is an independent Bernoulli(0.5): E[B] = 0.57, true E[A - B] = 0.03.
  const sim = makeRng('coverage-sim');
  let covered = 0;
  const datasets = 200;
  for (let d = 0; d < datasets; d++) {
    const n = 120;
    const diffs: number[] = [];
    for (let i = 0; i < n; i++) {
      const a = sim.next() < 0.6 ? 1 : 0;
      const b = sim.next() < 0.7 ? a : sim.next() < 0.5 ? 1 : 0;
      diffs.push(a - b);
    }
    const [lo, hi] = pairedBootstrapCI(diffs, { seed: `cov/${d}`, resamples: 1000 });
    if (lo <= 0.03 && 0.03 <= hi) covered++;
  }
  const rate = covered / datasets;
  // Binomial SE of the estimate at 0.95 over 200 datasets is ~0.015; percentile intervals run slightly narrow.
  assert.ok(rate >= 0.88 && rate <= 0.99, `coverage ${rate}`);
  t.diagnostic(`bootstrap coverage ${rate} over ${datasets} datasets`);
});

test('comparePaired: paired ids only, sorted for reproducibility, every statistic; per bucket', () => {
  const a = new Map<string, number>();
  const b = new Map<string, number>();
  const rng = makeRng('cmp');
  for (let i = 0; i < 200; i++) {
    a.set(`q${i}`, rng.next() < 0.6 ? 1 : 0);
    b.set(`q${i}`, rng.next() < 0.5 ? 1 : 0);
  }
  a.set('onlyA', 1);
  b.set('onlyB', 0);
  const r = comparePaired(a, b, { seed: 3 });
  assert.equal(r.n, 200);
  assert.equal(r.onlyA, 1);
  assert.equal(r.onlyB, 1);
  assert.equal(r.won + r.lost + r.tied, 200);
  assert.ok(Math.abs(r.diff - (r.meanA - r.meanB)) < 1e-12);
  assert.equal(r.signTestP, signTestP(r.won, r.lost));
  assert.ok(r.bootstrapCI[0] <= r.diff && r.diff <= r.bootstrapCI[1]);
  assert.ok(r.se > 0);
  // Insertion order does not change the result.
  const a2 = new Map([...a.entries()].reverse());
  assert.deepEqual(comparePaired(a2, b, { seed: 3 }), r);
  // Per bucket: multi-valued buckets count the question in each.
  const by = comparePairedByBucket(a, b, (id) => (Number(id.slice(1)) % 2 ? ['odd', 'all'] : ['even', 'all']), { seed: 3 });
  assert.deepEqual(Object.keys(by), ['all', 'even', 'odd']);
  assert.equal(by.odd.n + by.even.n, 200);
  assert.equal(by.all.n, 200);
  assert.equal(by.all.diff, r.diff);
  assert.throws(() => comparePaired(new Map([['x', NaN]]), new Map([['x', 1]])), /x/);
});
