/**
 * Child process for the stale-lock race test: waits for rounds from the parent
 * (IPC), spins until the round's start time so all racers call at once, tries
 * the lock, reports whether it won, and releases when told.
 */
import { isPidLock, tryPidLock, type PidLock } from '../../lib/util/pid-lock';

let held: PidLock | undefined;

process.on('message', (m: { kind: 'race'; file: string; at: number; round: number } | { kind: 'release' } | { kind: 'exit' }) => {
  if (m.kind === 'race') {
    while (Date.now() < m.at) {
      // spin: the point is to hit the lock at the same instant as the other racers
    }
    const r = tryPidLock(m.file);
    if (isPidLock(r)) held = r;
    process.send!({ round: m.round, won: isPidLock(r), tookOver: isPidLock(r) && !!r.tookOver });
  } else if (m.kind === 'release') {
    held?.release();
    held = undefined;
    process.send!({ released: true });
  } else process.exit(0);
});
process.send!({ ready: true });
