/**
 * The engine's on-disk helpers: the CURRENT pointer and gen-NNNNNN generation
 * folders, fsynced writes (streamed ones: util/fsx.ts writeStreamed), lines read
 * back in blocks, and typed arrays packed into one buffer (bm25.bin).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { KfError } from '../util/errors';

export function readPointer(root: string): string | undefined {
  try {
    const cur = fs.readFileSync(path.join(root, 'CURRENT'), 'utf8').trim();
    return /^gen-\d+$/.test(cur) ? cur : undefined;
  } catch {
    return undefined;
  }
}

export function nextGeneration(root: string, current: string | undefined): string {
  let max = current ? Number(current.slice(4)) : 0;
  try {
    for (const name of fs.readdirSync(root)) {
      const m = /^gen-(\d+)$/.exec(name);
      if (m) max = Math.max(max, Number(m[1]));
    }
  } catch {
    /* empty */
  }
  return `gen-${String(max + 1).padStart(6, '0')}`;
}

export function writeSynced(file: string, data: string | Buffer): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Call `onLine` for each line of a file ('\n'-separated; a final empty line
 * after the last '\n' is not reported), reading it in blocks: memory stays at
 * one block and one line, not the whole file as a Buffer, a string and an array.
 */
export function forEachLine(file: string, onLine: (line: string) => void): void {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(4 << 20);
    const dec = new StringDecoder('utf8');
    let carry = '';
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      const text = n > 0 ? carry + dec.write(buf.subarray(0, n)) : carry + dec.end();
      const lines = text.split('\n');
      carry = lines.pop() ?? '';
      for (const l of lines) onLine(l);
      if (n <= 0) break;
    }
    if (carry) onLine(carry);
  } finally {
    fs.closeSync(fd);
  }
}

export function fsyncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

export type ArrKind = 'i32' | 'u16' | 'u8';

/** Typed arrays packed as one buffer: [count u32][byteLength u32 x count] then each array, 8-byte aligned. */
export function packArrays(arrays: (Int32Array | Uint16Array | Uint8Array)[]): Buffer {
  return Buffer.concat(packedParts(arrays));
}

/** The pieces of packArrays' layout, the arrays as views (no copy): written one by one, they give the same bytes. */
export function packedParts(arrays: (Int32Array | Uint16Array | Uint8Array)[]): Buffer[] {
  const header = Buffer.alloc(4 + 4 * arrays.length);
  header.writeUInt32LE(arrays.length, 0);
  const parts: Buffer[] = [header];
  let off = header.length;
  const pad = (n: number) => (8 - (n % 8)) % 8;
  arrays.forEach((a, i) => {
    header.writeUInt32LE(a.byteLength, 4 + 4 * i);
    const p = pad(off);
    if (p) parts.push(Buffer.alloc(p));
    off += p;
    parts.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
    off += a.byteLength;
  });
  return parts;
}

export function unpackArrays(buf: Buffer, kinds: ArrKind[]): (Int32Array | Uint16Array | Uint8Array)[] {
  const n = buf.readUInt32LE(0);
  if (n !== kinds.length) throw new KfError('index_corrupt', `bm25.bin holds ${n} arrays, expected ${kinds.length}`, 'rebuild the index');
  let off = 4 + 4 * n;
  const out: (Int32Array | Uint16Array | Uint8Array)[] = [];
  for (let i = 0; i < n; i++) {
    const len = buf.readUInt32LE(4 + 4 * i);
    off += (8 - (off % 8)) % 8;
    if (off + len > buf.length) throw new KfError('index_corrupt', 'bm25.bin is truncated', 'rebuild the index');
    const copy = buf.buffer.slice(buf.byteOffset + off, buf.byteOffset + off + len);
    const k = kinds[i];
    out.push(k === 'i32' ? new Int32Array(copy) : k === 'u16' ? new Uint16Array(copy) : new Uint8Array(copy));
    off += len;
  }
  return out;
}

/** Remove every generation but `keep`, and stray temporary folders of killed saves (best effort). */
export function removeOtherGenerations(root: string, keep: string): void {
  for (const name of fs.readdirSync(root)) {
    if ((name.startsWith('gen-') && name !== keep) || (name.startsWith('.gen-') && name.includes('.tmp-'))) {
      try {
        fs.rmSync(path.join(root, name), { recursive: true, force: true });
      } catch {
        /* ignore */
      }
    }
  }
}

/** Readers of one generation's files whose failures say which file is missing or damaged. */
export function generationReader(gen: string): { read(name: string): Buffer; parse<T>(name: string): T } {
  const read = (name: string): Buffer => {
    try {
      return fs.readFileSync(path.join(gen, name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new KfError('index_corrupt', `index file ${path.join(gen, name)} is missing or unreadable (${code})`, 'rebuild the index (kf index build)', {
        concerns: path.join(gen, name),
        cause: e,
      });
    }
  };
  const parse = <T>(name: string): T => {
    try {
      return JSON.parse(read(name).toString('utf8')) as T;
    } catch (e) {
      if (e instanceof KfError) throw e;
      throw new KfError('index_corrupt', `index file ${path.join(gen, name)} is not valid JSON`, 'rebuild the index (kf index build)', {
        concerns: path.join(gen, name),
        cause: e,
      });
    }
  };
  return { read, parse };
}

/** Every file the manifest lists must have the size it recorded (a cut or swapped file is refused). */
export function checkFileSizes(gen: string, files: Record<string, number>): void {
  for (const [name, size] of Object.entries(files)) {
    let actual = -1;
    try {
      actual = fs.statSync(path.join(gen, name)).size;
    } catch {
      /* reported below */
    }
    if (actual !== size) {
      const what = actual < 0 ? 'gone missing' : `${actual} bytes, expected ${size}`;
      throw new KfError('index_corrupt', `index file ${path.join(gen, name)} has ${what}`, 'rebuild the index (kf index build)', {
        concerns: path.join(gen, name),
      });
    }
  }
}
