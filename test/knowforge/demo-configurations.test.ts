/**
 * Every agent configuration (M4, M5, M5OFF, M5VEC, M5S3, P0, P1 and the L+R
 * caps) runs end to end on the tiny demo world with the offline backend, from
 * its experiment file, through the runner: records without errors, labelled
 * offline, with retrieval metrics and traces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { tinyDemoIndexDir, tinyDemoWorld } from '../_shared/scratch';
import { loadExperiment } from '../../lib/run/config';
import { runExperiment } from '../../lib/run/runner';
import { repoRoot } from '../../lib/util/paths';

const QUESTIONS = 3;

test('every agent configuration runs end to end on the demo world offline', { timeout: 15 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-agent-configs-'));
  const dir = path.join(repoRoot(), 'experiments', 'knowforge', 'demo');
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.toml') && !f.startsWith('_'))
    .sort();
  assert.ok(files.length >= 19, `${files.length} configuration files`);
  for (const f of files) {
    const exp = loadExperiment(path.join(dir, f), {
      overrides: [
        ...demoPresetOverrides('tiny', world.dir, { indexDir: tinyDemoIndexDir() }).overrides,
        'models.cache.mode=off',
        `limits.maxQuestions=${QUESTIONS}`,
      ],
    });
    const r = await runExperiment({ experiment: exp, resultsDir: out, log: () => {} });
    assert.equal(r.status, 'completed', `${f}: ${r.status}`);
    const records = fs
      .readFileSync(path.join(r.dir, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(records.length, QUESTIONS, f);
    for (const rec of records) {
      assert.equal(rec.error ?? null, null, `${f} ${rec.id}: ${JSON.stringify(rec.error)}`);
      assert.equal(rec.backend, 'offline');
      assert.match(rec.prediction, /FINAL ANSWER:/);
      assert.ok(rec.counters.searches >= 1, `${f}: searched`);
      assert.equal(typeof rec.retrieval?.docFound, 'number', `${f}: retrieval metrics`);
    }
    const name = exp.config.pipeline.name;
    const c = records[0].counters;
    if (name === 'P1' || name.endsWith('R0')) assert.equal(c.readerModelCalls ?? 0, 0, `${name}: no reader`);
    if (name === 'M4') assert.equal(c.judgeCalls ?? 0, 0, 'M4: no judge');
    if (name === 'P0') assert.ok(c.p0ModelCalls > 0 && !c.locatorModelCalls, 'P0: one agent');
  }
});
