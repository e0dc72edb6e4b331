import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readRecords } from '../../lib/run/records';
import { readRunManifest } from '../../lib/run/manifest';
import { repoRoot } from '../../lib/util/paths';
import { kfInProcess } from '../_shared/cli-in-process';
import { makeQuestions, tmpDir, writeBench } from './helpers';

const ext = path.extname(__filename);
const kf = path.join(repoRoot(), 'bin', 'kf.js');
const pipelineModule = path.join(__dirname, `slow-pipeline.helper${ext}`);
// Under tsx the CLI runs from the TypeScript sources; compiled tests run the built CLI.
const env = { ...process.env, KF_TSX: ext === '.ts' ? '1' : '', KF_PLUGINS: pipelineModule };

function setup(n: number): { dir: string; exp: string; results: string } {
  const dir = tmpDir('kf-cli-');
  writeBench(dir, makeQuestions(n));
  const exp = path.join(dir, 'slow.toml');
  fs.writeFileSync(
    exp,
    `seed = 5\nconcurrency = 2\n[benchmark]\nname = "demo"\npaths = { questions = "questions.json", corpus = "corpus" }\n[pipeline]\nname = "slow-fake"\n`,
  );
  return { dir, exp, results: path.join(dir, 'results') };
}

/** The CLI in this process (cheap), output captured, with the slow-fake pipeline loadable. */
function kfHere(args: string[]): Promise<{ code: number; out: string; err: string }> {
  process.env.KF_PLUGINS = pipelineModule;
  return kfInProcess(args);
}

function kfSync(args: string[]) {
  const r = spawnSync(process.execPath, [kf, ...args], { env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('kf run: Ctrl-C stops cleanly (manifest written, exit 130, resume line); the printed resume completes the run', async () => {
  const { exp, results } = setup(40);
  const recFile = path.join(results, 'sig', 'records.jsonl');
  const child = spawn(process.execPath, [kf, 'run', exp, '--out', results, '--run-id', 'sig'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let out = '';
  child.stderr.on('data', (d) => (err += d));
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  const count = () => (fs.existsSync(recFile) ? fs.readFileSync(recFile, 'utf8').split('\n').filter(Boolean).length : 0);
  while (count() < 3) {
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      assert.fail(`kf run did not record in time (exit ${child.exitCode}): ${err}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130, `stderr: ${err}\nstdout: ${out}`);
  assert.match(err, /interrupt -- finishing the questions in flight/);
  const resume = /resume with: (kf run .*)$/m.exec(err);
  assert.ok(resume, err);
  assert.match(resume[1], /--run-id sig/);
  assert.match(resume[1], /--out /);
  const m = readRunManifest(path.join(results, 'sig'))!;
  assert.equal(m.status, 'interrupted');
  const first = readRecords(recFile);
  assert.ok(first.records.length >= 3 && first.records.length < 40, `recorded ${first.records.length}`);
  assert.equal(first.badLines, 0, 'in-flight questions finished cleanly');
  assert.ok(!fs.existsSync(path.join(results, 'sig', '.lock')));

  // The printed command resumes (argv split the way a shell would for these simple paths).
  const args = resume[1].split(' ').slice(1);
  const again = kfSync(args);
  assert.equal(again.code, 0, again.err);
  assert.match(again.out, /sig: completed; 40 recorded/);
  assert.match(again.out, /departs {2}offline backend: rule-based stand-ins for every model stage/, 'the outcome lists the departures from the paper');
  const final = readRecords(recFile);
  assert.equal(final.records.length, 40);
  assert.deepEqual(final.duplicates, []);
  assert.equal(readRunManifest(path.join(results, 'sig'))!.sessions.length, 2);
});

test('kf run: dry run, flags as overrides, clear errors', async () => {
  const { exp, results } = setup(5);
  const dry = await kfHere(['run', exp, '--dry-run', '--limit', '2', '--set', 'seed=9', '-o', 'output.traces=off', '--out', results]);
  assert.equal(dry.code, 0, dry.err);
  const j = JSON.parse(dry.out);
  assert.equal(j.questions, 2);
  assert.equal(j.config.seed, 9);
  assert.equal(j.config.limits.maxQuestions, 2);
  assert.equal(j.config.output.traces, 'off');
  assert.match(j.runId, /^slow-full-[0-9a-f]{8}$/);
  assert.ok(!fs.existsSync(results), 'a dry run writes nothing');
  const badOverride = await kfHere(['run', exp, '--override', 'limits.maxErorrs=2']);
  assert.equal(badOverride.code, 1);
  assert.match(badOverride.err, /kf run: error: override "limits.maxErorrs=2": "limits.maxErorrs" is not a known field -- did you mean "limits.maxErrors"\?/);
  const badSubset = await kfHere(['run', exp, '--set', 'smoke', '--dry-run']);
  assert.equal(badSubset.code, 1);
  assert.match(badSubset.err, /paper has no fixed subsets for demo/);
  const badLimit = await kfHere(['run', exp, '--limit', 'x']);
  assert.equal(badLimit.code, 2);
  assert.match(badLimit.err, /--limit: expected a positive integer/);
  const list = await kfHere(['run', '--list-pipelines']);
  assert.equal(list.code, 0, list.err);
  assert.match(list.out, /^slow-fake\s+test/m);
  const done = await kfHere(['run', exp, '--out', results, '--json']);
  assert.equal(done.code, 0, done.err);
  const o = JSON.parse(done.out);
  assert.equal(o.status, 'completed');
  assert.equal(o.counts.recorded, 5);
  assert.equal(o.backend, 'offline', 'no model call: the configured (offline) backend labels the run');
});

test('KF_PIPELINE_MODULES, the deprecated alias of KF_PLUGINS, still loads an old module (its register()) and says so once', () => {
  const legacy = path.join(__dirname, `legacy-pipeline.helper${ext}`);
  const r = spawnSync(process.execPath, [kf, 'run', '--list-pipelines'], {
    env: { ...env, KF_PLUGINS: '', KF_PIPELINE_MODULES: legacy },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^legacy-fake\s+test/m);
  assert.equal(r.stderr.match(/KF_PIPELINE_MODULES is deprecated: name the modules in KF_PLUGINS/g)?.length, 1, r.stderr);
});

test('kf run --cache: the cache mode of this invocation, above KF_CACHE (which is above the experiment file)', async () => {
  const { dir, exp } = setup(2);
  const saved = { KF_CACHE: process.env.KF_CACHE, KF_CACHE_FILE: process.env.KF_CACHE_FILE };
  process.env.KF_CACHE_FILE = path.join(dir, 'absent.sqlite'); // replay-only refuses a cache file that does not exist
  try {
    const bad = await kfHere(['run', exp, '--cache', 'sometimes']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--cache/);
    const replay = await kfHere(['run', exp, '--cache', 'replay-only', '--out', path.join(dir, 'a')]);
    assert.equal(replay.code, 1);
    assert.match(replay.err, /absent\.sqlite does not exist/, '--cache replay-only was applied');
    process.env.KF_CACHE = 'replay-only';
    const viaEnv = await kfHere(['run', exp, '--out', path.join(dir, 'b')]);
    assert.equal(viaEnv.code, 1);
    assert.match(viaEnv.err, /absent\.sqlite does not exist/, 'KF_CACHE was applied');
    const off = await kfHere(['run', exp, '--cache', 'off', '--out', path.join(dir, 'c')]);
    assert.equal(off.code, 0, `--cache off overrides KF_CACHE: ${off.err}`);
    assert.ok(!fs.existsSync(path.join(dir, 'absent.sqlite')), 'no cache was opened');
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
});
