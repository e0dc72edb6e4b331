/**
 * No silent substitution, end to end through the runner: a DualG row run from its experiment file on the tiny
 * demo world (offline backend) names the system that ranked in every record, in the manifest and in the
 * `kf run` outcome line: the scorer (here the untrained heuristic, labelled so), the generator, and who parsed the
 * query pattern (offline: the rule stand-in, labelled so).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { loadExperiment } from '../../lib/run/config';
import { runExperiment } from '../../lib/run/runner';
import { repoRoot } from '../../lib/util/paths';
import { ownScratch, tinyDemoIndexDir, tinyDemoWorld } from '../_shared/scratch';
import { kfInProcess } from '../_shared/cli-in-process';

test('a DualG run records the system that ranked in every record and in the manifest', { timeout: 10 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  const out = ownScratch('kf-dualg-identity-');
  try {
    const file = path.join(repoRoot(), 'experiments', 'dualg', 'demo', 'DG-heuristic.toml');
    const overrides = [
      ...demoPresetOverrides('tiny', world.dir, { indexDir: tinyDemoIndexDir() }).overrides,
      `index.settings.artifacts=${path.join(out, 'artifacts')}`,
      'models.cache.mode=off',
      'limits.maxQuestions=2',
    ];
    const exp = loadExperiment(file, { overrides });
    const r = await runExperiment({ experiment: exp, resultsDir: path.join(out, 'results'), log: () => {} });
    assert.equal(r.status, 'completed');
    const records = fs
      .readFileSync(path.join(r.dir, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(records.length, 2);
    for (const rec of records) {
      assert.equal(rec.error, null, JSON.stringify(rec.error));
      assert.equal(rec.system.scorer, 'heuristic');
      assert.match(rec.system.label, /^scorer heuristic \(untrained\); generator: unified prompt, path snippets \+ raw images up to k_v \(paper\)$/);
      assert.equal(rec.system.pattern, 'offline rules (stand-in)', 'offline, the pattern stage is the labelled rule stand-in');
    }
    assert.equal(r.manifest.pipeline.system?.label, records[0].system.label, 'the manifest names the system');
    assert.equal(r.manifest.pipeline.otherSystems, undefined, 'one system in the run');
    assert.match(r.manifest.pipeline.description, /generator: unified prompt, path snippets/);
    // The kf run outcome names it too (the same run resumed: nothing left to answer).
    const cli = await kfInProcess(['run', file, ...overrides.flatMap((o) => ['--override', o]), '--out', path.join(out, 'results'), '--run-id', r.runId]);
    assert.equal(cli.code, 0, cli.err);
    assert.match(cli.out, /\n {2}system {3}scorer heuristic \(untrained\); generator: unified prompt, path snippets/);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
});
