/**
 * The neighbour lists of an HNSW graph, read back from the file hnswlib writes.
 *
 * Why: building the graph already found, for every point, a short list of close
 * neighbours (at most 2*M on the bottom layer, chosen by hnswlib's diversity
 * heuristic). Similarity edges and relation recall need exactly that kind of
 * list; querying the graph again once per point repeats the build's work (at
 * 200K fragments that second pass cost over 20 minutes). hnswlib-node does not
 * expose the lists, but hnswlib's saved format is plain and stable
 * (hnswalg.h saveIndex):
 *
 *   header: offsetLevel0, maxElements, count, bytesPerElement, labelOffset,
 *           dataOffset (6 x u64), maxLevel (i32), entryPoint (u32),
 *           maxM, maxM0, M (3 x u64), mult (f64), efConstruction (u64)  = 96 bytes
 *   then `count` bottom-layer records of `bytesPerElement` bytes each:
 *           u16 link count, u8 flags (bit 0 = deleted), u8 unused,
 *           maxM0 x u32 internal ids, the vector, u64 label
 *   then the upper layers (not needed here).
 *
 * Internal ids are insertion order; labels are the caller's (the engine's slots).
 * The file is read in blocks, so memory stays at the size of the lists.
 * Cost: O(n * M) time and memory, one sequential read of the file.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HierarchicalNSW } from 'hnswlib-node';
import { KfError } from '../util/errors';

/** Bottom-layer neighbours per label: neighbours of label L are ids[offsets[L] .. offsets[L+1]). Deleted points have none. */
export interface NeighbourLists {
  offsets: Int32Array;
  ids: Int32Array;
}

const HEADER_BYTES = 96;

interface Header {
  count: number;
  bytesPerElement: number;
  labelOffset: number;
  maxM0: number;
}

function readHeader(fd: number, file: string): Header {
  const h = Buffer.alloc(HEADER_BYTES);
  if (fs.readSync(fd, h, 0, HEADER_BYTES, 0) !== HEADER_BYTES)
    throw new KfError('index_corrupt', `${file} is shorter than an HNSW header`, 'rebuild the index (kf index build)', { concerns: file });
  const u64 = (at: number) => Number(h.readBigUInt64LE(at));
  const header = { offsetLevel0: u64(0), count: u64(16), bytesPerElement: u64(24), labelOffset: u64(32), dataOffset: u64(40), maxM0: u64(64) };
  // The layout checks that make a misread impossible to miss: links come first and fill the space before the vector.
  if (header.offsetLevel0 !== 0 || header.dataOffset !== 4 + 4 * header.maxM0 || header.labelOffset + 8 !== header.bytesPerElement)
    throw new KfError('index_corrupt', `${file} does not have the hnswlib layout this reader knows`, 'rebuild the index with this version', {
      concerns: file,
    });
  return header;
}

/** Neighbour lists (by label) of the graph saved in `file`; `labels` = one more than the largest label in use. */
export function readNeighbourLists(file: string, labels: number): NeighbourLists {
  const fd = fs.openSync(file, 'r');
  try {
    const h = readHeader(fd, file);
    const labelOf = new Int32Array(h.count);
    const start = new Int32Array(h.count + 1);
    const flat = new Int32Array(h.count * h.maxM0);
    const block = Math.max(1, Math.floor((8 * 1024 * 1024) / h.bytesPerElement));
    const buf = Buffer.alloc(block * h.bytesPerElement);
    let used = 0;
    for (let first = 0; first < h.count; first += block) {
      const n = Math.min(block, h.count - first);
      const bytes = n * h.bytesPerElement;
      if (fs.readSync(fd, buf, 0, bytes, HEADER_BYTES + first * h.bytesPerElement) !== bytes)
        throw new KfError('index_corrupt', `${file} ends inside its bottom layer`, 'rebuild the index (kf index build)', { concerns: file });
      for (let e = 0; e < n; e++) {
        const at = e * h.bytesPerElement;
        const id = first + e;
        labelOf[id] = Number(buf.readBigUInt64LE(at + h.labelOffset));
        start[id] = used;
        if ((buf[at + 2] & 1) === 0) {
          const links = buf.readUInt16LE(at);
          for (let j = 0; j < links; j++) flat[used++] = buf.readUInt32LE(at + 4 + 4 * j);
        }
      }
    }
    start[h.count] = used;
    return byLabel(labelOf, start, flat, labels);
  } finally {
    fs.closeSync(fd);
  }
}

/** The neighbour lists of a live hnswlib graph: written to a temporary file, read back, the file removed. */
export function graphNeighbourLists(graph: HierarchicalNSW, labels: number): NeighbourLists {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-hnsw-links-'));
  try {
    const file = path.join(dir, 'graph.hnsw');
    graph.writeIndexSync(file);
    return readNeighbourLists(file, labels);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Re-index lists from internal ids to labels (both the owner and its neighbours). */
function byLabel(labelOf: Int32Array, start: Int32Array, flat: Int32Array, labels: number): NeighbourLists {
  const offsets = new Int32Array(labels + 1);
  for (let id = 0; id < labelOf.length; id++) offsets[labelOf[id] + 1] = start[id + 1] - start[id];
  for (let l = 0; l < labels; l++) offsets[l + 1] += offsets[l];
  const ids = new Int32Array(offsets[labels]);
  for (let id = 0; id < labelOf.length; id++) {
    let to = offsets[labelOf[id]];
    for (let j = start[id]; j < start[id + 1]; j++) ids[to++] = labelOf[flat[j]];
  }
  return { offsets, ids };
}

/** The lists made symmetric: a point also lists every point that lists it (hnswlib prunes links one way only). O(n * M). */
export function symmetricLists(l: NeighbourLists): NeighbourLists {
  const n = l.offsets.length - 1;
  const deg = new Int32Array(n + 1);
  for (let a = 0; a < n; a++)
    for (let j = l.offsets[a]; j < l.offsets[a + 1]; j++) {
      deg[a + 1]++;
      deg[l.ids[j] + 1]++;
    }
  for (let a = 0; a < n; a++) deg[a + 1] += deg[a];
  const fill = deg.slice(0, n);
  const ids = new Int32Array(deg[n]);
  for (let a = 0; a < n; a++)
    for (let j = l.offsets[a]; j < l.offsets[a + 1]; j++) {
      const b = l.ids[j];
      ids[fill[a]++] = b;
      ids[fill[b]++] = a;
    }
  return { offsets: deg, ids };
}

/**
 * k nearest neighbours of every point among its graph neighbours and, one step
 * further, the neighbours of its `refine` best neighbours (a neighbour's
 * neighbour is often a nearer point that the diversity heuristic pruned from the
 * point's own list), each scored exactly by `similarity`. `emit(a, b, sim)` is
 * called for each kept neighbour, best first (ties: lower label). Points for
 * which `usable` is false neither get nor give neighbours. `progress` is told
 * after every tenth of the points.
 * Cost: O(n * (refine + 1) * M) similarity calls, no search.
 */
export function knnFromLists(
  lists: NeighbourLists,
  k: number,
  similarity: (a: number, b: number) => number,
  usable: (label: number) => boolean,
  emit: (a: number, b: number, sim: number) => void,
  refine = 4,
  progress?: (done: number, total: number) => void,
): void {
  const sym = symmetricLists(lists);
  const n = sym.offsets.length - 1;
  const stamp = new Int32Array(n).fill(-1);
  const near = new TopList(k);
  const seeds = new TopList(refine);
  const every = Math.max(1, Math.ceil(n / 10));
  const consider = (a: number, from: number, alsoSeed: boolean) => {
    for (let j = sym.offsets[from]; j < sym.offsets[from + 1]; j++) {
      const b = sym.ids[j];
      if (b === a || stamp[b] === a || !usable(b)) continue;
      stamp[b] = a;
      const s = similarity(a, b);
      near.offer(b, s);
      if (alsoSeed) seeds.offer(b, s);
    }
  };
  for (let a = 0; a < n; a++) {
    if (!usable(a)) continue;
    near.clear();
    seeds.clear();
    consider(a, a, true);
    for (let t = 0; t < seeds.size; t++) consider(a, seeds.ids[t], false);
    for (let t = 0; t < near.size; t++) emit(a, near.ids[t], near.sims[t]);
    if (progress && ((a + 1) % every === 0 || a + 1 === n)) progress(a + 1, n);
  }
}

/** The best `cap` (id, similarity) pairs offered, kept sorted (best first; ties: lower id). Insertion: O(cap) per offer, cap is small. */
class TopList {
  readonly ids: Int32Array;
  readonly sims: Float64Array;
  size = 0;
  constructor(private readonly cap: number) {
    this.ids = new Int32Array(Math.max(0, cap));
    this.sims = new Float64Array(Math.max(0, cap));
  }
  clear(): void {
    this.size = 0;
  }
  offer(id: number, sim: number): void {
    const { ids, sims, cap } = this;
    if (cap === 0) return;
    const worse = (t: number) => sims[t] < sim || (sims[t] === sim && ids[t] > id);
    if (this.size === cap && !worse(cap - 1)) return;
    let t = this.size < cap ? this.size++ : cap - 1;
    while (t > 0 && worse(t - 1)) {
      ids[t] = ids[t - 1];
      sims[t] = sims[t - 1];
      t--;
    }
    ids[t] = id;
    sims[t] = sim;
  }
}
