/**
 * The one pid lock of the harness: a file holding {pid, hostname, startedAt},
 * created exclusively. A lock left by a process that died on this host (kill -9,
 * power loss) is detected by its pid and taken over. Used by run folders
 * (lib/run/lock.ts), index builds (lib/index/build.ts) and the artifact store
 * (lib/pipeline/artifact-store.ts, which waits for a held lock instead of failing).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { fsError, pidAlive } from './fsx';

export interface PidLockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
}

export interface PidLock {
  file: string;
  /** The lock of a dead process that was taken over, if any. */
  tookOver?: PidLockInfo;
  release(): void;
}

/** Why the lock could not be taken: held by a live process (`holder`), or a race that kept failing. */
export type PidLockRefusal = { holder: PidLockInfo; ownProcess: boolean } | { holder?: undefined; raced: true };

/** Older locks held only a pid (index builds); read both forms. */
function readHolder(file: string): PidLockInfo | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  if (/^\d+$/.test(text)) return { pid: Number(text), hostname: os.hostname(), startedAt: '?' };
  try {
    return JSON.parse(text) as PidLockInfo;
  } catch {
    return undefined; // empty or cut: the writer died while creating it
  }
}

/** Take the lock, or return why not (the caller words the error: run, index, artifact). */
export function tryPidLock(file: string): PidLock | PidLockRefusal {
  const mine: PidLockInfo = { pid: process.pid, hostname: os.hostname(), startedAt: new Date().toISOString() };
  let tookOver: PidLockInfo | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(mine) + '\n', { flag: 'wx' });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        const cur = readHolder(file);
        if (cur && cur.pid === mine.pid && cur.hostname === mine.hostname) fs.rmSync(file, { force: true });
      };
      return { file, tookOver, release };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw fsError(e, file, 'create');
    }
    const other = readHolder(file);
    const ownProcess = !!other && other.pid === process.pid && other.hostname === mine.hostname;
    const stale = !other || (other.hostname === mine.hostname && !ownProcess && !pidAlive(other.pid));
    if (!stale) return { holder: other!, ownProcess };
    tookOver = other;
    fs.rmSync(file, { force: true }); // a racing taker may have removed it already: the next attempt decides
  }
  return { raced: true };
}

export function isPidLock(x: PidLock | PidLockRefusal): x is PidLock {
  return typeof (x as PidLock).release === 'function';
}

/** Wait (polling) until the lock is free, then take it; `onWait` is told once who holds it. */
export async function waitForPidLock(
  file: string,
  opts: { pollMs?: number; timeoutMs?: number; onWait?: (holder: PidLockInfo) => void } = {},
): Promise<PidLock | PidLockRefusal> {
  const deadline = Date.now() + (opts.timeoutMs ?? 6 * 3600_000);
  let told = false;
  for (;;) {
    const r = tryPidLock(file);
    if (isPidLock(r) || r.holder === undefined || r.ownProcess || Date.now() > deadline) return r;
    if (!told) opts.onWait?.(r.holder);
    told = true;
    await new Promise((res) => setTimeout(res, opts.pollMs ?? 250));
  }
}
