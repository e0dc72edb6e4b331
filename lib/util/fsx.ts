/**
 * File-system helpers that never lose data: atomic replace, append-only JSONL
 * with fsync, tolerant reads of a file a crash may have cut mid-line, and
 * directory checks that fail with an actionable message.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from './errors';

/** What to do about a low-level fs error, by code. */
const FS_HINTS: Record<string, string> = {
  ENOSPC: 'the disk is full: free space and rerun; finished work was kept',
  EDQUOT: 'the disk quota is exhausted: free space and rerun; finished work was kept',
  EACCES: 'permission denied: choose a writable directory (e.g. --out) or fix its permissions',
  EPERM: 'permission denied: choose a writable directory (e.g. --out) or fix its permissions',
  EROFS: 'the file system is read-only: choose a writable directory (e.g. --out)',
  ENOENT: 'the path does not exist: check it or create it first',
  ENOTDIR: 'a part of the path is a file, not a directory: check the path',
};

/** Wrap low-level fs errors (ENOSPC, EACCES, EROFS) in a KfError naming the file. */
export function fsError(e: unknown, file: string, doing: string): KfError {
  const code = (e as NodeJS.ErrnoException)?.code ?? 'EUNKNOWN';
  return new KfError(`fs_${code.toLowerCase()}`, `cannot ${doing} ${file} (${code})`, FS_HINTS[code] ?? 'check the path and permissions', {
    concerns: file,
    cause: e,
  });
}

/** Create a directory (recursively) and prove it is writable, or throw a clear KfError. */
export function ensureWritableDir(dir: string, what = 'output directory'): string {
  const abs = path.resolve(dir);
  try {
    if (fs.existsSync(abs) && !fs.statSync(abs).isDirectory()) {
      throw new KfError('not_a_directory', `${what} ${abs} is a file, not a directory`, 'pass a directory path', { concerns: abs });
    }
    fs.mkdirSync(abs, { recursive: true });
    fs.accessSync(abs, fs.constants.W_OK);
    const probe = path.join(abs, `.kf-write-probe-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.unlinkSync(probe);
  } catch (e) {
    if (e instanceof KfError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    // The general hint names permissions; a file in the path, a read-only or full disk need another fix.
    const hint = code && code !== 'EACCES' && code !== 'EPERM' && FS_HINTS[code] ? FS_HINTS[code] : 'choose a writable directory or fix its permissions';
    throw new KfError('dir_not_writable', `${what} ${abs} is not writable (${code ?? e})`, hint, { concerns: abs, cause: e });
  }
  return abs;
}

/**
 * Write all of a buffer: one write(2) may write fewer bytes than asked (a disk
 * filling up does that before it reports ENOSPC), so loop until done. Returns
 * the bytes written so far through `progress` when it throws.
 */
export function writeAll(fd: number, buf: Buffer, progress: { written: number } = { written: 0 }): void {
  while (progress.written < buf.length) progress.written += fs.writeSync(fd, buf, progress.written, buf.length - progress.written);
}

/** Replace a file atomically: readers see the old or the new content, never half of it. */
export function writeFileAtomic(file: string, data: string | Buffer, opts: { fsync?: boolean; action?: string } = {}): void {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const fd = fs.openSync(tmp, 'w');
    try {
      writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
      // Off only where a lost file is rewritten on resume anyway (per-question traces): fsync per file costs.
      if (opts.fsync !== false) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw fsError(e, file, opts.action ?? 'write');
  }
}

/** Bytes gathered before one write(2) by writeStreamed. */
const CHUNK_BYTES = 1 << 20;

/**
 * Write a file piece by piece through one handle, then fsync it; returns its size.
 * Why: large files (an index's fragments, knowledge points, relations) built as
 * one string and then copied into one Buffer held twice their size in memory
 * (at 200K fragments that pair was a build's peak). Here at most ~1 MB is held
 * besides the pieces themselves. Not atomic by itself: write into a temporary
 * folder renamed when complete, or use writeStreamedAtomic.
 */
export function writeStreamed(file: string, produce: (put: (piece: string | Buffer) => void) => void): number {
  const fd = fs.openSync(file, 'w');
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let total = 0;
    const flush = () => {
      if (!pendingBytes) return;
      writeAll(fd, pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
    };
    produce((piece) => {
      const b = typeof piece === 'string' ? Buffer.from(piece) : piece;
      if (b.length >= CHUNK_BYTES) {
        flush();
        writeAll(fd, b);
      } else {
        pending.push(b);
        pendingBytes += b.length;
        if (pendingBytes >= CHUNK_BYTES) flush();
      }
      total += b.length;
    });
    flush();
    fs.fsyncSync(fd);
    return total;
  } finally {
    fs.closeSync(fd);
  }
}

/** writeStreamed into a temporary file renamed over `file` (as writeFileAtomic): readers see the old or the new content. */
export function writeStreamedAtomic(file: string, produce: (put: (piece: string | Buffer) => void) => void, action = 'write'): number {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    fs.mkdirSync(dir, { recursive: true });
    const size = writeStreamed(tmp, produce);
    fs.renameSync(tmp, file);
    return size;
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw fsError(e, file, action);
  }
}

export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

export function readJson<T = unknown>(file: string, what = 'JSON file'): T {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new KfError('file_missing', `${what} ${file} cannot be read (${(e as NodeJS.ErrnoException).code})`, 'check the path', { concerns: file, cause: e });
  }
  try {
    return JSON.parse(text) as T;
  } catch (e) {
    // JSON.parse quotes the text it choked on, newlines included: keep the message on one line.
    const why = (e as Error).message.replace(/\s+/g, ' ');
    throw new KfError('bad_json', `${what} ${file} is not valid JSON: ${why}`, 'fix or regenerate the file', { concerns: file, cause: e });
  }
}

/**
 * Open a line-based file for appending. `cutLine`: the file does not end with a newline (a crash cut its
 * last line), so the caller starts its next line on a fresh one before appending.
 */
export function openForAppending(file: string): { fd: number; cutLine: boolean } {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'a');
    const size = fs.fstatSync(fd).size;
    if (size === 0) return { fd, cutLine: false };
    const buf = Buffer.alloc(1);
    const rfd = fs.openSync(file, 'r');
    try {
      fs.readSync(rfd, buf, 0, 1, size - 1);
    } finally {
      fs.closeSync(rfd);
    }
    return { fd, cutLine: buf[0] !== 0x0a };
  } catch (e) {
    if (fd !== undefined)
      try {
        fs.closeSync(fd);
      } catch {
        /* not open */
      }
    throw fsError(e, file, 'open for appending');
  }
}

/**
 * Append-only JSON-lines writer. Each record is one write of one line followed
 * by fsync, so a crash loses at most the record being written, and a reader
 * drops a final partial line (see readJsonl).
 */
export class JsonlWriter {
  private fd: number;
  constructor(readonly file: string) {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
    } catch (e) {
      throw fsError(e, file, 'open for appending');
    }
    const { fd, cutLine } = openForAppending(file);
    this.fd = fd;
    // A previous crash may have left a partial last line; terminate it so the next record starts clean.
    if (cutLine) this.writeRaw('\n');
  }
  private writeRaw(s: string): void {
    const buf = Buffer.from(s);
    const progress = { written: 0 };
    let before = -1;
    try {
      before = fs.fstatSync(this.fd).size;
      writeAll(this.fd, buf, progress);
      fs.fsyncSync(this.fd);
    } catch (e) {
      // A full disk can take part of the line: cut it off again, so the file
      // holds exactly the records written before (and the next append starts clean).
      if (progress.written > 0 && before >= 0) {
        try {
          if (fs.fstatSync(this.fd).size === before + progress.written) fs.ftruncateSync(this.fd, before);
        } catch {
          /* readers drop a cut last line anyway (readJsonl) */
        }
      }
      throw fsError(e, this.file, 'append to');
    }
  }
  write(record: unknown): void {
    this.writeRaw(JSON.stringify(record) + '\n');
  }
  close(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      /* closed already */
    }
  }
}

/** Read JSONL, skipping blank lines and (only) lines that do not parse, which a crash can leave. */
export function readJsonl<T = unknown>(file: string): { records: T[]; badLines: number } {
  if (!fs.existsSync(file)) return { records: [], badLines: 0 };
  const text = fs.readFileSync(file, 'utf8');
  const records: T[] = [];
  let badLines = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      records.push(JSON.parse(line) as T);
    } catch {
      badLines++;
    }
  }
  return { records, badLines };
}

/** fsync a directory so a rename inside it is durable (some file systems refuse: then the rename order alone protects readers). */
export function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* some file systems refuse fsync on directories */
  }
}

/** Whether a process with this pid is alive (stale-lock detection). EPERM means alive but not ours. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
