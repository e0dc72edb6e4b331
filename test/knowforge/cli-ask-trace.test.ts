/**
 * `kf ask` answers one question through M5 on the tiny demo world (offline),
 * streams the roles' progress, prints the FINAL ANSWER, cited fragments and a
 * summary, and writes the full trace; `kf trace` prints a run's trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { loadExperiment } from '../../lib/run/config';
import { runExperiment } from '../../lib/run/runner';
import { repoRoot } from '../../lib/util/paths';
import { kfInProcess } from '../_shared/cli-in-process';

/** A run of M5 on the tiny world with an index of its own (built by the run: no other test file shares it). */
async function tinyRun(out: string, index: string) {
  const world = await tinyDemoWorld();
  const exp = loadExperiment(path.join(repoRoot(), 'experiments', 'knowforge', 'demo', 'M5.toml'), {
    overrides: [...demoPresetOverrides('tiny', world.dir, { indexDir: index }).overrides, 'models.cache.mode=off', 'limits.maxQuestions=2'],
  });
  return runExperiment({ experiment: exp, resultsDir: out, log: () => {} });
}

test(
  'kf trace prints a question of a run readably; kf ask answers with progress, FINAL ANSWER, citations and a trace file',
  { timeout: 5 * 60_000 },
  async () => {
    const out = ownScratch('kf-ask-trace-');
    const INDEX = path.join(out, 'index');
    const run = await tinyRun(out, INDEX);
    const id = JSON.parse(fs.readFileSync(path.join(run.dir, 'records.jsonl'), 'utf8').split('\n')[0]).id;
    const t = await kfInProcess(['trace', run.dir, id]);
    assert.equal(t.code, 0, t.err);
    for (const re of [
      /locator#1 model offline/,
      /search \[locator\]/,
      /bridge judge: need_more=/,
      /pool after locator/,
      /synthesizer: FINAL ANSWER/,
      /first event \d+ ms, answer started \d+ ms/,
    ])
      assert.match(t.out, re);
    const missing = await kfInProcess(['trace', run.dir, 'no-such-question']);
    assert.notEqual(missing.code, 0);

    const traceFile = path.join(out, 'ask-trace.json');
    const a = await kfInProcess([
      'ask',
      '--config',
      'M5',
      '--index',
      INDEX,
      '--trace',
      traceFile,
      'Which city had more inhabitants in 2015, Novrem or Kraenmox?',
    ]);
    assert.equal(a.code, 0, a.err);
    assert.match(a.out, /^FINAL ANSWER: \S+/m);
    assert.match(a.out, /offline backend: not model results/);
    assert.match(a.out, /model calls: locator \d+, bridge 1/);
    assert.match(a.err, /search \[locator\]/, 'progress streamed while the roles work');
    const doc = JSON.parse(fs.readFileSync(traceFile, 'utf8'));
    assert.ok(doc.events.some((e: { kind: string }) => e.kind === 'model-call-detail'));
    assert.ok(doc.events.some((e: { kind: string }) => e.kind === 'judge'));
  },
);
