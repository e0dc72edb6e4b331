#!/usr/bin/env node
/**
 * The test command (README, CI): build with tsc (type errors fail the run), then
 * run every compiled test file with node's test runner, and finish with one line
 * `N passed, N failed, N skipped`.
 *
 *   npm test                      # everything
 *   npm test -- test/stats        # only files whose path contains "test/stats"
 *   KF_TEST_CONCURRENCY=1 npm test
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');

const root = path.resolve(__dirname, '..');
const filters = process.argv.slice(2);

const tsc = spawnSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.json')], { stdio: 'inherit', cwd: root });
if (tsc.status !== 0) {
  console.error('\nerror: the TypeScript build failed (see above) -- fix the type errors, then rerun `npm test`');
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.name.endsWith('.test.js')) out.push(p);
  }
  return out;
}
/** Every compiled file (.js, .d.ts, .js.map) under dir. */
function walkJs(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walkJs(p, out);
    else if (/\.(js|d\.ts|js\.map)$/.test(e.name) && !e.name.endsWith('.test.js')) out.push(p);
  }
  return out;
}
let files = walk(path.join(root, 'dist', 'test')).sort();
// Drop compiled tests whose source was deleted (dist is incremental).
files = files.filter((f) => fs.existsSync(path.join(root, path.relative(path.join(root, 'dist'), f)).replace(/\.js$/, '.ts')));
// Remove compiled lib files whose source was moved or deleted: the CLI loads every file of a commands folder,
// so a stale copy of a moved command would shadow the new one.
for (const f of walkJs(path.join(root, 'dist', 'lib'))) {
  const src = path.join(root, path.relative(path.join(root, 'dist'), f)).replace(/\.(d\.ts|js|js\.map)$/, '.ts');
  if (!fs.existsSync(src)) fs.rmSync(f, { force: true });
}
if (filters.length) files = files.filter((f) => filters.some((x) => path.relative(path.join(root, 'dist'), f).includes(x.replace(/\.ts$/, ''))));
if (!files.length) {
  console.error(`error: no test files matched ${filters.join(' ') || '(all)'} -- check the filter`);
  process.exit(1);
}

/**
 * Tests never write into the checkout: what the harness generates by default (indexes, caches, artifacts,
 * checkpoints under .kf-cache/, demo worlds under data/demo/) goes to one folder under the OS temp dir,
 * shared by the test files of this machine user (content-keyed, so reused across runs).
 */
function testEnv(runTmp) {
  const user = typeof process.getuid === 'function' ? String(process.getuid()) : 'user';
  const scratch = path.join(os.tmpdir(), `kf-test-${user}`);
  return {
    ...process.env,
    // Every temp dir a test (or a process it starts) makes lands in this run's own folder, removed at the end.
    TMPDIR: runTmp,
    TMP: runTmp,
    TEMP: runTmp,
    KF_TEST: '1',
    KF_TEST_SCRATCH: process.env.KF_TEST_SCRATCH || scratch,
    KF_STATE_DIR: process.env.KF_STATE_DIR || path.join(scratch, 'state'),
    KF_DEMO_DIR: process.env.KF_DEMO_DIR || path.join(scratch, 'demo'),
  };
}

const summaryFile = path.join(os.tmpdir(), `kf-test-summary-${process.pid}.json`);
// Tests make temp dirs freely and do not all remove them; one folder per run keeps /tmp from filling up over runs.
const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-test-run-'));
const concurrency = process.env.KF_TEST_CONCURRENCY || '2';
const r = spawnSync(
  process.execPath,
  [
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts', 'count-reporter.mjs')}`,
    `--test-reporter-destination=${summaryFile}`,
    ...files,
  ],
  { stdio: 'inherit', cwd: root, env: testEnv(runTmp) },
);
fs.rmSync(runTmp, { recursive: true, force: true });
let s = { passed: 0, failed: 0, skipped: 0 };
try {
  s = JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  fs.unlinkSync(summaryFile);
} catch {
  s.failed = s.failed || (r.status === 0 ? 0 : 1);
}
if (s.dataSkipped) {
  // Every such skip printed what is absent; this says once how to get it.
  const shared = process.env.KF_SHARED ? path.resolve(process.env.KF_SHARED) : path.resolve(root, '..', 'shared');
  console.log(
    `${s.dataSkipped} skipped test(s) need the benchmark data or the papers, absent from ${shared}: put the shared folder ` +
      'beside the checkout as ../shared (or set KF_SHARED=<folder holding bench/ and seeds/>), or download the public ' +
      'benchmarks with `bash data/fetch.sh all` (into data/bench/) and run with KF_SHARED=data (see README: Benchmarks)',
  );
}
console.log(`${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
process.exit(r.status === 0 && s.failed === 0 ? 0 : 1);
