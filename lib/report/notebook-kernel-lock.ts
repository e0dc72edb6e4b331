/**
 * Kernel starts one at a time on this machine. Starting a tslab kernel compiles
 * a TypeScript service and handshakes over ZeroMQ; two or three at once on a
 * busy 2-core machine (parallel test files, two `kf notebooks`) can miss the
 * handshake deadline although nothing is wrong. A notebook run takes this lock
 * from spawning the driver until its first cell starts (or it exits), so the
 * starts are serialised while the notebooks themselves still run in parallel.
 *
 * Within a process the starts queue on a promise chain; across processes they
 * share the harness's one pid lock (lib/util/pid-lock.ts: a lock of a dead
 * process is taken over). Waiting gives up after `waitMs` and runs anyway: the
 * lock must never stop a notebook, only spread the starts.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { isPidLock, waitForPidLock } from '../util/pid-lock';

export const KERNEL_LOCK_FILE = path.join(os.tmpdir(), 'kf-kernel-start.lock');

let queue: Promise<void> = Promise.resolve();

/** Wait for the kernel-start lock and take it; resolves with its release function. */
export async function acquireKernelStart(opts: { file?: string; waitMs?: number } = {}): Promise<() => void> {
  const waitMs = opts.waitMs ?? 10 * 60_000;
  let releaseLocal!: () => void;
  const mine = new Promise<void>((resolve) => (releaseLocal = resolve));
  const before = queue;
  queue = queue.then(() => mine);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([before, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
  clearTimeout(timer);
  const r = await waitForPidLock(opts.file ?? KERNEL_LOCK_FILE, { timeoutMs: waitMs });
  const lock = isPidLock(r) ? r : undefined;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    lock?.release();
    releaseLocal();
  };
}
