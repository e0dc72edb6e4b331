/**
 * One writer per run folder. Two processes appending to the same
 * records.jsonl would answer (and record) the same questions twice, so a run
 * takes `results/<run-id>/.lock` (pid + host) for as long as it writes. A lock
 * left by a killed process (kill -9, power loss) on this host is detected by
 * its pid and taken over.
 */
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { isPidLock, tryPidLock, type PidLock } from '../util/pid-lock';

export type RunLock = PidLock;

export function acquireRunLock(runDir: string, runId: string): RunLock {
  const file = path.join(runDir, '.lock');
  const r = tryPidLock(file);
  if (isPidLock(r)) return r;
  if (r.holder === undefined) {
    throw new KfError('run_locked', `cannot take the lock ${file} of run ${runId}`, 'another process is starting the same run: retry in a moment', {
      concerns: runDir,
    });
  }
  const who = `pid ${r.holder.pid} on ${r.holder.hostname} (since ${r.holder.startedAt})`;
  throw new KfError(
    'run_locked',
    r.ownProcess ? `run ${runId} is already being written by this process` : `run ${runId} is being written by ${who}`,
    `wait for it to finish; if that process is gone, delete ${file} and rerun`,
    { concerns: runDir },
  );
}
