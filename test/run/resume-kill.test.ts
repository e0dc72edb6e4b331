import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runExperiment } from '../../lib/run/runner';
import { readRecords } from '../../lib/run/records';
import { readRunManifest } from '../../lib/run/manifest';
import { listRuns } from '../../lib/run/results';
import { kfInProcess } from '../_shared/cli-in-process';
import { experiment, fakePipeline, fakeRouter, makeQuestions, tmpDir, writeBench } from './helpers';

const helper = path.join(__dirname, `kill-child.helper${path.extname(__filename)}`);
const execArgv = process.execArgv.filter((a) => !a.startsWith('--test'));

function lineCount(file: string): number {
  if (!fs.existsSync(file)) return 0;
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim()).length;
}

test('kill -9 mid-run, rerun with the same run id: same records as an uninterrupted run, no duplicates', async () => {
  const dir = tmpDir('kf-kill-');
  const files = writeBench(dir, makeQuestions(80));
  const results = path.join(dir, 'results');
  const exp = experiment(files, { concurrency: 4 });

  // The reference: an uninterrupted run of the same config.
  await runExperiment({ experiment: exp, runId: 'ref', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline({ delayMs: 50 }) });
  const ref = readRecords(path.join(results, 'ref', 'records.jsonl')).records;
  assert.equal(ref.length, 80);

  // A child process runs the same experiment and is SIGKILLed once some questions are recorded.
  const recFile = path.join(results, 'killed', 'records.jsonl');
  const child = fork(helper, [files.questions, files.corpus, results, 'killed'], { execArgv, stdio: 'pipe' });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + 60_000;
  while (lineCount(recFile) < 12) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      assert.fail(`the child recorded nothing in time: ${stderr}`);
    }
    if (child.exitCode !== null) assert.fail(`the child finished before it could be killed (${child.exitCode}): ${stderr}`);
    await new Promise((r) => setTimeout(r, 3));
  }
  child.kill('SIGKILL');
  const ex = await exited;
  assert.equal(ex.signal, 'SIGKILL');
  const partial = readRecords(recFile);
  assert.ok(partial.records.length >= 12 && partial.records.length < 80, `killed after ${partial.records.length} records`);
  assert.deepEqual(partial.duplicates, []);
  assert.equal(readRunManifest(path.join(results, 'killed'))!.status, 'running', 'the killed run never wrote an end state');
  assert.ok(fs.existsSync(path.join(results, 'killed', '.lock')), 'the dead process left its lock');
  // kf runs tells the dead run from a running one (its lock's process is gone) and says how to resume.
  const listed = listRuns(results).find((r) => r.runId === 'killed')!;
  assert.equal(listed.status, 'dead', 'a killed run is not shown as running');
  assert.equal(listed.dead?.pid, child.pid);
  assert.match(listed.dead?.resume ?? '', /--run-id killed/);
  const shown = await kfInProcess(['runs', '--results', results]);
  assert.match(
    shown.out,
    new RegExp(`killed: dead \\(its process ${child.pid} is gone; ${partial.records.length} recorded\\); resume with: .*--run-id killed`),
  );

  // Rerun with the same id: takes over the stale lock, skips recorded ids, answers the rest.
  const lines: string[] = [];
  const out = await runExperiment({
    experiment: exp,
    runId: 'killed',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline({ delayMs: 50 }),
    log: (l) => lines.push(l),
  });
  assert.equal(out.status, 'completed');
  assert.equal(out.resumedWith, partial.records.length);
  assert.equal(out.recordedNow, 80 - partial.records.length);
  assert.ok(lines.some((l) => /taking over the lock/.test(l)));

  const final = readRecords(recFile);
  assert.deepEqual(final.duplicates, [], 'no id is recorded twice');
  assert.equal(final.badLines, 0);
  assert.equal(lineCount(recFile), 80, 'exactly one line per question');
  const key = (rs: typeof ref) => rs.map((r) => [r.id, r.finalAnswer, r.scores, r.retrieval, r.error]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  assert.deepEqual(key(final.records), key(ref), 'same ids, answers and scores as the uninterrupted run');
  const m = readRunManifest(path.join(results, 'killed'))!;
  assert.equal(m.status, 'completed');
  assert.equal(m.sessions.length, 2);
  assert.equal(m.sessions[0].status, 'interrupted', 'the killed session is marked interrupted');
  assert.equal(m.sessions[0].recorded, partial.records.length, 'the killed session counts what it recorded (not its last checkpoint)');
  assert.equal(m.sessions[1].recorded, 80 - partial.records.length);
  assert.equal(listRuns(results).find((r) => r.runId === 'killed')!.status, 'completed');
  assert.equal(m.counts.recorded, 80);
});
