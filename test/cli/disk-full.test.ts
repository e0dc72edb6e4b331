/**
 * A full disk, simulated: fs.writeSync / fs.writeFileSync are replaced (node:test
 * mocks, restored after each test) so that writes fail with ENOSPC, or write
 * only part of what they were given first, as a filling disk does.
 *
 * What must hold: the error is a KfError naming the file and saying to free
 * space; what was written before is intact (atomic files keep their old
 * content, JSONL files keep exactly their whole records); a run stopped this
 * way keeps its records and a rerun with the same run id completes it.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import fsModule = require('node:fs');
import { JsonlWriter, readJsonl, writeFileAtomic, writeJsonAtomic } from '../../lib/util/fsx';
import { KfError } from '../../lib/util/errors';
import { runExperiment } from '../../lib/run/runner';
import { readRecords } from '../../lib/run/records';
import { readRunManifest } from '../../lib/run/manifest';
import { experiment, fakePipeline, fakeRouter, makeQuestions, tmpDir, writeBench } from '../run/helpers';

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
}

/** The file an fd is open on (Linux /proc), or '' when unknown. */
function pathOfFd(fd: number): string {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return '';
  }
}

type WriteSync = (fd: number, buffer: string | NodeJS.ArrayBufferView, offset?: number | null, length?: number, position?: number | null) => number;

/**
 * Make writes to files whose path passes `match` fail once the disk is "full":
 * that is after `after` writes to files passing `counts` (default: `match`).
 * The first failing call writes `partial` bytes (a short write, as a filling
 * disk does); the calls after it report ENOSPC. With `fullDisk`,
 * fs.writeFileSync to a matching path fails too.
 */
function fillDisk(
  t: TestContext,
  match: (file: string) => boolean,
  o: { after?: number; partial?: number; fullDisk?: boolean; counts?: (file: string) => boolean } = {},
) {
  const real = fsModule.writeSync as unknown as WriteSync;
  const realWriteFile = fsModule.writeFileSync;
  const counts = o.counts ?? match;
  const state = {
    writes: 0,
    partialDone: false,
    get full() {
      return this.writes >= (o.after ?? 0);
    },
  };
  t.mock.method(
    fsModule,
    'writeSync',
    function (this: unknown, fd: number, buffer: string | NodeJS.ArrayBufferView, offset?: number | null, length?: number, position?: number | null) {
      const file = pathOfFd(fd);
      if (!match(file) || !state.full) {
        const n = real.call(this, fd, buffer, offset, length, position);
        if (counts(file)) state.writes++;
        return n;
      }
      if (o.partial && !state.partialDone) {
        state.partialDone = true;
        const buf = typeof buffer === 'string' ? Buffer.from(buffer) : Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
        const off = typeof buffer === 'string' ? 0 : (offset ?? 0);
        const len = typeof buffer === 'string' ? buf.length : (length ?? buf.length - off);
        return real.call(this, fd, buf, off, Math.min(o.partial, len), position);
      }
      throw enospc();
    },
  );
  t.mock.method(fsModule, 'writeFileSync', function (this: unknown, file: fs.PathOrFileDescriptor, ...rest: unknown[]) {
    if (o.fullDisk && state.full && typeof file === 'string' && match(file)) throw enospc();
    return (realWriteFile as (...a: unknown[]) => void).call(this, file, ...rest);
  });
  return state;
}

/** The fault injection maps file descriptors to paths through /proc (Linux). */
const noProc = fs.existsSync('/proc/self/fd') ? undefined : 'no /proc/self/fd here: the simulated full disk cannot tell which file a write goes to';

function isDiskFull(file: string) {
  return (e: unknown) => {
    assert.ok(e instanceof KfError, `a KfError, got ${String(e)}`);
    assert.equal(e.code, 'fs_enospc');
    assert.ok(e.message.includes(file), `names the file: ${e.message}`);
    assert.match(e.hint, /free space/);
    assert.ok(!e.oneLine().includes('\n'));
    return true;
  };
}

test('writeFileAtomic on a full disk: KfError naming the file, the old content intact, no temp file left', { skip: noProc }, (t) => {
  const dir = tmpDir('kf-enospc-');
  const file = path.join(dir, 'summary.json');
  writeJsonAtomic(file, { version: 1 });
  const before = fs.readFileSync(file, 'utf8');
  fillDisk(t, (f) => f.startsWith(dir), { after: 0, partial: 5 });
  assert.throws(() => writeJsonAtomic(file, { version: 2, padding: 'x'.repeat(10_000) }), isDiskFull(file));
  t.mock.restoreAll();
  assert.equal(fs.readFileSync(file, 'utf8'), before);
  assert.deepEqual(fs.readdirSync(dir), ['summary.json'], 'the temporary file is removed');
});

test('writeFileAtomic and JsonlWriter finish a short write instead of cutting the data', { skip: noProc }, (t) => {
  const dir = tmpDir('kf-short-');
  const real = fsModule.writeSync as unknown as WriteSync;
  // Every write call takes at most 7 bytes: legal for write(2), and what a busy or filling disk may do.
  t.mock.method(
    fsModule,
    'writeSync',
    function (this: unknown, fd: number, buffer: string | NodeJS.ArrayBufferView, offset?: number | null, length?: number, position?: number | null) {
      if (!pathOfFd(fd).startsWith(dir)) return real.call(this, fd, buffer, offset, length, position);
      const buf = typeof buffer === 'string' ? Buffer.from(buffer) : Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
      const off = typeof buffer === 'string' ? 0 : (offset ?? 0);
      const len = typeof buffer === 'string' ? buf.length : (length ?? buf.length - off);
      return real.call(this, fd, buf, off, Math.min(7, len), position);
    },
  );
  const file = path.join(dir, 'a.txt');
  writeFileAtomic(file, 'the whole text, not its first seven bytes');
  const w = new JsonlWriter(path.join(dir, 'r.jsonl'));
  for (let i = 0; i < 3; i++) w.write({ id: `q${i}`, text: 'some words '.repeat(i + 1) });
  w.close();
  t.mock.restoreAll();
  assert.equal(fs.readFileSync(file, 'utf8'), 'the whole text, not its first seven bytes');
  const r = readJsonl<{ id: string }>(path.join(dir, 'r.jsonl'));
  assert.equal(r.badLines, 0);
  assert.deepEqual(
    r.records.map((x) => x.id),
    ['q0', 'q1', 'q2'],
  );
});

test(
  'JsonlWriter on a full disk: KfError naming the file; the file holds exactly the records before; appending works once there is space',
  { skip: noProc },
  (t) => {
    const dir = tmpDir('kf-enospc-');
    const file = path.join(dir, 'records.jsonl');
    const w = new JsonlWriter(file);
    for (let i = 0; i < 3; i++) w.write({ id: `q${i}`, answer: `a${i}` });
    const before = fs.readFileSync(file, 'utf8');
    fillDisk(t, (f) => f === file, { after: 0, partial: 9 });
    assert.throws(() => w.write({ id: 'q3', answer: 'this line only half reaches the disk' }), isDiskFull(file));
    t.mock.restoreAll();
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'the partial line is cut off again');
    w.write({ id: 'q3', answer: 'a3' });
    w.close();
    const r = readJsonl<{ id: string }>(file);
    assert.equal(r.badLines, 0);
    assert.deepEqual(
      r.records.map((x) => x.id),
      ['q0', 'q1', 'q2', 'q3'],
    );
  },
);

test('a run on a disk that fills up: fails with one KfError, keeps its records and a readable manifest; a rerun completes it', { skip: noProc }, async (t) => {
  const dir = tmpDir('kf-enospc-run-');
  const files = writeBench(dir, makeQuestions(16));
  const results = path.join(dir, 'results');
  const exp = experiment(files, { concurrency: 2 });
  const runDir = path.join(results, 'full');
  const recFile = path.join(runDir, 'records.jsonl');

  // The reference: the same config, uninterrupted.
  await runExperiment({ experiment: exp, runId: 'ref', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline({ delayMs: 5 }) });
  const ref = readRecords(path.join(results, 'ref', 'records.jsonl')).records;

  // After 5 records, every write under the run folder fails (records, traces, manifest).
  fillDisk(t, (f) => f.startsWith(runDir + path.sep), { after: 5, partial: 11, fullDisk: true, counts: (f) => f === recFile });
  await assert.rejects(
    runExperiment({ experiment: exp, runId: 'full', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline({ delayMs: 5 }), log: () => undefined }),
    (e: unknown) => e instanceof KfError && e.code === 'fs_enospc' && e.message.includes(runDir) && /free space/.test(e.hint),
  );
  t.mock.restoreAll();

  const partial = readRecords(recFile);
  assert.equal(partial.badLines, 0, 'no cut line: the short write was taken back');
  assert.equal(partial.records.length, 5, 'the records written before the disk filled are all there');
  const m = readRunManifest(runDir);
  assert.ok(m, 'the manifest is still readable JSON (atomic writes)');
  assert.ok(!fs.existsSync(path.join(runDir, '.lock')), 'the lock is released');
  assert.deepEqual(
    fs.readdirSync(runDir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file is left',
  );

  // Space again: the same run id resumes and ends like the uninterrupted run.
  const out = await runExperiment({
    experiment: exp,
    runId: 'full',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline({ delayMs: 5 }),
    log: () => undefined,
  });
  assert.equal(out.status, 'completed');
  assert.equal(out.resumedWith, 5);
  const final = readRecords(recFile);
  assert.equal(final.badLines, 0);
  assert.deepEqual(final.duplicates, []);
  const key = (rs: typeof ref) => rs.map((r) => [r.id, r.finalAnswer, r.scores]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
  assert.deepEqual(key(final.records), key(ref));
});

test('records.jsonl damaged in the middle: the resume drops the bad line from the live file but keeps a copy of the file as it was', async () => {
  const dir = tmpDir('kf-damaged-');
  const files = writeBench(dir, makeQuestions(8));
  const results = path.join(dir, 'results');
  const exp = experiment(files);
  await runExperiment({ experiment: exp, runId: 'dmg', resultsDir: results, router: fakeRouter(), pipeline: fakePipeline() });
  const recFile = path.join(results, 'dmg', 'records.jsonl');
  const lines = fs.readFileSync(recFile, 'utf8').split('\n').filter(Boolean);
  const damaged = lines[3].slice(0, 40) + '\u0000garbage';
  lines[3] = damaged;
  fs.writeFileSync(recFile, lines.join('\n') + '\n');
  const logs: string[] = [];
  const out = await runExperiment({
    experiment: exp,
    runId: 'dmg',
    resultsDir: results,
    router: fakeRouter(),
    pipeline: fakePipeline(),
    log: (l) => logs.push(l),
  });
  assert.equal(out.status, 'completed');
  assert.equal(out.recordedNow, 1, 'only the damaged question is answered again');
  const copies = fs.readdirSync(path.join(results, 'dmg')).filter((f) => /^records\.jsonl\..*\.bak$/.test(f));
  assert.equal(copies.length, 1, 'one copy of the damaged file');
  assert.ok(fs.readFileSync(path.join(results, 'dmg', copies[0]), 'utf8').includes(damaged), 'the copy holds the damaged line as it was');
  assert.ok(
    logs.some((l) => l.includes(copies[0])),
    `the log names the copy: ${logs.join(' | ')}`,
  );
  const final = readRecords(recFile);
  assert.equal(final.badLines, 0);
  assert.equal(final.records.length, 8);
});
