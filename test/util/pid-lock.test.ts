import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isPidLock, tryPidLock } from '../../lib/util/pid-lock';
import { ownScratch } from '../_shared/scratch';

const helper = path.join(__dirname, `lock-racer.helper${path.extname(__filename)}`);
const execArgv = path.extname(__filename) === '.ts' ? ['--import', 'tsx'] : [];
/** Above Linux's largest pid (2^22): never a live process. */
const DEAD_PID = 2 ** 22 + 12345;

function staleLock(file: string, round: number): void {
  fs.writeFileSync(file, JSON.stringify({ pid: DEAD_PID, hostname: os.hostname(), startedAt: `round ${round}` }) + '\n');
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => reject(new Error(`racer exited with ${code}`)));
  });
}

test('pid lock: 8 processes racing for a stale lock, 50 times: exactly one wins each time', async () => {
  const dir = ownScratch('kf-lock-race-');
  const file = path.join(dir, '.lock');
  const racers = Array.from({ length: 8 }, () => fork(helper, [], { execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  try {
    await Promise.all(racers.map((c) => nextMessage(c)));
    const winsPerRound: number[] = [];
    for (let round = 0; round < 50; round++) {
      staleLock(file, round);
      const at = Date.now() + 15;
      const replies = racers.map((c) => nextMessage<{ won: boolean; tookOver: boolean }>(c));
      for (const c of racers) c.send({ kind: 'race', file, at, round });
      const results = await Promise.all(replies);
      const winners = results.map((r, i) => (r.won ? i : -1)).filter((i) => i >= 0);
      winsPerRound.push(winners.length);
      assert.equal(winners.length, 1, `round ${round}: ${winners.length} processes hold the lock`);
      // (the racer that removed the dead lock need not be the one that then creates the new one)
      assert.ok(results.filter((r) => r.tookOver).length <= 1, 'at most one racer removed the dead lock');
      const holder = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number };
      assert.equal(holder.pid, racers[winners[0]].pid, 'the lock file names the winner');
      const released = nextMessage(racers[winners[0]]);
      racers[winners[0]].send({ kind: 'release' });
      await released;
      assert.ok(!fs.existsSync(file), 'released');
    }
    assert.equal(winsPerRound.length, 50);
    assert.deepEqual(fs.readdirSync(dir), [], 'no temp or claim file is left behind');
  } finally {
    for (const c of racers) c.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('pid lock: a live holder refuses, a cut or pid-only old lock is taken over, release removes only its own lock', () => {
  const dir = ownScratch('kf-lock-');
  try {
    const file = path.join(dir, '.lock');
    fs.writeFileSync(file, JSON.stringify({ pid: process.ppid, hostname: os.hostname(), startedAt: 'x' }));
    const refused = tryPidLock(file);
    assert.ok(!isPidLock(refused) && refused.holder?.pid === process.ppid, 'held by a live process');

    fs.writeFileSync(file, '{"pid": 12'); // an old writer cut mid-line
    const a = tryPidLock(file);
    assert.ok(isPidLock(a), 'a cut lock is taken over');
    const again = tryPidLock(file);
    assert.ok(!isPidLock(again) && again.holder !== undefined && again.ownProcess, 'this process already holds it');
    fs.rmSync(file);
    fs.writeFileSync(file, String(DEAD_PID)); // the old pid-only form
    a.release(); // not its lock any more: must not remove it
    assert.ok(fs.existsSync(file), 'release leaves a lock that is not its own');
    const b = tryPidLock(file);
    assert.ok(isPidLock(b) && b.tookOver?.pid === DEAD_PID);
    b.release();
    assert.deepEqual(fs.readdirSync(dir), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
