/**
 * Child process for the stale-lock race test: waits for rounds from the parent
 * (IPC), waits until the round's start time so all racers call at once, tries
 * the lock, reports whether it won, and releases when told.
 */
import { isPidLock, tryPidLock, type PidLock } from '../../lib/util/pid-lock';

let held: PidLock | undefined;

function race(m: { file: string; at: number; round: number }): void {
  while (Date.now() < m.at) {
    // spin: the point is to hit the lock at the same instant as the other racers
  }
  const r = tryPidLock(m.file);
  if (isPidLock(r)) held = r;
  process.send!({ round: m.round, won: isPidLock(r), tookOver: isPidLock(r) && !!r.tookOver });
}

process.on('message', (m: { kind: 'race'; file: string; at: number; round: number } | { kind: 'release' } | { kind: 'exit' }) => {
  if (m.kind === 'race') {
    // Sleep until just before the start time, then spin the last 2 ms: the racers hit the lock at the same instant
    // without burning a core each while they wait (the machine running the tests is shared).
    setTimeout(() => race(m), Math.max(0, m.at - Date.now() - 2));
  } else if (m.kind === 'release') {
    held?.release();
    held = undefined;
    process.send!({ released: true });
  } else process.exit(0);
});
process.send!({ ready: true });
