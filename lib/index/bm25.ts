/**
 * Okapi BM25 over an inverted index held in typed arrays.
 *
 *   score(q, d) = sum over query terms t (with multiplicity) of
 *                 idf(t) * tf(t,d) * (k1 + 1) / (tf(t,d) + k1 * (1 - b + b * |d| / avgdl))
 *   idf 'lucene'    = ln(1 + (N - n_t + 0.5) / (n_t + 0.5))        (Lucene / Pyserini; never negative)
 *   idf 'robertson' = max(0, ln((N - n_t + 0.5) / (n_t + 0.5)))      (classic RSJ weight, floored at 0)
 * N, n_t, |d| and avgdl are over live (not removed) documents. Scores are
 * computed in float64 from stored integer statistics, so they equal a
 * brute-force computation (test/index/bm25.test.ts checks to 1e-9).
 *
 * Why typed arrays and not flexsearch's own index: at 200K fragments one
 * retrieval round has a 10 ms budget. A CSR posting layout (Int32 doc ids,
 * Uint16 term frequencies, sorted by doc) with a float64 score accumulator
 * scores ~10^7 postings/s per core, and lets us prune exactly (MaxScore, below).
 * flexsearch's Index returns ids without the statistics BM25 needs and building
 * it over 200K passages takes seconds and hundreds of MB that buy nothing here.
 * Where flexsearch IS sound and cheap: its LatinBalance `Encoder` gives every
 * vocabulary term a phonetic/spelling key (minaj~menaj, curtiz~kurtiz,
 * marufabad~maroufabad), ~5 us per NEW term at build time and nothing per query
 * unless a query term is out of vocabulary; such a term then scores through its
 * in-vocabulary spelling variants (weighted by `variantWeight`). In-vocabulary
 * terms never touch flexsearch, so exactness and speed are unaffected.
 *
 * Exact top-k with pruning (MaxScore, term-at-a-time): terms are processed from
 * the highest upper bound down; once the k-th best partial score exceeds the sum
 * of the upper bounds of the terms not yet processed, no untouched document can
 * enter the top k, so the long lists of common terms are never traversed; the
 * few touched documents that still could are completed from the forward index.
 * This is what keeps 42x more corpus from costing 42x more time.
 */
import { Encoder, Charset } from 'flexsearch';
import { KfError } from '../util/errors';

export type IdfVariant = 'lucene' | 'robertson';

export interface Bm25Options {
  k1?: number;
  b?: number;
  idf?: IdfVariant;
  /** Weight of in-vocabulary spelling variants standing in for an out-of-vocabulary query term (0 = off). Default 0.5. */
  variantWeight?: number;
  /** At most this many variants per out-of-vocabulary query term (the rarest first). Default 3. */
  maxVariants?: number;
}

export interface ResolvedBm25Options {
  k1: number;
  b: number;
  idf: IdfVariant;
  variantWeight: number;
  maxVariants: number;
}

export function resolveBm25Options(o: Bm25Options = {}): ResolvedBm25Options {
  const r = { k1: o.k1 ?? 1.2, b: o.b ?? 0.75, idf: o.idf ?? 'lucene', variantWeight: o.variantWeight ?? 0.5, maxVariants: o.maxVariants ?? 3 };
  if (!(r.k1 >= 0) || !Number.isFinite(r.k1)) throw new KfError('bad_option', `bm25.k1 must be a finite number >= 0 (got ${o.k1})`, 'use e.g. 1.2');
  if (!(r.b >= 0 && r.b <= 1)) throw new KfError('bad_option', `bm25.b must be in [0, 1] (got ${o.b})`, 'use e.g. 0.75');
  if (r.idf !== 'lucene' && r.idf !== 'robertson') throw new KfError('bad_option', `bm25.idf must be lucene or robertson (got ${o.idf})`, 'use lucene');
  if (!(r.variantWeight >= 0)) throw new KfError('bad_option', `bm25.variantWeight must be >= 0 (got ${o.variantWeight})`, 'use 0 to switch variants off');
  return r;
}

/** Ranked output: internal document numbers (slots) and scores, best first (ties: lower slot first). */
export interface Bm25Ranking {
  slots: Int32Array;
  scores: Float64Array;
  /** Postings actually visited (for benchmarks: shows the pruning). */
  visited: number;
}

/** A query resolved against the vocabulary: unique term ids with weights (query tf x variant weight). */
export interface Bm25Query {
  termIds: Int32Array;
  weights: Float64Array;
  /** Query terms found neither in the vocabulary nor through a spelling variant. */
  unknown: string[];
}

/** The serialisable state (postings are rebuilt from the forward index on load: cheaper than storing both). */
export interface Bm25State {
  options: ResolvedBm25Options;
  terms: string[];
  /** Phonetic key of each term (flexsearch LatinBalance), '' when none. */
  keys: string[];
  nSlots: number;
  fwdOff: Int32Array;
  fwdTerm: Int32Array;
  fwdTf: Uint16Array;
  docLen: Int32Array;
  live: Uint8Array;
}

function grow<T extends Int32Array | Uint16Array | Uint8Array | Float64Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let cap = Math.max(16, a.length);
  while (cap < need) cap *= 2;
  const b = new (a.constructor as { new (n: number): T })(cap);
  b.set(a);
  return b;
}

let phoneticEncoder: Encoder | undefined;
function phoneticKey(term: string): string {
  // Numbers and very short tokens have no useful spelling variants.
  if (term.length < 4 || /\d/.test(term)) return '';
  phoneticEncoder ??= new Encoder(Object.assign({}, Charset.LatinBalance, { cache: false }));
  return phoneticEncoder.encode(term).join(' ');
}

export class Bm25Index {
  readonly options: ResolvedBm25Options;

  // Vocabulary.
  private termIds = new Map<string, number>();
  private terms: string[] = [];
  private keys: string[] = [];
  private byKey = new Map<string, number[]>();

  // Forward index, append-only by slot: slot s owns fwdTerm/fwdTf[fwdOff[s] .. fwdOff[s+1]) sorted by term id.
  private nSlots = 0;
  private fwdOff = new Int32Array(1024 + 1);
  private fwdTerm = new Int32Array(16384);
  private fwdTf = new Uint16Array(16384);
  private docLen = new Int32Array(1024);
  private live = new Uint8Array(1024);
  private nLive = 0;
  private totalLen = 0;

  // Inverted index (CSR), rebuilt lazily after changes; holds live documents only.
  private dirty = true;
  private postOff = new Int32Array(1);
  private postDoc = new Int32Array(0);
  private postTf = new Uint16Array(0);
  /** Per posting: tf*(k1+1)/(tf+norm[d]) in float64 (a score is then idf x impact: no per-document lookup on the hot path). */
  private postImpact = new Float64Array(0);
  /** k1 * (1 - b + b * |d| / avgdl) per slot, for the current avgdl. */
  private norm = new Float64Array(0);
  /** Max over a term's postings of tf*(k1+1)/(tf+norm): the MaxScore upper bound before idf. */
  private maxPart = new Float64Array(0);

  // Scratch space reused across searches (no allocation per query on the hot path).
  private acc = new Float64Array(0);
  private touchedMark = new Uint8Array(0);

  constructor(opts: Bm25Options = {}) {
    this.options = resolveBm25Options(opts);
  }

  /** Documents indexed and not removed. */
  get liveCount(): number {
    return this.nLive;
  }
  get slotCount(): number {
    return this.nSlots;
  }
  get vocabularySize(): number {
    return this.terms.length;
  }
  isLive(slot: number): boolean {
    return slot >= 0 && slot < this.nSlots && this.live[slot] === 1;
  }

  /** Index a document under the next slot number (slots are dense and append-only: the caller's fragment table). */
  add(slot: number, tokens: string[]): void {
    if (slot !== this.nSlots)
      throw new KfError(
        'bm25_slot',
        `BM25 slots are append-only: expected slot ${this.nSlots}, got ${slot}`,
        'add fragments through SearchEngine, which numbers them',
      );
    const counts = new Map<number, number>();
    for (const tok of tokens) {
      let id = this.termIds.get(tok);
      if (id === undefined) {
        id = this.terms.length;
        this.termIds.set(tok, id);
        this.terms.push(tok);
        const key = phoneticKey(tok);
        this.keys.push(key);
        if (key) {
          const l = this.byKey.get(key);
          if (l) l.push(id);
          else this.byKey.set(key, [id]);
        }
      }
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    const ids = [...counts.keys()].sort((a, b) => a - b);
    const start = this.fwdOff[slot];
    this.fwdOff = grow(this.fwdOff, slot + 2);
    this.fwdTerm = grow(this.fwdTerm, start + ids.length);
    this.fwdTf = grow(this.fwdTf, start + ids.length);
    for (let i = 0; i < ids.length; i++) {
      this.fwdTerm[start + i] = ids[i];
      this.fwdTf[start + i] = Math.min(65535, counts.get(ids[i])!);
    }
    this.fwdOff[slot + 1] = start + ids.length;
    this.docLen = grow(this.docLen, slot + 1);
    this.live = grow(this.live, slot + 1);
    this.docLen[slot] = tokens.length;
    this.live[slot] = 1;
    this.nSlots = slot + 1;
    this.nLive++;
    this.totalLen += tokens.length;
    this.dirty = true;
  }

  /** Remove a document: statistics (N, n_t, avgdl) stop counting it at once. */
  remove(slot: number): void {
    if (!this.isLive(slot)) return;
    this.live[slot] = 0;
    this.nLive--;
    this.totalLen -= this.docLen[slot];
    this.dirty = true;
  }

  /** Live document frequency of a term (0 when unknown). */
  docFreq(term: string): number {
    const id = this.termIds.get(term);
    if (id === undefined) return 0;
    this.prepare();
    return this.postOff[id + 1] - this.postOff[id];
  }

  idf(df: number): number {
    const N = this.nLive;
    if (this.options.idf === 'lucene') return Math.log(1 + (N - df + 0.5) / (df + 0.5));
    return Math.max(0, Math.log((N - df + 0.5) / (df + 0.5)));
  }

  get avgdl(): number {
    return this.nLive > 0 ? this.totalLen / this.nLive : 0;
  }

  /** Rebuild postings (live docs only) and per-doc norms after changes. O(postings). */
  private prepare(): void {
    if (!this.dirty) return;
    const V = this.terms.length;
    const counts = new Int32Array(V + 1);
    for (let s = 0; s < this.nSlots; s++) {
      if (!this.live[s]) continue;
      for (let i = this.fwdOff[s], e = this.fwdOff[s + 1]; i < e; i++) counts[this.fwdTerm[i] + 1]++;
    }
    for (let t = 0; t < V; t++) counts[t + 1] += counts[t];
    const total = counts[V];
    const postDoc = new Int32Array(total);
    const postTf = new Uint16Array(total);
    const fill = counts.slice(0, V);
    for (let s = 0; s < this.nSlots; s++) {
      if (!this.live[s]) continue;
      for (let i = this.fwdOff[s], e = this.fwdOff[s + 1]; i < e; i++) {
        const p = fill[this.fwdTerm[i]]++;
        postDoc[p] = s;
        postTf[p] = this.fwdTf[i];
      }
    }
    const { k1, b } = this.options;
    const avgdl = this.avgdl || 1;
    const norm = new Float64Array(this.nSlots);
    for (let s = 0; s < this.nSlots; s++) norm[s] = k1 * (1 - b + (b * this.docLen[s]) / avgdl);
    const maxPart = new Float64Array(V);
    const impact = new Float64Array(total);
    for (let t = 0; t < V; t++) {
      let m = 0;
      for (let p = counts[t], e = counts[t + 1]; p < e; p++) {
        const tf = postTf[p];
        const v = (tf * (k1 + 1)) / (tf + norm[postDoc[p]]);
        impact[p] = v;
        if (v > m) m = v;
      }
      maxPart[t] = m;
    }
    this.postImpact = impact;
    this.postOff = counts;
    this.postDoc = postDoc;
    this.postTf = postTf;
    this.norm = norm;
    this.maxPart = maxPart;
    if (this.acc.length < this.nSlots) {
      this.acc = new Float64Array(this.nSlots);
      this.touchedMark = new Uint8Array(this.nSlots);
    }
    this.dirty = false;
  }

  /**
   * Resolve query tokens (already tokenized with the index's tokenizer) into
   * weighted term ids. Repeated tokens add up (Okapi sums over query terms).
   */
  resolveQuery(tokens: string[]): Bm25Query {
    this.prepare();
    const w = new Map<number, number>();
    const unknown: string[] = [];
    const df = (id: number) => this.postOff[id + 1] - this.postOff[id];
    for (const tok of tokens) {
      const id = this.termIds.get(tok);
      if (id !== undefined && df(id) > 0) {
        w.set(id, (w.get(id) ?? 0) + 1);
        continue;
      }
      const variants = this.options.variantWeight > 0 ? this.variantsOf(tok) : [];
      if (!variants.length) {
        unknown.push(tok);
        continue;
      }
      for (const v of variants) w.set(v, (w.get(v) ?? 0) + this.options.variantWeight);
    }
    const ids = [...w.keys()].sort((a, b) => a - b);
    return { termIds: Int32Array.from(ids), weights: Float64Array.from(ids.map((i) => w.get(i)!)), unknown };
  }

  /** In-vocabulary spelling variants (same flexsearch phonetic key) of an unknown term, rarest first. */
  private variantsOf(tok: string): number[] {
    const key = phoneticKey(tok);
    if (!key) return [];
    const cands = (this.byKey.get(key) ?? []).filter((id) => this.postOff[id + 1] - this.postOff[id] > 0);
    cands.sort((a, b) => this.postOff[a + 1] - this.postOff[a] - (this.postOff[b + 1] - this.postOff[b]) || a - b);
    return cands.slice(0, this.options.maxVariants);
  }

  /**
   * Exact top-k by BM25. `filter` (optional) is a per-slot mask: only slots with
   * filter[slot] !== 0 are ranked (single-document benchmarks). Documents with
   * score 0 (no query term) are never returned.
   */
  search(q: Bm25Query, k: number, filter?: Uint8Array | null): Bm25Ranking {
    this.prepare();
    const n = q.termIds.length;
    const empty: Bm25Ranking = { slots: new Int32Array(0), scores: new Float64Array(0), visited: 0 };
    if (n === 0 || k <= 0 || this.nLive === 0) return empty;
    const { k1 } = this.options;
    const k1p1 = k1 + 1;
    const postOff = this.postOff,
      postDoc = this.postDoc,
      impact = this.postImpact,
      norm = this.norm;
    const acc = this.acc,
      mark = this.touchedMark;

    const order = this.termOrder(q);
    if (!order.length) return empty;
    let remainingUb = 0;
    for (const o of order) remainingUb += o.ub;

    const touched: number[] = [];
    let visited = 0;
    let maxAcc = 0;
    let stopAt = order.length;
    for (let j = 0; j < order.length; j++) {
      // Can the rest be skipped for untouched documents? Only if k documents already beat everything the rest can add.
      if (touched.length >= k && maxAcc > remainingUb) {
        const theta = kthLargest(touched, acc, k);
        if (theta > remainingUb) {
          stopAt = j;
          break;
        }
      }
      const { t, w, ub } = order[j];
      const end = postOff[t + 1];
      visited += end - postOff[t];
      for (let p = postOff[t]; p < end; p++) {
        const d = postDoc[p];
        if (filter && filter[d] === 0) continue;
        const v = acc[d] + w * impact[p];
        acc[d] = v;
        if (v > maxAcc) maxAcc = v;
        if (mark[d] === 0) {
          mark[d] = 1;
          touched.push(d);
        }
      }
      remainingUb -= ub;
    }

    let candidates = touched;
    if (stopAt < order.length) {
      // Complete the scores of touched documents that could still reach the top k (exactly, from the forward index).
      const theta = kthLargest(touched, acc, k);
      let restUb = 0;
      for (let j = stopAt; j < order.length; j++) restUb += order[j].ub;
      candidates = [];
      for (const d of touched) {
        if (acc[d] + restUb >= theta) {
          for (let j = stopAt; j < order.length; j++) {
            const tf = this.tfIn(d, order[j].t);
            if (tf > 0) acc[d] += (order[j].w * tf * k1p1) / (tf + norm[d]);
          }
          visited += this.fwdOff[d + 1] - this.fwdOff[d];
          candidates.push(d);
        }
      }
    }

    const top = topK(candidates, acc, k);
    const out: Bm25Ranking = { slots: new Int32Array(top.length), scores: new Float64Array(top.length), visited };
    for (let i = 0; i < top.length; i++) {
      out.slots[i] = top[i];
      out.scores[i] = acc[top[i]];
    }
    for (const d of touched) {
      acc[d] = 0;
      mark[d] = 0;
    }
    return out;
  }

  /** Per-term weight (idf x query weight) and score upper bound of the query's terms, highest bound first. */
  private termOrder(q: Bm25Query): { t: number; w: number; ub: number }[] {
    const postOff = this.postOff;
    const order: { t: number; w: number; ub: number }[] = [];
    for (let i = 0; i < q.termIds.length; i++) {
      const t = q.termIds[i];
      const df = postOff[t + 1] - postOff[t];
      if (df === 0) continue;
      const w = this.idf(df) * q.weights[i];
      if (w <= 0) continue;
      order.push({ t, w, ub: w * this.maxPart[t] });
    }
    return order.sort((a, b) => b.ub - a.ub || a.t - b.t);
  }

  /** Term frequency of term id `t` in slot `d` (binary search in the sorted forward entries). */
  private tfIn(d: number, t: number): number {
    let lo = this.fwdOff[d],
      hi = this.fwdOff[d + 1] - 1;
    const ft = this.fwdTerm;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = ft[mid];
      if (v === t) return this.fwdTf[mid];
      if (v < t) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Exact BM25 score of one document (0 when removed): fusion uses it to give dense-only candidates their lexical score. */
  scoreSlot(q: Bm25Query, slot: number): number {
    this.prepare();
    if (!this.isLive(slot)) return 0;
    const { k1 } = this.options;
    let s = 0;
    for (let i = 0; i < q.termIds.length; i++) {
      const t = q.termIds[i];
      const tf = this.tfIn(slot, t);
      if (tf === 0) continue;
      const df = this.postOff[t + 1] - this.postOff[t];
      s += (this.idf(df) * q.weights[i] * tf * (k1 + 1)) / (tf + this.norm[slot]);
    }
    return s;
  }

  /** Terms and frequencies of a slot (tests, diagnostics). */
  termsOf(slot: number): Map<string, number> {
    const m = new Map<string, number>();
    for (let i = this.fwdOff[slot]; i < this.fwdOff[slot + 1]; i++) m.set(this.terms[this.fwdTerm[i]], this.fwdTf[i]);
    return m;
  }

  /** Bytes held in typed arrays (benchmarks). */
  memoryBytes(): number {
    this.prepare();
    return [
      this.fwdOff,
      this.fwdTerm,
      this.fwdTf,
      this.docLen,
      this.live,
      this.postOff,
      this.postDoc,
      this.postTf,
      this.postImpact,
      this.norm,
      this.maxPart,
      this.acc,
      this.touchedMark,
    ].reduce((s, a) => s + a.byteLength, 0);
  }

  exportState(): Bm25State {
    return {
      options: this.options,
      terms: this.terms,
      keys: this.keys,
      nSlots: this.nSlots,
      fwdOff: this.fwdOff.subarray(0, this.nSlots + 1),
      fwdTerm: this.fwdTerm.subarray(0, this.fwdOff[this.nSlots]),
      fwdTf: this.fwdTf.subarray(0, this.fwdOff[this.nSlots]),
      docLen: this.docLen.subarray(0, this.nSlots),
      live: this.live.subarray(0, this.nSlots),
    };
  }

  static fromState(st: Bm25State): Bm25Index {
    const ix = new Bm25Index(st.options);
    if (st.terms.length !== st.keys.length || st.fwdOff.length !== st.nSlots + 1 || st.docLen.length !== st.nSlots || st.live.length !== st.nSlots) {
      throw new KfError('index_corrupt', 'BM25 state is inconsistent (array sizes do not match)', 'rebuild the index (kf index build)');
    }
    ix.terms = st.terms;
    ix.keys = st.keys;
    for (let i = 0; i < st.terms.length; i++) {
      ix.termIds.set(st.terms[i], i);
      const key = st.keys[i];
      if (key) {
        const l = ix.byKey.get(key);
        if (l) l.push(i);
        else ix.byKey.set(key, [i]);
      }
    }
    ix.nSlots = st.nSlots;
    ix.fwdOff = Int32Array.from(st.fwdOff);
    ix.fwdTerm = Int32Array.from(st.fwdTerm);
    ix.fwdTf = Uint16Array.from(st.fwdTf);
    ix.docLen = Int32Array.from(st.docLen);
    ix.live = Uint8Array.from(st.live);
    for (let s = 0; s < st.nSlots; s++) {
      if (ix.live[s]) {
        ix.nLive++;
        ix.totalLen += ix.docLen[s];
      }
    }
    ix.dirty = true;
    return ix;
  }
}

/** k-th largest acc value over `ids` (ids.length >= k). Quickselect on a copy of the values. */
function kthLargest(ids: number[], acc: Float64Array, k: number): number {
  const vals = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) vals[i] = acc[ids[i]];
  let lo = 0,
    hi = vals.length - 1;
  const target = k - 1; // index in descending order
  while (lo < hi) {
    const pivot = vals[(lo + hi) >> 1];
    let i = lo,
      j = hi;
    while (i <= j) {
      while (vals[i] > pivot) i++;
      while (vals[j] < pivot) j--;
      if (i <= j) {
        const tmp = vals[i];
        vals[i] = vals[j];
        vals[j] = tmp;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return vals[target];
}

/** The k best ids by acc (desc), ties by id (asc): a bounded min-heap, O(n log k). */
export function topK(ids: number[], acc: Float64Array, k: number): number[] {
  const heap: number[] = [];
  // "worse" = lower score, or equal score and higher id.
  const worse = (a: number, b: number) => acc[a] < acc[b] || (acc[a] === acc[b] && a > b);
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (worse(heap[i], heap[p])) {
        [heap[i], heap[p]] = [heap[p], heap[i]];
        i = p;
      } else break;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1,
        r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l], heap[m])) m = l;
      if (r < heap.length && worse(heap[r], heap[m])) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m], heap[i]];
      i = m;
    }
  };
  for (const d of ids) {
    if (acc[d] <= 0) continue;
    if (heap.length < k) {
      heap.push(d);
      up(heap.length - 1);
    } else if (worse(heap[0], d)) {
      heap[0] = d;
      down(0);
    }
  }
  return heap.sort((a, b) => acc[b] - acc[a] || a - b);
}
