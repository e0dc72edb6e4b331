/**
 * The KnowForge demo suite offline on the tiny world: S0, S4, M4, M5, P0, P1,
 * each paired against S4 (sign test, bootstrap CI), tables written and
 * labelled offline; the full pipeline beats closed book.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { runSuite } from '../../lib/report/suite';
import { repoRoot } from '../../lib/util/paths';

test('knowforge-demo suite offline: S0/S4/M4/M5/P0/P1 with paired comparisons against S4', { timeout: 15 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  const out = ownScratch('kf-knowforge-suite-');
  const r = await runSuite(path.join(repoRoot(), 'experiments', 'suites', 'knowforge-demo.toml'), {
    out,
    formats: ['html'],
    log: () => {},
    overrides: [...demoPresetOverrides('tiny', world.dir, { indexDir: path.join(out, 'index') }).overrides, 'models.cache.mode=off'],
  });
  assert.deepEqual(r.incomplete, []);
  assert.equal(r.backend, 'offline');
  assert.equal(r.runs.length, 6);
  const pairs = new Map(r.comparisons.map((c) => [`${c.runA.split('-full')[0]}|${c.runB.split('-full')[0]}`, c]));
  for (const a of ['demo-S0', 'demo-M4', 'demo-M5', 'demo-P0', 'demo-P1']) {
    const c = pairs.get(`${a}|demo-S4`);
    assert.ok(c, `${a} is compared with S4`);
    assert.ok(c.signTestP >= 0 && c.signTestP <= 1 && c.bootstrapCI.length === 2);
    console.log(`${a} vs S4: diff ${(100 * c.diff).toFixed(1)} F1, won:lost ${c.won}:${c.lost}, p=${c.signTestP.toPrecision(3)}`);
  }
  assert.ok(pairs.get('demo-S0|demo-S4')!.diff < 0, 'closed book is below the one-shot baseline');
  assert.match(fs.readFileSync(path.join(out, 'comparisons.md'), 'utf8'), /offline backend: not model results/);
});
