/**
 * One writer per run folder. Two processes appending to the same
 * records.jsonl would answer (and record) the same questions twice, so a run
 * takes `results/<run-id>/.lock` (pid + host) for as long as it writes. A lock
 * left by a killed process (kill -9, power loss) on this host is detected by
 * its pid and taken over.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { fsError, pidAlive } from '../util/fsx';

interface LockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
}


export interface RunLock {
  file: string;
  /** True when a stale lock of a dead process was taken over. */
  tookOver?: LockInfo;
  release(): void;
}

export function acquireRunLock(runDir: string, runId: string): RunLock {
  const file = path.join(runDir, '.lock');
  const mine: LockInfo = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() };
  let tookOver: LockInfo | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine) + '\n', { flag: 'wx' });
      let released = false;
      return {
        file,
        tookOver,
        release() {
          if (released) return;
          released = true;
          try {
            const cur = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
            if (cur.pid === mine.pid && cur.hostname === mine.hostname) fs.unlinkSync(file);
          } catch {
            /* already gone */
          }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw fsError(e, file, 'create');
    }
    let other: LockInfo | undefined;
    try {
      other = JSON.parse(fs.readFileSync(file, 'utf8')) as LockInfo;
    } catch {
      other = undefined; // empty or cut: the writer died while creating it
    }
    const stale = !other || (other.hostname === mine.hostname && (other.pid === process.pid ? false : !pidAlive(other.pid)));
    if (!stale) {
      const who = `pid ${other!.pid} on ${other!.hostname} (since ${other!.startedAt})`;
      throw new KfError(
        'run_locked',
        other!.pid === process.pid && other!.hostname === mine.hostname ? `run ${runId} is already being written by this process` : `run ${runId} is being written by ${who}`,
        `wait for it to finish; if that process is gone, delete ${file} and rerun`,
        { concerns: runDir },
      );
    }
    tookOver = other;
    try {
      fs.unlinkSync(file);
    } catch {
      /* raced with another taker: the next attempt decides */
    }
  }
  throw new KfError('run_locked', `cannot take the lock ${file} of run ${runId}`, 'another process is starting the same run: retry in a moment', { concerns: runDir });
}
