/**
 * Kernel starts one at a time on this machine. Starting a tslab kernel compiles
 * a TypeScript service and handshakes over ZeroMQ; two or three at once on a
 * busy 2-core machine (parallel test files, two `kf notebooks`) can miss the
 * handshake deadline although nothing is wrong. A notebook run takes this lock
 * from spawning the driver until its first cell starts (or it exits), so the
 * starts are serialised while the notebooks themselves still run in parallel.
 *
 * The lock is a file created exclusively in the temp folder holding the owner's
 * pid; a lock whose owner is gone, or older than `staleMs`, is taken over.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pidAlive } from '../util/fsx';

export const KERNEL_LOCK_FILE = path.join(os.tmpdir(), 'kf-kernel-start.lock');

function stale(file: string, staleMs: number): boolean {
  try {
    const [pidText] = fs.readFileSync(file, 'utf8').split('\n');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) return true;
    return Date.now() - fs.statSync(file).mtimeMs > staleMs;
  } catch {
    return true;
  }
}

/**
 * Wait for the kernel-start lock and take it; resolves with its release
 * function. Gives up waiting after `waitMs` (then runs anyway: a lock must never
 * stop a notebook, only spread the starts).
 */
export async function acquireKernelStart(opts: { file?: string; waitMs?: number; staleMs?: number } = {}): Promise<() => void> {
  const file = opts.file ?? KERNEL_LOCK_FILE;
  const until = Date.now() + (opts.waitMs ?? 10 * 60_000);
  const staleMs = opts.staleMs ?? 5 * 60_000;
  const token = `${process.pid}\n${Math.random()}`;
  for (;;) {
    try {
      fs.writeFileSync(file, token, { flag: 'wx' });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try { if (fs.readFileSync(file, 'utf8') === token) fs.unlinkSync(file); } catch { /* already gone */ }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return () => {};
      if (stale(file, staleMs)) {
        try { fs.unlinkSync(file); } catch { /* someone else took it over */ }
        continue;
      }
      if (Date.now() > until) return () => {};
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}
