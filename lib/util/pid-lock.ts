/**
 * The one pid lock of the harness: a file holding {pid, hostname, startedAt, nonce}.
 * A lock left by a process that died on this host (kill -9, power loss) is
 * detected by its pid and taken over. Used by run folders (lib/run/lock.ts),
 * index builds (lib/index/build.ts) and the artifact store
 * (lib/pipeline/artifact-store.ts, which waits for a held lock instead of failing).
 *
 * Why it is race-free (several processes resuming the same run after a kill -9):
 * - Creating: the content is written to a private temp file first, then
 *   hard-linked to the lock name. link() fails when the name exists, so exactly
 *   one creator wins and nobody ever reads a half-written lock.
 * - Taking over a dead holder's lock: "delete it if it is still the dead one"
 *   is not one system call, so each taker first claims that particular lock by
 *   hard-linking it to a name derived from its content (`<file>.takeover-<hash>`).
 *   link() lets one taker claim a given dead lock; the claimer checks that what
 *   it linked is still that lock (not a fresh one that replaced it), deletes it,
 *   and then competes for the name like any creator. Everyone else retries from
 *   the start and finds the new holder.
 * Only a claim left by a taker that itself died between those few calls is
 * judged by age (CLAIM_STALE_MS) instead; that needs two crashes in a row.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { fsError, pidAlive } from './fsx';

export interface PidLockInfo {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Makes every lock's content unique, so a taker can tell two locks of one pid apart. */
  nonce?: string;
}

export interface PidLock {
  file: string;
  /** The lock of a dead process that was taken over, if any. */
  tookOver?: PidLockInfo;
  release(): void;
}

/** Why the lock could not be taken: held by a live process (`holder`), or a race that kept failing. */
export type PidLockRefusal = { holder: PidLockInfo; ownProcess: boolean } | { holder?: undefined; raced: true };

/** A takeover claim older than this was left by a taker that died mid-takeover (a takeover takes milliseconds). */
const CLAIM_STALE_MS = 10_000;
/** Rounds of create / take over before giving up as `raced` (each round either wins, loses to a live holder, or sees progress). */
const MAX_ROUNDS = 50;

interface LockText {
  text: string;
  ino: number;
  mtimeMs: number;
}

function readLockText(file: string): LockText | undefined {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const st = fs.fstatSync(fd);
      return { text: fs.readFileSync(fd, 'utf8'), ino: st.ino, mtimeMs: st.mtimeMs };
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsError(e, file, 'read');
  }
}

/** Older locks held only a pid (index builds); read both forms. Undefined: empty or cut (an old writer died while creating it). */
function parseHolder(text: string): PidLockInfo | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return { pid: Number(t), hostname: os.hostname(), startedAt: '?' };
  try {
    const v = JSON.parse(t) as PidLockInfo;
    return typeof v?.pid === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Create `file` with `text` only if it does not exist: write a private temp file, hard-link it into place. */
function createExclusive(file: string, text: string): boolean {
  const tmp = `${file}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`;
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx' });
  } catch (e) {
    throw fsError(e, tmp, 'create');
  }
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') return createWithoutLinks(file, text);
    throw fsError(e, file, 'create');
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** File systems without hard links: an exclusive create (a reader may briefly see it empty, which it treats as held). */
function createWithoutLinks(file: string, text: string): boolean {
  try {
    fs.writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw fsError(e, file, 'create');
  }
}

type Takeover = 'removed' | 'changed' | 'claimed-by-other';

/** Remove the dead holder's lock `seen`, unless it has changed meanwhile; only one taker can succeed per lock. */
function takeOverDead(file: string, seen: LockText): Takeover {
  const claim = `${file}.takeover-${crypto.createHash('sha256').update(seen.text).digest('hex').slice(0, 16)}`;
  try {
    fs.linkSync(file, claim);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'changed';
    if (code !== 'EEXIST') throw fsError(e, claim, 'create');
    dropAbandonedClaim(claim);
    return 'claimed-by-other';
  }
  try {
    const linked = readLockText(claim);
    if (!linked || linked.ino !== seen.ino || linked.text !== seen.text) return 'changed'; // we linked a newer lock: leave it be
    fs.rmSync(file, { force: true }); // only the claimer of this dead lock may remove it, and it is still the one we saw
    return 'removed';
  } finally {
    fs.rmSync(claim, { force: true }); // our claim name only; the lock itself is another name of the same file
  }
}

function dropAbandonedClaim(claim: string): void {
  try {
    if (Date.now() - fs.lstatSync(claim).ctimeMs > CLAIM_STALE_MS) fs.rmSync(claim, { force: true });
  } catch {
    // gone already: the claimer finished
  }
}

/** A short synchronous pause (the lock is taken synchronously; callers are not async). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function makeRelease(file: string, text: string): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (readLockText(file)?.text === text) fs.rmSync(file, { force: true });
  };
}

/** Take the lock, or return why not (the caller words the error: run, index, artifact). */
export function tryPidLock(file: string): PidLock | PidLockRefusal {
  const mine: PidLockInfo = {
    pid: process.pid,
    hostname: os.hostname(),
    startedAt: new Date().toISOString(),
    nonce: crypto.randomBytes(8).toString('hex'),
  };
  const text = JSON.stringify(mine) + '\n';
  let tookOver: PidLockInfo | undefined;
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (createExclusive(file, text)) return { file, tookOver, release: makeRelease(file, text) };
    const seen = readLockText(file);
    if (!seen) continue; // released in between: try again
    const other = parseHolder(seen.text);
    const ownProcess = !!other && other.pid === process.pid && other.hostname === mine.hostname;
    const dead = !!other && other.hostname === mine.hostname && !ownProcess && !pidAlive(other.pid);
    // Unreadable: cut by a crash of an old-style writer -- unless it is empty and young (a writer without hard links is mid-write).
    const torn = !other && (seen.text.length > 0 || Date.now() - seen.mtimeMs > 1000);
    if (!dead && !torn) {
      if (other) return { holder: other, ownProcess };
      pause(2);
      continue;
    }
    const outcome = takeOverDead(file, seen);
    if (outcome === 'removed') tookOver = other;
    else if (outcome === 'claimed-by-other') pause(2); // let the claimer finish its few calls
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

/**
 * Whether a lock is held by a live process, without taking it: 'none' (no lock file), 'alive' (its
 * holder runs, or runs on another host and cannot be checked), 'dead' (its holder on this host is gone:
 * kill -9, power loss; the next taker takes it over).
 */
export function pidLockState(file: string): { state: 'none' | 'alive' | 'dead'; holder?: PidLockInfo } {
  const seen = readLockText(file);
  if (!seen) return { state: 'none' };
  const holder = parseHolder(seen.text);
  if (!holder) return { state: Date.now() - seen.mtimeMs > 1000 ? 'dead' : 'alive' };
  const dead = holder.hostname === os.hostname() && holder.pid !== process.pid && !pidAlive(holder.pid);
  return { state: dead ? 'dead' : 'alive', holder };
}
