/**
 * Dense retrieval: an HNSW graph (hnswlib-node, inner-product space over unit
 * vectors, i.e. cosine) plus the raw vectors in one Float32Array.
 *
 * The raw matrix is kept because it pays for itself several times: exact search
 * (to measure HNSW recall), exact cosine for fusion candidates the graph did not
 * return, exact search inside small `docIds` filters (faster and exact where an
 * HNSW filter callback would visit most of the graph), kNN similarity edges, and
 * rebuilding the graph without re-embedding.
 *
 * Labels in the HNSW graph are the engine's slot numbers. Removal marks the label
 * deleted (hnswlib keeps it out of results); the vector row stays until the
 * engine compacts.
 */
import * as fs from 'node:fs';
import { HierarchicalNSW } from 'hnswlib-node';
import { KfError } from '../util/errors';
import { graphNeighbourLists, type NeighbourLists } from './hnsw-links';

export interface HnswOptions {
  /**
   * Graph degree (default 16). With efConstruction, the build-time quality knob.
   * The graph need not find the exact top-8 alone: searches run the dense stage
   * (dense-stage.ts), which re-scores the graph's candidates together with lexical
   * seeds and document siblings by exact cosine. Measured on the 50K demo world
   * (`kf bench retrieval --fragments 50000 --ef-sweep ...`, load ~3-6 on 2 cores):
   * M 32 / efConstruction 400 builds the graph in 106 s, pure recall@8 0.974 and
   * dense-stage recall@8 0.998 at efSearch 128; M 16 / 200 in 39 s, 0.903 and
   * 0.999; M 16 / 100 in 17 s, 0.830 and 0.991. 16 / 200 keeps the dense stage
   * at the old graph's recall for a third of the build.
   */
  M?: number;
  /** Build-time candidate list (default 200). */
  efConstruction?: number;
  /**
   * Query-time candidate list; 0 (the default) = automatic by corpus size,
   * see autoEfSearch. Raised to k when k is larger.
   */
  efSearch?: number;
  /** Level-generation seed: same inputs in the same order give the same graph. */
  seed?: number;
}

export interface ResolvedHnswOptions {
  M: number;
  efConstruction: number;
  efSearch: number;
  seed: number;
}

export function resolveHnswOptions(o: HnswOptions = {}): ResolvedHnswOptions {
  const r = { M: o.M ?? 16, efConstruction: o.efConstruction ?? 200, efSearch: o.efSearch ?? 0, seed: o.seed ?? 100 };
  for (const [k, v] of Object.entries(r)) {
    const min = k === 'seed' || k === 'efSearch' ? 0 : 2;
    if (!Number.isInteger(v) || v < min)
      throw new KfError(
        'bad_option',
        `hnsw.${k} must be an integer >= ${min} (got ${v})`,
        'use the defaults (M 16, efConstruction 200, efSearch 0 = automatic)',
      );
  }
  return r;
}

/**
 * efSearch when none is set: grows with the corpus, because document-clustered
 * corpora make greedy graph search miss more as they grow, but stays small
 * because the dense stage's exact re-scoring of lexical seeds and document
 * siblings recovers most of what the graph misses. Measured on the demo world
 * (M 16 / efConstruction 200, 50K fragments): dense-stage recall@8 0.981 at
 * ef 64, 0.999 at 128, 1.000 at 256 (round p50 0.66, 0.81, 1.27 ms); at 100K
 * 0.980, 0.990, 0.999 (pure graph 0.76, 0.83, 0.89); with the old M 32 / 400
 * graph at 200K the dense stage reached 0.996 at 128 while pure graph recall
 * fell from 0.97 (50K) to 0.84. Rule: n/400 rounded up to a power
 * of two, clamped to [128, 256] (up to 51.2K -> 128, above -> 256).
 * The searches' own depth (max(40, 4k) candidates) raises it further when larger.
 */
export function autoEfSearch(n: number): number {
  const target = Math.max(1, n / 400);
  return Math.min(256, Math.max(128, 2 ** Math.ceil(Math.log2(target))));
}

export interface DenseRanking {
  slots: Int32Array;
  /** Cosine similarity (inner product of unit vectors). */
  scores: Float64Array;
}

export class DenseIndex {
  readonly dim: number;
  readonly options: ResolvedHnswOptions;
  private hnsw: HierarchicalNSW;
  private capacity: number;
  private vectors: Float32Array;
  private nSlots = 0;
  private live: Uint8Array;
  private nLive = 0;
  /** Reused query buffer: hnswlib-node takes a plain number[]. */
  private qbuf: number[];

  constructor(dim: number, opts: HnswOptions = {}, initialCapacity = 1024) {
    if (!Number.isInteger(dim) || dim < 1) throw new KfError('bad_option', `dense dimension must be a positive integer (got ${dim})`, 'check the embedder');
    this.dim = dim;
    this.options = resolveHnswOptions(opts);
    this.capacity = Math.max(16, initialCapacity);
    this.hnsw = new HierarchicalNSW('ip', dim);
    this.hnsw.initIndex(this.capacity, this.options.M, this.options.efConstruction, this.options.seed);
    this.vectors = new Float32Array(this.capacity * dim);
    this.live = new Uint8Array(this.capacity);
    this.qbuf = new Array<number>(dim).fill(0);
  }

  get slotCount(): number {
    return this.nSlots;
  }
  get liveCount(): number {
    return this.nLive;
  }
  isLive(slot: number): boolean {
    return slot >= 0 && slot < this.nSlots && this.live[slot] !== 0;
  }

  private ensureCapacity(need: number): void {
    if (need <= this.capacity) return;
    let cap = this.capacity;
    while (cap < need) cap *= 2;
    this.hnsw.resizeIndex(cap);
    const v = new Float32Array(cap * this.dim);
    v.set(this.vectors);
    this.vectors = v;
    const l = new Uint8Array(cap);
    l.set(this.live);
    this.live = l;
    this.capacity = cap;
  }

  /**
   * Add a unit vector under the next slot (append-only, like BM25). Cost: one
   * graph insertion, O(efConstruction * M * log n * dim), on this thread
   * (hnswlib-node inserts one point per call; a build is n of them in slot
   * order, which is what makes it deterministic for a given seed).
   */
  add(slot: number, vec: Float32Array): void {
    if (slot !== this.nSlots)
      throw new KfError('dense_slot', `dense slots are append-only: expected ${this.nSlots}, got ${slot}`, 'add fragments through SearchEngine');
    if (vec.length !== this.dim)
      throw new KfError(
        'dim_mismatch',
        `vector for slot ${slot} has ${vec.length} dimensions, the index has ${this.dim}`,
        'use the same embedder for the whole index (or rebuild it)',
      );
    this.ensureCapacity(slot + 1);
    const off = slot * this.dim;
    let n2 = 0;
    for (let i = 0; i < this.dim; i++) n2 += vec[i] * vec[i];
    const inv = n2 > 0 ? 1 / Math.sqrt(n2) : 0;
    for (let i = 0; i < this.dim; i++) this.vectors[off + i] = vec[i] * inv;
    // An all-zero vector (empty text) is stored but kept out of the graph: it is nobody's neighbour.
    if (n2 > 0) this.hnsw.addPoint(Array.from(this.vectors.subarray(off, off + this.dim)), slot);
    this.live[slot] = n2 > 0 ? 1 : 2; // 2 = live but not in the graph
    this.nSlots = slot + 1;
    this.nLive++;
  }

  remove(slot: number): void {
    if (!this.isLive(slot)) return;
    if (this.live[slot] === 1) this.hnsw.markDelete(slot);
    this.live[slot] = 0;
    this.nLive--;
  }

  /** The stored (unit) vector of a slot. */
  vector(slot: number): Float32Array {
    return this.vectors.subarray(slot * this.dim, (slot + 1) * this.dim);
  }

  /** Cosine of a (unit) query with a stored vector. */
  dot(q: Float32Array, slot: number): number {
    const off = slot * this.dim;
    const v = this.vectors;
    let s = 0;
    for (let i = 0; i < this.dim; i++) s += q[i] * v[off + i];
    return s;
  }

  /** Cosine of two stored vectors. */
  dotSlots(a: number, b: number): number {
    const v = this.vectors;
    const oa = a * this.dim;
    const ob = b * this.dim;
    let s = 0;
    for (let i = 0; i < this.dim; i++) s += v[oa + i] * v[ob + i];
    return s;
  }

  setEf(ef: number): void {
    this.options.efSearch = ef;
  }

  /** Approximate top-k by HNSW over every live slot. Cost O(efSearch * M * log n * dim). */
  search(q: Float32Array, k: number): DenseRanking {
    return this.graphSearch(q, k);
  }

  /**
   * Top-k among the slots a mask allows (`allowed` = those slots), with no JS
   * callback per graph candidate (hnswlib-node's filter calls back into JS for
   * every candidate it visits). Two ways, whichever costs fewer dot products:
   * - exact scan of the allowed slots: |allowed| dot products, exact;
   * - the graph over-fetched and post-filtered: a search for
   *   k' = max(2k, efSearch) * live / |allowed|, so that the allowed part of the
   *   beam is as wide as an unfiltered search's (and twice k), which visits about
   *   k' * 2M candidates (2M = bottom-layer degree). If fewer than k allowed hits
   *   survive, the exact scan runs after all.
   * `exact` says which answered (the caller widens only graph results).
   */
  searchFiltered(q: Float32Array, k: number, mask: Uint8Array, allowed: ArrayLike<number>): { ranking: DenseRanking; exact: boolean } {
    const live = Math.max(1, this.nLive);
    const over = Math.ceil((Math.max(2 * k, this.efFor(live)) * live) / Math.max(1, allowed.length));
    if (allowed.length <= over * 2 * this.options.M) return { ranking: this.exactSearch(q, k, null, allowed), exact: true };
    const r = this.graphSearch(q, over);
    const keep: number[] = [];
    for (let i = 0; i < r.slots.length && keep.length < k; i++) if (mask[r.slots[i]] !== 0) keep.push(i);
    if (keep.length < Math.min(k, allowed.length)) return { ranking: this.exactSearch(q, k, null, allowed), exact: true };
    return { ranking: { slots: Int32Array.from(keep, (i) => r.slots[i]), scores: Float64Array.from(keep, (i) => r.scores[i]) }, exact: false };
  }

  /** The configured efSearch, or the automatic one for n live slots. */
  private efFor(n: number): number {
    return this.options.efSearch > 0 ? this.options.efSearch : autoEfSearch(n);
  }

  /** The graph's top-k (efSearch raised to k when k is larger). */
  private graphSearch(q: Float32Array, k: number): DenseRanking {
    const graphCount = this.hnsw.getCurrentCount();
    if (k <= 0 || this.nLive === 0 || graphCount === 0) return { slots: new Int32Array(0), scores: new Float64Array(0) };
    const kk = Math.min(k, this.nLive, graphCount);
    this.hnsw.setEf(Math.max(this.efFor(this.nLive), kk));
    const qb = this.qbuf;
    for (let i = 0; i < this.dim; i++) qb[i] = q[i];
    const res = this.hnsw.searchKnn(qb, kk);
    // hnswlib returns ascending distance (1 - ip); ties are ordered by slot for determinism.
    const idx = res.neighbors.map((_, i) => i).sort((a, b) => res.distances[a] - res.distances[b] || res.neighbors[a] - res.neighbors[b]);
    const slots = new Int32Array(idx.length);
    const scores = new Float64Array(idx.length);
    for (let i = 0; i < idx.length; i++) {
      slots[i] = res.neighbors[idx[i]];
      scores[i] = 1 - res.distances[idx[i]];
    }
    return { slots, scores };
  }

  /** Exact top-k by brute force over the raw vectors (evaluation, small filtered subsets). Ties: lower slot first. */
  exactSearch(q: Float32Array, k: number, filter?: Uint8Array | null, candidates?: ArrayLike<number>): DenseRanking {
    if (k <= 0) return { slots: new Int32Array(0), scores: new Float64Array(0) };
    // Bounded min-heap of (score, slot): O(n log k) instead of sorting everything.
    const hs = new Float64Array(k);
    const hd = new Int32Array(k);
    let size = 0;
    const worse = (i: number, j: number) => hs[i] < hs[j] || (hs[i] === hs[j] && hd[i] > hd[j]);
    const swap = (i: number, j: number) => {
      const s = hs[i];
      hs[i] = hs[j];
      hs[j] = s;
      const d = hd[i];
      hd[i] = hd[j];
      hd[j] = d;
    };
    const consider = (d: number) => {
      if (this.live[d] !== 1) return;
      if (filter && filter[d] === 0) return;
      const s = this.dot(q, d);
      if (size < k) {
        hs[size] = s;
        hd[size] = d;
        let i = size++;
        while (i > 0) {
          const p = (i - 1) >> 1;
          if (!worse(i, p)) break;
          swap(i, p);
          i = p;
        }
      } else if (s > hs[0] || (s === hs[0] && d < hd[0])) {
        hs[0] = s;
        hd[0] = d;
        let i = 0;
        for (;;) {
          const l = 2 * i + 1,
            r = l + 1;
          let m = i;
          if (l < size && worse(l, m)) m = l;
          if (r < size && worse(r, m)) m = r;
          if (m === i) break;
          swap(i, m);
          i = m;
        }
      }
    };
    if (candidates) for (let i = 0; i < candidates.length; i++) consider(candidates[i]);
    else for (let d = 0; d < this.nSlots; d++) consider(d);
    const order = Array.from({ length: size }, (_, i) => i).sort((a, b) => hs[b] - hs[a] || hd[a] - hd[b]);
    return { slots: Int32Array.from(order.map((i) => hd[i])), scores: Float64Array.from(order.map((i) => hs[i])) };
  }

  /**
   * The graph's bottom-layer neighbour lists by slot (hnsw-links.ts): the graph
   * is written to a temporary file and read back, the build's neighbour search
   * reused instead of repeated. Removed slots may still appear as neighbours.
   */
  neighbourLists(): NeighbourLists {
    return graphNeighbourLists(this.hnsw, this.nSlots);
  }

  memoryBytes(): number {
    const m = this.memoryParts();
    return m.vectors + m.graph;
  }

  /**
   * Bytes per structure: our raw vectors (+ slot states), and the HNSW graph
   * (hnswlib allocates capacity x (link count + 2*M links + its own vector copy
   * + label) on the bottom layer; upper layers hold ~1/M of the points with M
   * links each, counted as such).
   */
  memoryParts(): { vectors: number; graph: number } {
    const M = this.options.M;
    const level0 = this.capacity * (4 + M * 2 * 4 + this.dim * 4 + 8);
    const upper = (this.nSlots / M) * (4 + M * 4 + 8);
    return { vectors: this.vectors.byteLength + this.live.byteLength, graph: level0 + upper };
  }

  /** Write the graph and the vectors (callers write into a temporary directory and rename it; see engine.save). */
  save(graphFile: string, vectorsFile: string): void {
    this.hnsw.writeIndexSync(graphFile);
    const rows = Buffer.from(this.vectors.buffer, this.vectors.byteOffset, this.nSlots * this.dim * 4);
    fs.writeFileSync(vectorsFile, rows);
  }

  static load(graphFile: string, vectorsFile: string, dim: number, opts: ResolvedHnswOptions, live: Uint8Array): DenseIndex {
    const nSlots = live.length;
    const ix = new DenseIndex(dim, opts, Math.max(16, nSlots));
    const buf = fs.readFileSync(vectorsFile);
    if (buf.byteLength !== nSlots * dim * 4) {
      throw new KfError(
        'index_corrupt',
        `${vectorsFile} holds ${buf.byteLength} bytes, expected ${nSlots * dim * 4} (${nSlots} vectors x ${dim})`,
        'rebuild the index (kf index build)',
        { concerns: vectorsFile },
      );
    }
    ix.vectors.set(new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)));
    ix.hnsw = new HierarchicalNSW('ip', dim);
    ix.hnsw.readIndexSync(graphFile);
    if (ix.hnsw.getMaxElements() < ix.capacity) ix.hnsw.resizeIndex(ix.capacity);
    ix.capacity = Math.max(ix.capacity, ix.hnsw.getMaxElements());
    if (ix.vectors.length < ix.capacity * dim) {
      const v = new Float32Array(ix.capacity * dim);
      v.set(ix.vectors);
      ix.vectors = v;
    }
    ix.live = new Uint8Array(ix.capacity);
    ix.live.set(live);
    ix.nSlots = nSlots;
    for (let s = 0; s < nSlots; s++) if (live[s]) ix.nLive++;
    return ix;
  }

  /** Slot states for persistence: 0 removed, 1 live in the graph, 2 live but zero vector. */
  liveStates(): Uint8Array {
    return this.live.slice(0, this.nSlots);
  }
}
