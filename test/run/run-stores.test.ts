/**
 * Runs of the main job (results/demo-main/runs/), of suites (results/<suite>/runs/) and of the
 * notebooks (results/runs/) are found by the ids those jobs print: kf runs lists them, kf trace,
 * kf compare and kf report take the bare id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { runExperiment } from '../../lib/run/runner';
import { kfInProcess } from '../_shared/cli-in-process';
import { experiment, fakePipeline, fakeRouter, makeQuestions, tmpDir, writeBench } from './helpers';

async function fixture() {
  const dir = tmpDir('kf-stores-');
  const files = writeBench(dir, makeQuestions(6));
  const results = path.join(dir, 'results');
  const run = (store: string, runId: string, seed: number) =>
    runExperiment({
      experiment: experiment(files, { seed }),
      runId,
      resultsDir: path.join(results, store),
      router: fakeRouter('offline', 'offline'),
      pipeline: fakePipeline(),
    });
  await run('demo-main/runs', 'demo-S4-full-aaaa1111', 1);
  await run('runs', 'nb-M5-full-bbbb2222', 2);
  await run('.', 'top-S0-full-cccc3333', 3);
  return results;
}

test('kf runs / trace / compare / report find runs of the main job, suites and notebooks by their printed ids', async () => {
  const results = await fixture();
  const listed = await kfInProcess(['runs', '--results', results]);
  assert.equal(listed.code, 0, listed.err);
  assert.match(listed.out, /demo-S4-full-aaaa1111 .*demo-main\/runs\//);
  assert.match(listed.out, /nb-M5-full-bbbb2222 .*runs\//);
  assert.match(listed.out, /top-S0-full-cccc3333/);
  const json = JSON.parse((await kfInProcess(['runs', '--results', results, '--json'])).out) as { runId: string; dir: string }[];
  assert.deepEqual(json.map((r) => r.runId).sort(), ['demo-S4-full-aaaa1111', 'nb-M5-full-bbbb2222', 'top-S0-full-cccc3333']);
  const cmp = await kfInProcess(['compare', 'demo-S4-full-aaaa1111', 'nb-M5-full-bbbb2222', '--results', results, '--metric', 'f1', '--json']);
  assert.equal(cmp.code, 0, cmp.err);
  assert.equal((JSON.parse(cmp.out) as { n: number }).n, 6);
  const rep = await kfInProcess(['report', 'demo-S4-full-aaaa1111', 'top-S0-full-cccc3333', '--results', results, '--out', path.join(results, 'rep')]);
  assert.equal(rep.code, 0, rep.err);
  const near = await kfInProcess(['compare', 'demo-S4-full-aaaa111', 'nb-M5-full-bbbb2222', '--results', results]);
  assert.notEqual(near.code, 0);
  assert.match(near.err, /did you mean "demo-S4-full-aaaa1111"/, 'a near id of a nested run is suggested');
});

test('kf trace takes the bare id of a main-job run', async () => {
  const results = await fixture();
  const t = await kfInProcess(['trace', 'demo-S4-full-aaaa1111', 'q001', '--results', results]);
  assert.equal(t.code, 0, t.err);
  assert.match(t.out, /^question {4}/m);
});
