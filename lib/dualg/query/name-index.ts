/**
 * The nearest-name search of the dense linker (dense-link.ts): the graph's entity-name vectors (unit rows) and,
 * above a size, an HNSW graph over them (lib/index/dense.ts's DenseIndex, the engine's own dense index).
 *
 * Exact at or below EXACT_NAMES = efSearch names (128, the engine's smallest automatic beam, see autoEfSearch):
 * a beam that wide holds every name, so the graph search scores them all anyway and saves nothing over the scan,
 * which is exact and needs no graph build. Measured at 384 dims (lib/dualg/scripts/link-cost.ts, load ~6 on 2 cores):
 * one mention p50 0.07 ms scan vs 0.07 ms graph at 128 names, 0.14 vs 0.09 at 250, 0.55 vs 0.26 at 1,000,
 * 2.36 vs 0.80 at 4,096: the crossover sits at the beam width, as the principle says.
 *
 * Above it, the graph proposes candidates and each one's cosine is recomputed from the stored rows (the same
 * dot product as the scan), so the threshold is applied exactly as the brute force applies it: the graph can
 * miss a neighbour, never admit one below the floor.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { autoEfSearch, DenseIndex, resolveHnswOptions } from '../../index/dense';
import { KfError } from '../../util/errors';
import { readJson, writeJsonAtomic } from '../../util/fsx';

export interface Neighbour {
  entity: number;
  similarity: number;
}

/** Unit-length rows of one matrix (n x dim), so a cosine is a dot product. */
export interface NameMatrix {
  dim: number;
  rows: Float32Array;
}

const HNSW = resolveHnswOptions({});
/** Names at or below which the exact scan answers (see the header: the smallest automatic beam). */
export const EXACT_NAMES = autoEfSearch(0);

export function unitRows(vecs: Float32Array[], dim: number): Float32Array {
  const rows = new Float32Array(vecs.length * dim);
  vecs.forEach((v, i) => {
    let n = 0;
    for (let j = 0; j < dim; j++) n += v[j] * v[j];
    const s = n > 0 ? 1 / Math.sqrt(n) : 0;
    for (let j = 0; j < dim; j++) rows[i * dim + j] = v[j] * s;
  });
  return rows;
}

/** Row `o` of `rows` dotted with `q`, four lanes at a time (about 1.5x a plain loop in V8: the adds no longer chain). */
function dotAt(rows: Float32Array, o: number, q: Float32Array, dim: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    a += rows[o + j] * q[j];
    b += rows[o + j + 1] * q[j + 1];
    c += rows[o + j + 2] * q[j + 2];
    d += rows[o + j + 3] * q[j + 3];
  }
  for (; j < dim; j++) a += rows[o + j] * q[j];
  return a + b + c + d;
}

/** Keeps `out` the best `k` by similarity (ties: lower entity first). */
function keepTop(out: Neighbour[], entity: number, similarity: number, k: number): void {
  if (out.length >= k && similarity <= out[out.length - 1].similarity) return;
  out.push({ entity, similarity });
  out.sort((a, b) => b.similarity - a.similarity || a.entity - b.entity);
  if (out.length > k) out.pop();
}

/**
 * For each query vector, the top `k` rows of `m` by cosine, at or above `min`. One pass over the matrix serves
 * every mention of a query: reading the n x dim floats is the whole per-query cost.
 */
export function nearestRows(m: NameMatrix, qs: Float32Array[], k: number, min: number): Neighbour[][] {
  const { dim, rows } = m;
  const n = dim ? rows.length / dim : 0;
  const units = qs.map((q) => unitRows([q], dim));
  const out: Neighbour[][] = qs.map(() => []);
  for (let i = 0, o = 0; i < n; i++, o += dim) {
    for (let x = 0; x < units.length; x++) {
      const s = dotAt(rows, o, units[x], dim);
      if (s >= min) keepTop(out[x], i, s, k);
    }
  }
  return out;
}

const VECTORS = 'names.f32';
const GRAPH = 'names.hnsw';
const META = 'names.json';

/**
 * The name vectors: the rows themselves (exact scan), or, above EXACT_NAMES (or when `exactNames` says so), the
 * DenseIndex that holds them with their HNSW graph (the rows are not kept twice).
 */
export class NameIndex {
  readonly dim: number;
  readonly size: number;
  /** The rows, when the scan answers. */
  private readonly m?: NameMatrix;
  readonly graph?: DenseIndex;

  private constructor(dim: number, size: number, at: { m: NameMatrix } | { graph: DenseIndex }) {
    this.dim = dim;
    this.size = size;
    if ('m' in at) this.m = at.m;
    else this.graph = at.graph;
  }

  /** Builds the graph when there are more than `exactNames` rows (the default: EXACT_NAMES); one insertion per row. */
  static build(m: NameMatrix, exactNames = EXACT_NAMES): NameIndex {
    const n = m.dim ? m.rows.length / m.dim : 0;
    if (n <= exactNames) return new NameIndex(m.dim, n, { m });
    const graph = new DenseIndex(m.dim, { ...HNSW }, n);
    for (let i = 0; i < n; i++) graph.add(i, m.rows.subarray(i * m.dim, (i + 1) * m.dim));
    return new NameIndex(m.dim, n, { graph });
  }

  /** Row `i` (unit length). */
  row(i: number): Float32Array {
    return this.graph ? this.graph.vector(i) : this.m!.rows.subarray(i * this.dim, (i + 1) * this.dim);
  }

  /** Per query vector, the top `k` names at cosine >= `min`: by the scan, or the graph's candidates re-checked exactly. */
  nearest(qs: Float32Array[], k: number, min: number): Neighbour[][] {
    const graph = this.graph;
    if (!graph) return nearestRows(this.m!, qs, k, min);
    return qs.map((q) => {
      const unit = unitRows([q], this.dim);
      const out: Neighbour[] = [];
      for (const slot of graph.search(unit, k).slots) {
        // The scan's own dot product over the stored row, not the graph's distance: the floor is applied alike.
        const s = dotAt(this.row(slot), 0, unit, this.dim);
        if (s >= min) keepTop(out, slot, s, k);
      }
      return out;
    });
  }

  /** Writes the rows (and the graph, when there is one) into `dir`. */
  save(dir: string): void {
    writeJsonAtomic(path.join(dir, META), { dim: this.dim, n: this.size, graph: !!this.graph, hnsw: HNSW });
    if (this.graph) this.graph.save(path.join(dir, GRAPH), path.join(dir, VECTORS));
    else fs.writeFileSync(path.join(dir, VECTORS), Buffer.from(this.m!.rows.buffer, this.m!.rows.byteOffset, this.m!.rows.byteLength));
  }

  static load(dir: string): NameIndex {
    const meta = readJson<{ dim: number; n: number; graph: boolean }>(path.join(dir, META), 'name index metadata');
    const buf = fs.readFileSync(path.join(dir, VECTORS));
    if (buf.byteLength !== meta.n * meta.dim * 4)
      throw new KfError(
        'index_corrupt',
        `${dir}/${VECTORS} holds ${buf.byteLength} bytes, expected ${meta.n} x ${meta.dim} floats`,
        `delete ${dir}; it is rebuilt`,
        {
          concerns: dir,
        },
      );
    const rows = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    if (!meta.graph) return new NameIndex(meta.dim, meta.n, { m: { dim: meta.dim, rows } });
    // Slot states as DenseIndex.add left them: 1 in the graph, 2 an all-zero row kept out of it.
    const live = Uint8Array.from({ length: meta.n }, (_, i) => (dotAt(rows, i * meta.dim, rows.subarray(i * meta.dim), meta.dim) > 0 ? 1 : 2));
    const graph = DenseIndex.load(path.join(dir, GRAPH), path.join(dir, VECTORS), meta.dim, { ...HNSW }, live);
    return new NameIndex(meta.dim, meta.n, { graph });
  }
}
