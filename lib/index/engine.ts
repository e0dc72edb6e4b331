/**
 * The hybrid retrieval engine of the knowledge-point index (job 1, retrieval):
 * BM25 (bm25.ts) + dense HNSW (dense.ts), fused (fusion.ts), the top anchors
 * expanded one hop along relations, each hit with adjacent-fragment context and
 * attached media. One search makes no model call except embedding the query
 * (none at all with `queryVector`).
 *
 * Fragments live in "slots": dense, append-only integers shared by the BM25 and
 * HNSW indexes. Removing a document tombstones its slots (both indexes stop
 * returning them and BM25 statistics stop counting them at once); `compact()`
 * renumbers when tombstones pile up (save() does it past `compactRatio`).
 *
 * The stages live beside it, one per file: options (engine-options.ts), the
 * dense stage (dense-stage.ts), the primary ranking and fusion (rank-lists.ts),
 * expansion (graph-expansion.ts, relation-edges.ts), hits with context
 * (engine-hits.ts) and persistence (engine-persist.ts: generational, crash-safe).
 */
import * as path from 'node:path';
import * as fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { Fragment } from '../corpus/types';
import {
  RETRIEVAL_MODES,
  type Embedder,
  type FusionMethod,
  type RetrievalMode,
  type Retriever,
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  type SearchTimings,
} from './types';
import { Bm25Index } from './bm25';
import { DenseIndex } from './dense';
import { validateWeights, defaultFusionWeights, type FusionWeights } from './fusion';
import { Tokenizer } from './tokenize';
import { KfError } from '../util/errors';
import { fsError } from '../util/fsx';
import { knnFromLists } from './hnsw-links';
import { expandAlongRelations, type Listed } from './graph-expansion';
import { resolveEngineOptions, defaultQueryOptions, type EngineOptions, type StoredOptions } from './engine-options';
import { denseCandidates, widenDense, type DenseStageData, type ScoredList } from './dense-stage';
import { rankLists } from './rank-lists';
import { defaultIndexText, makeHit, type HitSource } from './engine-hits';
import { adjacentOf, buildAdjacency, EMPTY_ADJACENCY, type AdjacencyIndex, type RelationEdge } from './relation-edges';
import { validateFragmentBatch } from './fragment-batch';
import { forEachFragmentLine, indexExists, readEngineParts, saveEngineParts, type SaveStepHook } from './engine-persist';

export { INDEX_FORMAT, type SaveStepHook } from './engine-persist';
export { defaultIndexText, trimContext } from './engine-hits';
export type { RelationEdge } from './relation-edges';
export type { EngineOptions, GraphExpansionOptions, ContextOptions } from './engine-options';

const EMPTY_LIST: ScoredList = { slots: new Int32Array(0), scores: new Float64Array(0) };

const MODES: readonly RetrievalMode[] = RETRIEVAL_MODES;

/** Build-side hooks of addFragments: time spent per structure (added to), progress every `progressEvery` fragments. */
export interface AddBuildHooks {
  timings?: { bm25Ms: number; hnswMs: number };
  progress?: (done: number, total: number) => void;
  progressEvery?: number;
}

function now(): number {
  return performance.now();
}

export class SearchEngine implements Retriever {
  readonly embedder: Embedder;
  private opts: StoredOptions;
  private tokenizer: Tokenizer;
  private indexText: (f: Fragment) => string;
  private bm25: Bm25Index;
  private dense: DenseIndex;

  private frags: (Fragment | undefined)[] = [];
  private idToSlot = new Map<string, number>();
  private docSlots = new Map<string, number[]>();
  private liveCount = 0;
  private relations: RelationEdge[] = [];
  private adjacency: AdjacencyIndex = EMPTY_ADJACENCY;

  private constructor(embedder: Embedder, opts: StoredOptions, bm25: Bm25Index, dense: DenseIndex, indexText?: (f: Fragment) => string) {
    this.embedder = embedder;
    this.opts = opts;
    this.tokenizer = new Tokenizer(opts.tokenizer);
    this.bm25 = bm25;
    this.dense = dense;
    this.indexText = indexText ?? defaultIndexText;
  }

  static create(o: EngineOptions): SearchEngine {
    if (!o || !o.embedder || typeof o.embedder.embed !== 'function' || !(o.embedder.dim > 0)) {
      throw new KfError(
        'bad_option',
        'SearchEngine.create needs an embedder with embed() and a positive dim',
        'pass e.g. new HashingEmbedder(64) or a fitted CorpusFittedEmbedder',
      );
    }
    const stored = resolveEngineOptions({ ...o, fusionWeights: o.fusionWeights ?? defaultFusionWeights(o.embedder.id) });
    const bm25 = new Bm25Index(o.bm25);
    const dense = new DenseIndex(o.embedder.dim, stored.hnsw);
    return new SearchEngine(o.embedder, stored, bm25, dense, o.indexText);
  }

  // ---------------------------------------------------------------- contents

  /** Live fragments. */
  get size(): number {
    return this.liveCount;
  }

  fragment(id: string): Fragment | undefined {
    const s = this.idToSlot.get(id);
    return s === undefined ? undefined : this.frags[s];
  }

  /** A document's live fragments in reading order. */
  fragmentsOf(docId: string): Fragment[] {
    const slots = this.docSlots.get(docId) ?? [];
    return slots
      .map((s) => this.frags[s])
      .filter((f): f is Fragment => !!f)
      .sort((a, b) => a.ordinal - b.ordinal || (a.id < b.id ? -1 : 1));
  }

  /** Ids of documents with at least one live fragment, sorted. */
  documents(): string[] {
    return [...this.docSlots.keys()].sort();
  }

  /** Relations as set (fragment-level edges). */
  relationEdges(): readonly RelationEdge[] {
    return this.relations;
  }

  /** The stored unit vector of a fragment (kNN similarity edges, diagnostics). */
  vectorOf(id: string): Float32Array | undefined {
    const s = this.idToSlot.get(id);
    return s === undefined ? undefined : this.dense.vector(s);
  }

  /** Ids of live fragments in slot order (stable across save/load). */
  fragmentIds(): string[] {
    const out: string[] = [];
    for (const f of this.frags) if (f) out.push(f.id);
    return out;
  }

  /**
   * Each live fragment's k most similar fragments among its neighbours in the
   * HNSW graph (both link directions), by exact cosine, best first: the graph's
   * own neighbour search reused, no query per fragment (hnsw-links.ts). O(n * M * dim).
   */
  graphNeighbours(k: number, emit: (fromId: string, toId: string, cosine: number) => void, progress?: (done: number, total: number) => void): void {
    const usable = (s: number) => this.frags[s] !== undefined && this.dense.isLive(s);
    knnFromLists(
      this.dense.neighbourLists(),
      k,
      (a, b) => this.dense.dotSlots(a, b),
      usable,
      (a, b, sim) => emit(this.frags[a]!.id, this.frags[b]!.id, sim),
      undefined,
      progress,
    );
  }

  /**
   * Rough memory held per structure, bytes: BM25 (typed arrays), dense (raw
   * vectors + HNSW graph, also given apart), fragments (their text as UTF-16, an
   * upper bound on V8 strings, plus ~200 bytes of object and map overhead each)
   * and relations (edge list objects ~80 bytes per edge, measured with --expose-gc, plus the adjacency rows: 8 bytes per edge and ~40 per fragment).
   */
  indexMemoryBytes(): { bm25: number; dense: number; denseVectors: number; hnswGraph: number; fragments: number; relations: number } {
    const d = this.dense.memoryParts();
    let chars = 0;
    for (const f of this.frags) if (f) chars += f.text.length + f.id.length + f.docId.length + (f.caption?.length ?? 0);
    return {
      bm25: this.bm25.memoryBytes(),
      dense: d.vectors + d.graph,
      denseVectors: d.vectors,
      hnswGraph: d.graph,
      fragments: chars * 2 + this.frags.length * 200,
      relations: this.relations.length * 88 + this.adjacency.rowOf.size * 40,
    };
  }

  /** Embed texts in batches (an HTTP embedder gets bounded requests); validates shape and values. */
  async embedTexts(texts: string[], batch = 256): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += batch) {
      const part = texts.slice(i, i + batch);
      const vecs = await this.embedder.embed(part);
      if (!Array.isArray(vecs) || vecs.length !== part.length) {
        throw new KfError(
          'embedder_failed',
          `embedder ${this.embedder.id} returned ${Array.isArray(vecs) ? vecs.length : 'no'} vectors for ${part.length} texts`,
          'check the embedding endpoint/model',
        );
      }
      for (const v of vecs) out.push(v);
    }
    return out;
  }

  private checkVector(v: Float32Array | undefined, what: string): Float32Array {
    if (!v || v.length !== this.dense.dim) {
      throw new KfError(
        'dim_mismatch',
        `${what}: vector has ${v ? v.length : 'no'} dimensions, the index expects ${this.dense.dim} (embedder ${this.embedder.id})`,
        "embed with the index's embedder, or rebuild the index",
      );
    }
    for (let i = 0; i < v.length; i++) {
      if (!Number.isFinite(v[i])) throw new KfError('bad_vector', `${what}: vector has a non-finite value at ${i}`, 'check the embedder output');
    }
    return v;
  }

  /**
   * Add (or replace, by id) fragments. Embeds those without a vector. Safe to
   * call repeatedly (incremental builds); validation happens before anything
   * changes, so a bad batch leaves the index as it was.
   */
  async addFragments(fragments: Fragment[], vectors?: Float32Array[], build: AddBuildHooks = {}): Promise<void> {
    validateFragmentBatch(fragments, vectors);
    const texts = fragments.map((f) => this.indexText(f));
    const vecs = vectors ?? (await this.embedTexts(texts));
    vecs.forEach((v, i) => this.checkVector(v, `fragment ${fragments[i].id}`));
    // Replacing: drop the old version first (same id -> new content).
    const replaced: number[] = [];
    for (const f of fragments) {
      const old = this.idToSlot.get(f.id);
      if (old !== undefined) replaced.push(old);
    }
    this.removeSlots(replaced);
    // Per fragment: tokenize + BM25 postings O(tokens); HNSW insertion O(efConstruction * M * log n * dim).
    // Timed separately (the benchmark's build profile) with two clock reads per fragment.
    const timings = build.timings;
    const every = build.progressEvery ?? 10000;
    for (let i = 0; i < fragments.length; i++) {
      const f = fragments[i];
      const slot = this.frags.length;
      const ta = timings ? now() : 0;
      this.bm25.add(slot, this.tokenizer.tokenize(texts[i]));
      const tb = timings ? now() : 0;
      this.dense.add(slot, vecs[i]);
      if (timings) {
        const tc = now();
        timings.bm25Ms += tb - ta;
        timings.hnswMs += tc - tb;
      }
      if (build.progress && ((i + 1) % every === 0 || i + 1 === fragments.length)) build.progress(i + 1, fragments.length);
      this.place(f, slot);
    }
  }

  /** Enter a fragment at the next slot (already added to BM25 and HNSW) into the slot tables every lookup reads. */
  private place(f: Fragment, slot: number): void {
    this.frags.push(f);
    this.idToSlot.set(f.id, slot);
    const l = this.docSlots.get(f.docId);
    if (l) l.push(slot);
    else this.docSlots.set(f.docId, [slot]);
    this.liveCount++;
  }

  /**
   * Tombstone these slots. Each document's slot list is filtered once for all
   * of its removed slots: O(removed + the affected documents' fragments), where
   * filtering it per slot cost O(m^2) for a document of m fragments.
   */
  private removeSlots(slots: readonly number[]): void {
    const byDoc = new Map<string, Set<number>>();
    for (const slot of slots) {
      const f = this.frags[slot];
      if (!f) continue;
      this.bm25.remove(slot);
      this.dense.remove(slot);
      this.frags[slot] = undefined;
      this.idToSlot.delete(f.id);
      this.liveCount--;
      const gone = byDoc.get(f.docId);
      if (gone) gone.add(slot);
      else byDoc.set(f.docId, new Set([slot]));
    }
    for (const [docId, gone] of byDoc) {
      const rest = (this.docSlots.get(docId) ?? []).filter((s) => !gone.has(s));
      if (rest.length) this.docSlots.set(docId, rest);
      else this.docSlots.delete(docId);
    }
  }

  /** Remove every fragment of these documents (unknown ids are ignored). Returns the number of fragments removed. */
  removeDocuments(docIds: string[]): number {
    const slots: number[] = [];
    for (const d of new Set(docIds)) for (const s of this.docSlots.get(d) ?? []) slots.push(s);
    this.removeSlots(slots);
    return slots.length;
  }

  /**
   * Replace the relation edges used by graph expansion (fragment ids). Edges
   * naming fragments not (yet) in the index are kept and simply never fire until
   * both ends exist. Returns how many edges currently connect live fragments.
   */
  setRelations(edges: RelationEdge[]): number {
    const { list, adjacency } = buildAdjacency(edges, this.opts.graph.bidirectional);
    this.relations = list;
    this.adjacency = adjacency;
    return list.filter((e) => this.idToSlot.has(e.from) && this.idToSlot.has(e.to)).length;
  }

  // ---------------------------------------------------------------- search

  private docMask(docIds: string[]): Uint8Array {
    const mask = new Uint8Array(this.frags.length);
    const unknown: string[] = [];
    for (const d of docIds) {
      const slots = this.docSlots.get(d);
      if (!slots) {
        unknown.push(d);
        continue;
      }
      for (const s of slots) mask[s] = 1;
    }
    if (unknown.length === docIds.length && docIds.length > 0) {
      throw new KfError(
        'unknown_document',
        `none of the requested documents is in the index: ${unknown.slice(0, 5).join(', ')}${unknown.length > 5 ? ', ...' : ''}`,
        'check the document ids (engine.documents() lists them) or rebuild the index',
      );
    }
    return mask;
  }

  /** Tokens of a query as BM25 sees them (diagnostics, tests). */
  queryTerms(query: string): string[] {
    return this.tokenizer.tokenize(query);
  }

  async search(query: string, opts: SearchOptions = {}): Promise<SearchResult> {
    if (typeof query !== 'string') throw new KfError('bad_query', 'search query must be a string', 'pass the query text');
    const mode = opts.mode ?? this.opts.defaultMode;
    if (!MODES.includes(mode)) throw new KfError('bad_option', `unknown retrieval mode "${mode}"`, `use one of ${MODES.join(', ')}`);
    const topk = opts.topk ?? 8;
    if (!Number.isInteger(topk) || topk < 1) throw new KfError('bad_option', `topk must be a positive integer (got ${topk})`, 'use e.g. 8');
    const depth = Math.max(topk, opts.depth ?? Math.max(40, 4 * topk));
    const t: SearchTimings = { embedMs: 0, bm25Ms: 0, hnswMs: 0, fusionMs: 0, expansionMs: 0, contextMs: 0, roundMs: 0 };

    // 1. Query embedding (the only model call; excluded from the round time).
    const t0 = now();
    const qv = mode === 'bm25' ? undefined : await this.queryVector(query, opts.queryVector);
    if (mode !== 'bm25') t.embedMs = now() - t0;
    const roundStart = now();
    const mask = opts.docIds ? this.docMask(opts.docIds) : null;

    // 2. BM25.
    const t2 = now();
    const bq = mode === 'dense' ? undefined : this.bm25.resolveQuery(this.tokenizer.tokenize(query));
    const lex = bq ? this.bm25.search(bq, depth, mask) : EMPTY_LIST;
    if (bq) t.bm25Ms = now() - t2;

    // 3. Dense: HNSW candidates (exact inside a small docIds filter), widened by lexical seeds and document siblings.
    const t3 = now();
    const den = qv ? denseCandidates(this.denseStageData(), qv, depth, mask, mode === 'dense' ? null : lex.slots) : undefined;
    if (den) {
      t.hnswMs = now() - t3;
      t.wideningMs = den.wideningMs;
    }

    // 4. Fusion (or a single list).
    const t4 = now();
    const o = this.opts;
    const rank = {
      qv,
      bq,
      fusion: opts.fusion ?? o.fusion,
      weights: o.fusionWeights,
      rrfK: o.rrfK,
      adaptive: o.adaptiveFusion,
      dense: this.dense,
      bm25: this.bm25,
    };
    const primary = rankLists(mode, lex, den?.list ?? EMPTY_LIST, rank)
      .filter((r) => this.frags[r.slot] !== undefined)
      .slice(0, topk);
    t.fusionMs = now() - t4;

    // 5. One-hop expansion of the top anchors along relations.
    const t5 = now();
    const listed: Listed[] =
      mode !== 'hybrid+graph'
        ? primary
        : expandAlongRelations(primary, {
            hasRelations: this.adjacency.rowOf.size > 0,
            related: (id) => adjacentOf(this.adjacency, id),
            slotOf: (id) => this.idToSlot.get(id),
            idAt: (slot) => this.frags[slot]!.id,
            mask,
            options: this.opts.graph,
          });
    t.expansionMs = now() - t5;

    // 6. Hits with context and media.
    const t6 = now();
    const withContext = opts.withContext ?? true;
    const src = this.hitSource();
    const hits: SearchHit[] = listed.map((r, i) => makeHit(r, i + 1, withContext, src));
    t.contextMs = now() - t6;
    t.roundMs = now() - roundStart;
    return { query, hits, timings: t };
  }

  /** The unit query vector; undefined when the encoder knows nothing of the query (no direction: dense has nothing to say). */
  private async queryVector(query: string, given: Float32Array | undefined): Promise<Float32Array | undefined> {
    const raw = given
      ? this.checkVector(given, 'queryVector')
      : this.checkVector((await this.embedder.embed([query]))[0], `query embedding (${this.embedder.id})`);
    const qv = unit(raw);
    return qv.some((x) => x !== 0) ? qv : undefined;
  }

  /** What the dense stage reads (dense-stage.ts). */
  private denseStageData(): DenseStageData {
    return { dense: this.dense, fragAt: (slot) => this.frags[slot], docSlots: this.docSlots, widening: this.opts.denseWidening };
  }

  /** What hits read (engine-hits.ts). */
  private hitSource(): HitSource {
    return { fragAt: (slot) => this.frags[slot]!, fragment: (id) => this.fragment(id), contextChars: this.opts.context.chars };
  }

  /** Exact dense top-k (brute force): the reference for HNSW recall. */
  exactDense(queryVector: Float32Array, k: number): string[] {
    const r = this.dense.exactSearch(unit(this.checkVector(queryVector, 'queryVector')), k);
    return Array.from(r.slots, (s) => this.frags[s]!.id);
  }

  /** HNSW dense top-k only (no fusion), for recall measurements. */
  approxDense(queryVector: Float32Array, k: number): string[] {
    const r = this.dense.search(unit(this.checkVector(queryVector, 'queryVector')), k);
    return Array.from(r.slots, (s) => this.frags[s]!.id);
  }

  /**
   * The dense stage exactly as a hybrid search runs it (HNSW + lexical seeds +
   * document siblings, exact cosine), top-k fragment ids: measures the recall of
   * what searches actually use, against exactDense(). With query null it is the
   * dense-only mode's stage (no lexical seeds).
   */
  denseStage(query: string | null, queryVector: Float32Array, k: number, depth = Math.max(40, 4 * k)): string[] {
    const qv = unit(this.checkVector(queryVector, 'queryVector'));
    const lex = query === null ? null : this.bm25.search(this.bm25.resolveQuery(this.tokenizer.tokenize(query)), depth).slots;
    const den = widenDense(this.denseStageData(), qv, this.dense.search(qv, depth), lex, depth, null);
    return Array.from(den.slots.slice(0, k), (s) => this.frags[s]!.id);
  }

  /** The default query-time options (what create() uses when none are given; fusion weights depend on the embedder). */
  static defaultQueryOptions(): ReturnType<typeof defaultQueryOptions> {
    return defaultQueryOptions();
  }

  /**
   * Change query-time options from now on (fusion, dense widening, expansion,
   * context, default mode, efSearch); build-time ones (tokenizer, HNSW M and
   * efConstruction) are fixed by the build. Validated like create().
   */
  configure(
    o: Partial<Pick<EngineOptions, 'fusion' | 'fusionWeights' | 'rrfK' | 'adaptiveFusion' | 'denseWidening' | 'graph' | 'context' | 'defaultMode'>> & {
      efSearch?: number;
    },
  ): void {
    const cur = this.opts;
    const next = resolveEngineOptions({
      tokenizer: cur.tokenizer,
      hnsw: cur.hnsw,
      fusion: o.fusion ?? cur.fusion,
      fusionWeights: o.fusionWeights ?? cur.fusionWeights,
      rrfK: o.rrfK ?? cur.rrfK,
      adaptiveFusion: o.adaptiveFusion ?? cur.adaptiveFusion,
      denseWidening: { ...cur.denseWidening, ...(o.denseWidening ?? {}) },
      graph: { ...cur.graph, ...(o.graph ?? {}) },
      context: { ...cur.context, ...(o.context ?? {}) },
      defaultMode: o.defaultMode ?? cur.defaultMode,
      compactRatio: cur.compactRatio,
    });
    this.opts = next;
    if (o.efSearch !== undefined) this.setEfSearch(o.efSearch);
    // Relations are indexed by direction: rebuild the adjacency when that switch changed.
    if (next.graph.bidirectional !== cur.graph.bidirectional) this.setRelations(this.relations);
  }

  /** Change how hybrid searches fuse from now on (experiments, tuning). */
  configureFusion(o: { method?: FusionMethod; weights?: FusionWeights; adaptive?: boolean; rrfK?: number }): void {
    if (o.method !== undefined && o.method !== 'rrf' && o.method !== 'weighted')
      throw new KfError('bad_option', `fusion must be rrf or weighted (got ${o.method})`, 'use weighted or rrf');
    if (o.method !== undefined) this.opts.fusion = o.method;
    if (o.weights !== undefined) this.opts.fusionWeights = validateWeights(o.weights);
    if (o.adaptive !== undefined) this.opts.adaptiveFusion = o.adaptive;
    if (o.rrfK !== undefined) {
      if (!(o.rrfK > 0)) throw new KfError('bad_option', `rrfK must be > 0 (got ${o.rrfK})`, 'use 60');
      this.opts.rrfK = o.rrfK;
    }
  }

  /** Change the HNSW query-time candidate list (recall/speed trade-off); 0 = automatic by corpus size (dense.ts autoEfSearch). */
  setEfSearch(ef: number): void {
    if (!Number.isInteger(ef) || ef < 0)
      throw new KfError('bad_option', `efSearch must be a non-negative integer (got ${ef})`, 'use 0 (automatic by corpus size) or e.g. 1024');
    this.dense.setEf(ef);
    this.opts.hnsw.efSearch = ef;
  }

  // ---------------------------------------------------------------- compaction & persistence

  /** Removed slots as a share of all slots. */
  get tombstoneRatio(): number {
    return this.frags.length ? 1 - this.liveCount / this.frags.length : 0;
  }

  /** Renumber slots without tombstones (rebuilds BM25 and the HNSW graph from stored vectors; no re-embedding). */
  compact(): void {
    const keep: { f: Fragment; v: Float32Array }[] = [];
    for (let s = 0; s < this.frags.length; s++) {
      const f = this.frags[s];
      if (f) keep.push({ f, v: this.dense.vector(s).slice() });
    }
    const bm25 = new Bm25Index(this.bm25.options);
    const dense = new DenseIndex(this.dense.dim, this.opts.hnsw, Math.max(16, keep.length));
    this.frags = [];
    this.idToSlot.clear();
    this.docSlots.clear();
    this.liveCount = 0;
    keep.forEach(({ f, v }, slot) => {
      bm25.add(slot, this.tokenizer.tokenize(this.indexText(f)));
      dense.add(slot, v);
      this.place(f, slot);
    });
    this.bm25 = bm25;
    this.dense = dense;
  }

  /**
   * Save into `dir` (created if needed). Crash-safe: the previous index in `dir`
   * stays loadable until the new one is complete (see the file comment).
   */
  async save(dir: string, hooks: { onStep?: SaveStepHook } = {}): Promise<void> {
    const step = hooks.onStep ?? (() => undefined);
    const root = path.resolve(dir);
    try {
      fs.mkdirSync(root, { recursive: true });
    } catch (e) {
      throw fsError(e, root, 'create index directory');
    }
    if (this.tombstoneRatio >= this.opts.compactRatio) this.compact();
    saveEngineParts(
      root,
      {
        embedder: this.embedder,
        opts: this.opts,
        bm25: this.bm25,
        dense: this.dense,
        frags: this.frags,
        relations: this.relations,
        liveCount: this.liveCount,
        documents: this.docSlots.size,
      },
      step,
    );
  }

  /** Fill the slots from fragments.jsonl, read line by line ('null' = a removed fragment's slot). O(slots). */
  private restoreFragments(file: string, slots: number, gen: string): void {
    forEachFragmentLine(file, (line) => {
      const s = this.frags.length;
      if (s >= slots) return; // lines past the manifest's slot count are ignored, as before
      let f: Fragment | undefined;
      try {
        f = line === 'null' ? undefined : (JSON.parse(line) as Fragment);
      } catch (e) {
        throw new KfError('index_corrupt', `fragments.jsonl in ${gen}: line ${s + 1} is not valid JSON`, 'rebuild the index (kf index build)', {
          concerns: gen,
          cause: e,
        });
      }
      this.frags.push(f);
      if (!f) return;
      this.idToSlot.set(f.id, s);
      const l = this.docSlots.get(f.docId);
      if (l) l.push(s);
      else this.docSlots.set(f.docId, [s]);
      this.liveCount++;
    });
    if (this.frags.length < slots)
      throw new KfError('index_corrupt', `fragments.jsonl in ${gen} ends early (slot ${this.frags.length} of ${slots})`, 'rebuild the index', {
        concerns: gen,
      });
  }

  /** True when `dir` holds a saved index. */
  static exists(dir: string): boolean {
    return indexExists(dir);
  }

  /**
   * Load an index saved by save(). `embedder` may be omitted when the index's
   * embedder can be restored offline (corpus-fitted, hash-N, glove-sif-100d);
   * when given, its id must match the one the index was built with.
   */
  static async load(dir: string, embedder?: Embedder, overrides: { indexText?: (f: Fragment) => string } = {}): Promise<SearchEngine> {
    const p = readEngineParts(dir, embedder);
    const engine = new SearchEngine(p.emb, p.opts, p.bm25, p.dense, overrides.indexText);
    engine.restoreFragments(p.fragmentsFile, p.slots, p.gen);
    engine.setRelations(p.relations);
    return engine;
  }
}

function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s === 0 || Math.abs(s - 1) < 1e-6) return v;
  const inv = 1 / Math.sqrt(s);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  return out;
}
