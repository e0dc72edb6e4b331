/**
 * The main job on the tiny demo world, offline: S0/S1/S3/S4v1/S4 run end to end,
 * S3 and S4 beat closed book, and the suite writes its tables, comparisons and
 * figures, every one labelled offline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { tinyDemoIndexDir, tinyDemoWorld } from '../_shared/scratch';
import { runSuite } from '../../lib/report/suite';
import { repoRoot } from '../../lib/util/paths';

test('demo suite offline: S3 and S4 beat S0 (paired), tables/comparisons/figures written and labelled offline', { timeout: 10 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-demo-suite-'));
  const r = await runSuite(path.join(repoRoot(), 'experiments', 'suites', 'demo-one-shot.toml'), {
    out,
    formats: ['html'],
    log: () => {},
    overrides: [...demoPresetOverrides('tiny', world.dir, { indexDir: tinyDemoIndexDir() }).overrides, `models.cache.mode=off`],
  });
  assert.deepEqual(r.incomplete, []);
  assert.equal(r.backend, 'offline');
  assert.equal(r.runs.length, 5);
  const byPair = new Map(r.comparisons.map((c) => [`${c.runA.split('-full')[0]}|${c.runB.split('-full')[0]}`, c]));
  for (const a of ['demo-S3', 'demo-S4']) {
    const c = byPair.get(`${a}|demo-S0`);
    assert.ok(c, `comparison ${a} vs demo-S0 exists`);
    console.log(
      `${a} vs S0: diff ${(100 * c.diff).toFixed(1)} F1, won:lost ${c.won}:${c.lost}, p=${c.signTestP.toPrecision(3)}, CI [${c.bootstrapCI.map((x) => (100 * x).toFixed(1)).join(', ')}]`,
    );
    assert.ok(c.diff > 0 && c.meanA > c.meanB, `${a} beats closed book`);
    assert.ok(c.won > c.lost);
  }
  for (const f of [
    'SUMMARY.md',
    'comparisons.md',
    'comparisons.csv',
    'comparisons.json',
    'manifest.json',
    'tables/runs.md',
    'tables/paired.csv',
    'figures/f1-by-config.html',
  ]) {
    assert.ok(fs.existsSync(path.join(out, f)), `${f} written`);
  }
  assert.match(fs.readFileSync(path.join(out, 'SUMMARY.md'), 'utf8'), /offline backend: not model results/);
  assert.match(fs.readFileSync(path.join(out, 'tables', 'runs.md'), 'utf8'), /offline backend: not model results/);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  assert.equal(manifest.backend, 'offline');
  assert.ok(manifest.files.length >= 8);
});
