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
 * Persistence is generational so a crash mid-save never costs the previous
 * index: save() writes a complete `gen-N/` folder under a temporary name, fsyncs,
 * renames it into place, and only then atomically replaces the `CURRENT` pointer
 * file; older generations are deleted afterwards. load() follows CURRENT.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
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
import { Bm25Index, type Bm25Options, type Bm25Query, type Bm25State } from './bm25';
import { DenseIndex, resolveHnswOptions, type HnswOptions, type ResolvedHnswOptions } from './dense';
import { fuse, validateWeights, defaultFusionWeights, DEFAULT_RRF_K, type FusionCandidate, type FusionWeights } from './fusion';
import { Tokenizer, type ResolvedTokenizerOptions, type TokenizerOptions } from './tokenize';
import { restoreEmbedder, saveEmbedderState } from './embedders/registry';
import { KfError } from '../util/errors';
import { fsError, writeFileAtomic, fsyncDir } from '../util/fsx';
import {
  checkFileSizes,
  fsyncFile,
  generationReader,
  nextGeneration,
  packArrays,
  readPointer,
  removeOtherGenerations,
  unpackArrays,
  writeSynced,
} from './engine-files';
import { knnFromLists } from './hnsw-links';
import { expandAlongRelations, type Listed, type Ranked } from './graph-expansion';

type ScoredList = { slots: Int32Array; scores: Float64Array };
const EMPTY_LIST: ScoredList = { slots: new Int32Array(0), scores: new Float64Array(0) };

export const INDEX_FORMAT = 'kf-search-index/1';
const MODES: readonly RetrievalMode[] = RETRIEVAL_MODES;

export interface GraphExpansionOptions {
  /** How many top hits are expanded (paper: 8). */
  anchors?: number;
  /** Neighbours added per anchor, strongest edge first (default 2). */
  perAnchor?: number;
  /** Ignore edges lighter than this (default 0). */
  minWeight?: number;
  /** Traverse edges in both directions (default true: a relation links two points either way). */
  bidirectional?: boolean;
  /**
   * Where expansion hits go: right after their anchor (default; they inherit its
   * score, which is what the paper's S4 numbers show: R@1 unchanged, R@3/R@8
   * slightly lower than S3), or after all primary hits.
   */
  placement?: 'after-anchor' | 'append';
}

export interface ContextOptions {
  /** Characters of neighbour text kept on each side (default 300). */
  chars?: number;
}

export interface EngineOptions {
  embedder: Embedder;
  tokenizer?: TokenizerOptions;
  bm25?: Bm25Options;
  hnsw?: HnswOptions;
  fusion?: FusionMethod;
  /** Default: fusion.ts defaultFusionWeights(embedder.id) (small dense weight for offline encoders, equal for neural ones). */
  fusionWeights?: FusionWeights;
  rrfK?: number;
  /** Per-query confidence scaling of the fusion weights (fusion.ts). Default false. */
  adaptiveFusion?: boolean;
  /**
   * Dense-stage widening (see widenDense): exact cosine also for the reading-order
   * neighbours (+-siblingWindow) of the hits of the best `siblingDocs` documents
   * (defaults 3 and 64; 0 switches it off).
   */
  denseWidening?: { siblingDocs?: number; siblingWindow?: number };
  graph?: GraphExpansionOptions;
  context?: ContextOptions;
  /** Mode used when a search does not name one (default 'hybrid+graph'; without relations it equals 'hybrid'). */
  defaultMode?: RetrievalMode;
  /** save() compacts first when this share of slots is removed (default 0.3). */
  compactRatio?: number;
  /** Text that takes part in retrieval for a fragment (default: section path, label, caption, text). */
  indexText?: (f: Fragment) => string;
}

/** The options as stored in the manifest (functions and the embedder excluded). */
interface StoredOptions {
  tokenizer: ResolvedTokenizerOptions;
  hnsw: ResolvedHnswOptions;
  fusion: FusionMethod;
  fusionWeights: FusionWeights;
  rrfK: number;
  adaptiveFusion: boolean;
  denseWidening: { siblingDocs: number; siblingWindow: number };
  graph: Required<GraphExpansionOptions>;
  context: Required<ContextOptions>;
  defaultMode: RetrievalMode;
  compactRatio: number;
}

/** Build-side hooks of addFragments: time spent per structure (added to), progress every `progressEvery` fragments. */
export interface AddBuildHooks {
  timings?: { bm25Ms: number; hnswMs: number };
  progress?: (done: number, total: number) => void;
  progressEvery?: number;
}

export interface RelationEdge {
  from: string;
  to: string;
  type: string;
  weight: number;
}

interface Adjacent {
  to: string;
  type: string;
  weight: number;
}

interface Manifest {
  format: string;
  createdAt: string;
  embedder: { id: string; dim: number; persisted: boolean };
  options: StoredOptions;
  bm25: { options: Bm25State['options']; nSlots: number; nTerms: number; nPostings: number };
  slots: number;
  liveFragments: number;
  documents: number;
  relations: number;
  files: Record<string, number>;
}

/** Test hook: called before each step of save(); throwing simulates a crash at that point. */
export type SaveStepHook = (step: 'fragments' | 'bm25' | 'dense' | 'relations' | 'embedder' | 'manifest' | 'rename' | 'pointer') => void;

export function defaultIndexText(f: Fragment): string {
  const parts: string[] = [];
  const sec = (f.section ?? []).filter((s) => s && s.trim());
  if (sec.length) parts.push(sec.join(' / '));
  if (f.label && !f.text.includes(f.label)) parts.push(f.label);
  if (f.caption && !f.text.includes(f.caption)) parts.push(f.caption);
  parts.push(f.text);
  return parts.join('\n');
}

function now(): number {
  return performance.now();
}

/** Trim to about `n` chars at a word boundary; `fromEnd` keeps the end (text just before a hit). */
export function trimContext(text: string, n: number, fromEnd = false): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  if (fromEnd) {
    let cut = t.slice(t.length - n);
    const sp = cut.indexOf(' ');
    if (sp > 0 && sp < n / 3) cut = cut.slice(sp + 1);
    return '…' + cut;
  }
  let cut = t.slice(0, n);
  const sp = cut.lastIndexOf(' ');
  if (sp > (2 * n) / 3) cut = cut.slice(0, sp);
  return cut + '…';
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
  private adjacency = new Map<string, Adjacent[]>();
  /** Time the last search spent in widenDense (its share of hnswMs). */
  private wideningMs = 0;

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
    const stored = SearchEngine.resolveOptions({ ...o, fusionWeights: o.fusionWeights ?? defaultFusionWeights(o.embedder.id) });
    const bm25 = new Bm25Index(o.bm25);
    const dense = new DenseIndex(o.embedder.dim, stored.hnsw);
    return new SearchEngine(o.embedder, stored, bm25, dense, o.indexText);
  }

  private static resolveOptions(o: Omit<EngineOptions, 'embedder'>): StoredOptions {
    const fusion = o.fusion ?? 'weighted';
    if (fusion !== 'rrf' && fusion !== 'weighted')
      throw new KfError('bad_option', `fusion must be rrf or weighted (got ${fusion})`, 'use weighted (default) or rrf');
    const mode = o.defaultMode ?? 'hybrid+graph';
    if (!MODES.includes(mode)) throw new KfError('bad_option', `defaultMode must be one of ${MODES.join(', ')} (got ${mode})`, 'use hybrid+graph');
    const g = o.graph ?? {};
    const graph: Required<GraphExpansionOptions> = {
      anchors: g.anchors ?? 8,
      perAnchor: g.perAnchor ?? 2,
      minWeight: g.minWeight ?? 0,
      bidirectional: g.bidirectional ?? true,
      placement: g.placement ?? 'after-anchor',
    };
    if (!Number.isInteger(graph.anchors) || graph.anchors < 0 || !Number.isInteger(graph.perAnchor) || graph.perAnchor < 0) {
      throw new KfError(
        'bad_option',
        `graph.anchors and graph.perAnchor must be integers >= 0 (got ${graph.anchors}, ${graph.perAnchor})`,
        'use anchors 8, perAnchor 2',
      );
    }
    if (graph.placement !== 'after-anchor' && graph.placement !== 'append')
      throw new KfError('bad_option', `graph.placement must be after-anchor or append (got ${graph.placement})`, 'use after-anchor');
    const chars = o.context?.chars ?? 300;
    if (!Number.isInteger(chars) || chars < 0) throw new KfError('bad_option', `context.chars must be an integer >= 0 (got ${chars})`, 'use 300');
    const denseWidening = { siblingDocs: o.denseWidening?.siblingDocs ?? 3, siblingWindow: o.denseWidening?.siblingWindow ?? 64 };
    if (
      !Number.isInteger(denseWidening.siblingDocs) ||
      denseWidening.siblingDocs < 0 ||
      !Number.isInteger(denseWidening.siblingWindow) ||
      denseWidening.siblingWindow < 0
    ) {
      throw new KfError(
        'bad_option',
        `denseWidening.siblingDocs and siblingWindow must be integers >= 0 (got ${denseWidening.siblingDocs}, ${denseWidening.siblingWindow})`,
        'use 3 and 64, or 0 to switch off',
      );
    }
    const compactRatio = o.compactRatio ?? 0.3;
    if (!(compactRatio > 0 && compactRatio <= 1)) throw new KfError('bad_option', `compactRatio must be in (0, 1] (got ${compactRatio})`, 'use 0.3');
    return {
      tokenizer: new Tokenizer(o.tokenizer).options,
      hnsw: resolveHnswOptions(o.hnsw),
      fusion,
      fusionWeights: validateWeights(o.fusionWeights ?? defaultFusionWeights('')),
      rrfK: o.rrfK ?? DEFAULT_RRF_K,
      adaptiveFusion: o.adaptiveFusion ?? false,
      denseWidening,
      graph,
      context: { chars },
      defaultMode: mode,
      compactRatio,
    };
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
  graphNeighbours(k: number, emit: (fromId: string, toId: string, cosine: number) => void): void {
    const usable = (s: number) => this.frags[s] !== undefined && this.dense.isLive(s);
    knnFromLists(
      this.dense.neighbourLists(),
      k,
      (a, b) => this.dense.dotSlots(a, b),
      usable,
      (a, b, sim) => emit(this.frags[a]!.id, this.frags[b]!.id, sim),
    );
  }

  /**
   * Rough memory held per structure, bytes: BM25 (typed arrays), dense (raw
   * vectors + HNSW graph, also given apart), fragments (their text as UTF-16, an
   * upper bound on V8 strings, plus ~200 bytes of object and map overhead each)
   * and relations (edge list + both adjacency entries, ~150 bytes per edge).
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
      relations: this.relations.length * 150,
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
    if (!Array.isArray(fragments)) throw new KfError('bad_input', 'addFragments expects an array of fragments', 'pass Fragment[]');
    if (vectors && vectors.length !== fragments.length) {
      throw new KfError(
        'bad_input',
        `addFragments got ${fragments.length} fragments but ${vectors.length} vectors`,
        'pass one vector per fragment, or none to embed them',
      );
    }
    const seen = new Set<string>();
    for (const f of fragments) {
      const where = f && typeof f.id === 'string' ? `fragment ${f.id}` : 'a fragment without an id';
      if (!f || typeof f.id !== 'string' || !f.id)
        throw new KfError('bad_fragment', `${where}: id must be a non-empty string`, 'fix the fragment producer (ids are `${docId}#${ordinal}`)');
      if (typeof f.docId !== 'string' || !f.docId)
        throw new KfError('bad_fragment', `${where}: docId must be a non-empty string`, 'fix the fragment producer', { concerns: f.id });
      if (typeof f.text !== 'string') throw new KfError('bad_fragment', `${where}: text must be a string`, 'fix the fragment producer', { concerns: f.id });
      if (seen.has(f.id))
        throw new KfError('duplicate_fragment', `fragment ${f.id} appears twice in one addFragments call`, 'deduplicate fragment ids (same input -> same id)', {
          concerns: f.id,
        });
      seen.add(f.id);
    }
    const texts = fragments.map((f) => this.indexText(f));
    const vecs = vectors ?? (await this.embedTexts(texts));
    vecs.forEach((v, i) => this.checkVector(v, `fragment ${fragments[i].id}`));
    // Replacing: drop the old version first (same id -> new content).
    for (const f of fragments) {
      const old = this.idToSlot.get(f.id);
      if (old !== undefined) this.removeSlot(old);
    }
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
      this.frags.push(f);
      this.idToSlot.set(f.id, slot);
      const l = this.docSlots.get(f.docId);
      if (l) l.push(slot);
      else this.docSlots.set(f.docId, [slot]);
      this.liveCount++;
    }
  }

  private removeSlot(slot: number): void {
    const f = this.frags[slot];
    if (!f) return;
    this.bm25.remove(slot);
    this.dense.remove(slot);
    this.frags[slot] = undefined;
    this.idToSlot.delete(f.id);
    const l = this.docSlots.get(f.docId);
    if (l) {
      const rest = l.filter((s) => s !== slot);
      if (rest.length) this.docSlots.set(f.docId, rest);
      else this.docSlots.delete(f.docId);
    }
    this.liveCount--;
  }

  /** Remove every fragment of these documents (unknown ids are ignored). Returns the number of fragments removed. */
  removeDocuments(docIds: string[]): number {
    let n = 0;
    for (const d of docIds) {
      for (const s of [...(this.docSlots.get(d) ?? [])]) {
        this.removeSlot(s);
        n++;
      }
    }
    return n;
  }

  /**
   * Replace the relation edges used by graph expansion (fragment ids). Edges
   * naming fragments not (yet) in the index are kept and simply never fire until
   * both ends exist. Returns how many edges currently connect live fragments.
   */
  setRelations(edges: RelationEdge[]): number {
    const list: RelationEdge[] = [];
    const adj = new Map<string, Adjacent[]>();
    const push = (from: string, a: Adjacent) => {
      const l = adj.get(from);
      if (l) l.push(a);
      else adj.set(from, [a]);
    };
    for (const e of edges) {
      if (!e || typeof e.from !== 'string' || typeof e.to !== 'string' || e.from === e.to) continue;
      const weight = Number.isFinite(e.weight) ? e.weight : 0;
      const type = typeof e.type === 'string' && e.type ? e.type : 'related';
      list.push({ from: e.from, to: e.to, type, weight });
      push(e.from, { to: e.to, type, weight });
      if (this.opts.graph.bidirectional) push(e.to, { to: e.from, type, weight });
    }
    // Strongest first, ties by id: expansion order is deterministic.
    for (const l of adj.values()) l.sort((a, b) => b.weight - a.weight || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
    this.relations = list;
    this.adjacency = adj;
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
    this.wideningMs = 0;
    const den = qv ? this.denseCandidates(qv, depth, mask, mode === 'dense' ? null : lex.slots) : EMPTY_LIST;
    if (qv) {
      t.hnswMs = now() - t3;
      t.wideningMs = this.wideningMs;
    }

    // 4. Fusion (or a single list).
    const t4 = now();
    const primary = this.rankLists(mode, lex, den, { qv, bq, fusion: opts.fusion ?? this.opts.fusion })
      .filter((r) => this.frags[r.slot] !== undefined)
      .slice(0, topk);
    t.fusionMs = now() - t4;

    // 5. One-hop expansion of the top anchors along relations.
    const t5 = now();
    const listed: Listed[] =
      mode !== 'hybrid+graph'
        ? primary
        : expandAlongRelations(primary, {
            adjacency: this.adjacency,
            slotOf: (id) => this.idToSlot.get(id),
            idAt: (slot) => this.frags[slot]!.id,
            mask,
            options: this.opts.graph,
          });
    t.expansionMs = now() - t5;

    // 6. Hits with context and media.
    const t6 = now();
    const withContext = opts.withContext ?? true;
    const hits: SearchHit[] = listed.map((r, i) => this.makeHit(r, i + 1, withContext));
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

  /** Dense candidates scored by exact cosine: exact over a small docIds filter, else HNSW widened (widenDense). */
  private denseCandidates(qv: Float32Array, depth: number, mask: Uint8Array | null, lexical: Int32Array | null): ScoredList {
    if (mask) {
      const allowed: number[] = [];
      for (let s = 0; s < mask.length; s++) if (mask[s]) allowed.push(s);
      if (allowed.length <= Math.max(2000, depth * 20)) return this.dense.exactSearch(qv, depth, null, allowed);
      return this.widenDense(qv, this.dense.search(qv, depth, mask), lexical, depth, mask);
    }
    return this.widenDense(qv, this.dense.search(qv, depth), lexical, depth, mask);
  }

  /** The primary ranking: one list (bm25, dense), or both fused with every candidate's missing score completed exactly. */
  private rankLists(mode: RetrievalMode, lex: ScoredList, den: ScoredList, x: { qv?: Float32Array; bq?: Bm25Query; fusion: FusionMethod }): Ranked[] {
    if (mode === 'bm25') return Array.from(lex.slots, (s, i) => ({ slot: s, score: lex.scores[i], bm25: lex.scores[i], via: 'bm25' as const }));
    if (mode === 'dense') return Array.from(den.slots, (s, i) => ({ slot: s, score: den.scores[i], dense: den.scores[i], via: 'dense' as const }));
    const byId = new Map<number, FusionCandidate>();
    lex.slots.forEach((s, i) => byId.set(s, { id: s, bm25: lex.scores[i], dense: NaN, bm25Rank: i + 1, denseRank: Infinity }));
    den.slots.forEach((s, i) => {
      const c = byId.get(s);
      if (c) {
        c.dense = den.scores[i];
        c.denseRank = i + 1;
      } else byId.set(s, { id: s, bm25: NaN, dense: den.scores[i], bm25Rank: Infinity, denseRank: i + 1 });
    });
    // Complete each candidate's missing score exactly: no imputed zeros.
    for (const c of byId.values()) {
      if (Number.isNaN(c.dense)) c.dense = x.qv ? this.dense.dot(x.qv, c.id) : 0;
      if (Number.isNaN(c.bm25)) c.bm25 = x.bq ? this.bm25.scoreSlot(x.bq, c.id) : 0;
    }
    const fused = fuse([...byId.values()], { method: x.fusion, weights: this.opts.fusionWeights, rrfK: this.opts.rrfK, adaptive: this.opts.adaptiveFusion });
    return fused.map(({ cand, fused: f }) => ({ slot: cand.id, score: f, bm25: cand.bm25, dense: cand.dense, fused: f, via: 'hybrid' as const }));
  }

  /**
   * The dense stage's candidate generation beyond the HNSW beam. On corpora
   * where each document's fragments form a tight cluster (one entity per
   * document), a query that mixes two entities ("the population of the city
   * where the maker of the Kosse M36 is based") pulls HNSW's greedy descent
   * toward the wrong cluster: on the 200K demo world pure HNSW finds 0.89 of
   * the exact top-8 at efSearch 128. Two cheap, exact additions close the gap
   * (0.999 measured): the lexical top candidates (hybrid modes only; a dense-only
   * search stays purely dense) and the reading-order neighbours of the best
   * documents' hits. Every candidate is scored by its exact cosine, so the
   * result can only get closer to exact search.
   */
  private widenDense(
    qv: Float32Array,
    hnsw: { slots: Int32Array; scores: Float64Array },
    lexical: Int32Array | null,
    depth: number,
    mask: Uint8Array | null,
  ): { slots: Int32Array; scores: Float64Array } {
    const t0 = now();
    const out = this.widenDenseUntimed(qv, hnsw, lexical, depth, mask);
    this.wideningMs += now() - t0;
    return out;
  }

  private widenDenseUntimed(
    qv: Float32Array,
    hnsw: { slots: Int32Array; scores: Float64Array },
    lexical: Int32Array | null,
    depth: number,
    mask: Uint8Array | null,
  ): { slots: Int32Array; scores: Float64Array } {
    const { siblingDocs, siblingWindow } = this.opts.denseWidening;
    if (siblingDocs <= 0 && !lexical) return hnsw;
    const score = new Map<number, number>();
    hnsw.slots.forEach((s, i) => score.set(s, hnsw.scores[i]));
    if (lexical) for (const s of lexical) if (!score.has(s)) score.set(s, this.dense.dot(qv, s));
    if (siblingDocs > 0 && siblingWindow > 0) {
      const best = [...score.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      const docsSeen = new Set<string>();
      for (const [slot] of best) {
        if (docsSeen.size >= siblingDocs) break;
        const f = this.frags[slot];
        if (!f || docsSeen.has(f.docId)) continue;
        docsSeen.add(f.docId);
        const list = this.docSlots.get(f.docId) ?? [];
        const at = list.indexOf(slot);
        for (let i = Math.max(0, at - siblingWindow); i <= Math.min(list.length - 1, at + siblingWindow); i++) {
          const s = list[i];
          if (!score.has(s) && (!mask || mask[s])) score.set(s, this.dense.dot(qv, s));
        }
      }
    }
    const ranked = [...score.entries()]
      .filter(([s]) => this.dense.isLive(s))
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, depth);
    return { slots: Int32Array.from(ranked.map((r) => r[0])), scores: Float64Array.from(ranked.map((r) => r[1])) };
  }

  private makeHit(
    r: { slot: number; score: number; bm25?: number; dense?: number; fused?: number; via: SearchHit['via']; anchorId?: string; relation?: string },
    rank: number,
    withContext: boolean,
  ): SearchHit {
    const f = this.frags[r.slot]!;
    const scores: SearchHit['scores'] = {};
    if (r.bm25 !== undefined) scores.bm25 = r.bm25;
    if (r.dense !== undefined) scores.dense = r.dense;
    if (r.fused !== undefined) scores.fused = r.fused;
    const hit: SearchHit = {
      fragmentId: f.id,
      docId: f.docId,
      kind: f.kind,
      rank,
      score: r.score,
      scores,
      via: r.via,
      text: f.text,
      page: f.page,
      section: f.section ?? [],
      media: [],
    };
    if (r.anchorId !== undefined) {
      hit.anchorId = r.anchorId;
      hit.relation = r.relation;
    }
    if (withContext) {
      const n = this.opts.context.chars;
      const prev = f.prev ? this.fragment(f.prev) : undefined;
      const next = f.next ? this.fragment(f.next) : undefined;
      if (n > 0 && (prev || next)) {
        hit.context = {};
        if (prev) hit.context.prev = trimContext(prev.text, n, true);
        if (next) hit.context.next = trimContext(next.text, n);
      }
      if (f.kind === 'text' || f.kind === 'example') {
        for (const id of f.attached ?? []) {
          const m = this.fragment(id);
          if (m) hit.media.push({ fragmentId: m.id, kind: m.kind, label: m.label, caption: m.caption, asset: m.media });
        }
      } else {
        hit.media.push({ fragmentId: f.id, kind: f.kind, label: f.label, caption: f.caption, asset: f.media });
      }
    }
    return hit;
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
    const den = this.widenDense(qv, this.dense.search(qv, depth), lex, depth, null);
    return Array.from(den.slots.slice(0, k), (s) => this.frags[s]!.id);
  }

  /** The default query-time options (what create() uses when none are given; fusion weights depend on the embedder). */
  static defaultQueryOptions(): {
    denseWidening: { siblingDocs: number; siblingWindow: number };
    graph: Required<GraphExpansionOptions>;
    context: Required<ContextOptions>;
    fusion: FusionMethod;
    rrfK: number;
    adaptiveFusion: boolean;
    defaultMode: RetrievalMode;
  } {
    const d = SearchEngine.resolveOptions({});
    return {
      denseWidening: d.denseWidening,
      graph: d.graph,
      context: d.context,
      fusion: d.fusion,
      rrfK: d.rrfK,
      adaptiveFusion: d.adaptiveFusion,
      defaultMode: d.defaultMode,
    };
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
    const next = SearchEngine.resolveOptions({
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
      this.frags.push(f);
      this.idToSlot.set(f.id, slot);
      const l = this.docSlots.get(f.docId);
      if (l) l.push(slot);
      else this.docSlots.set(f.docId, [slot]);
      this.liveCount++;
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
    const nextGen = nextGeneration(root, readPointer(root));
    const tmp = path.join(root, `.${nextGen}.tmp-${process.pid}-${Date.now()}`);
    try {
      fs.mkdirSync(tmp, { recursive: true });
      this.writeGenerationFiles(tmp, step);
      fsyncDir(tmp);

      step('rename');
      const finalDir = path.join(root, nextGen);
      fs.rmSync(finalDir, { recursive: true, force: true });
      fs.renameSync(tmp, finalDir);
      fsyncDir(root);

      step('pointer');
      writeFileAtomic(path.join(root, 'CURRENT'), nextGen + '\n');
      fsyncDir(root);
    } catch (e) {
      try {
        fs.rmSync(tmp, { recursive: true, force: true });
      } catch {
        /* best effort: a stray temp folder is cleaned by the next save */
      }
      if (e instanceof KfError) throw e;
      throw fsError(e, root, 'save the index into');
    }
    // The new generation is live: remove older ones and stray temporaries (best effort).
    removeOtherGenerations(root, nextGen);
  }

  /** Every file of one generation, fsynced, written into `tmp`; the manifest (with their sizes) last. */
  private writeGenerationFiles(tmp: string, step: SaveStepHook): void {
    const files: Record<string, number> = {};
    const write = (name: string, data: string | Buffer) => {
      writeSynced(path.join(tmp, name), data);
      files[name] = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    };
    step('fragments');
    write('fragments.jsonl', this.frags.map((f) => (f ? JSON.stringify(f) : 'null')).join('\n') + '\n');

    step('bm25');
    const st = this.bm25.exportState();
    write('bm25.json', JSON.stringify({ options: st.options, nSlots: st.nSlots, terms: st.terms, keys: st.keys }));
    write('bm25.bin', packArrays([st.fwdOff, st.fwdTerm, st.fwdTf, st.docLen, st.live]));

    step('dense');
    this.dense.save(path.join(tmp, 'dense.hnsw'), path.join(tmp, 'dense.vectors.bin'));
    for (const name of ['dense.hnsw', 'dense.vectors.bin']) {
      fsyncFile(path.join(tmp, name));
      files[name] = fs.statSync(path.join(tmp, name)).size;
    }
    write('dense.live.bin', Buffer.from(this.dense.liveStates()));

    step('relations');
    write('relations.json', JSON.stringify(this.relations));

    step('embedder');
    const persisted = saveEmbedderState(this.embedder, tmp);

    step('manifest');
    const manifest: Manifest = {
      format: INDEX_FORMAT,
      createdAt: new Date().toISOString(),
      embedder: { id: this.embedder.id, dim: this.embedder.dim, persisted },
      options: this.opts,
      bm25: { options: st.options, nSlots: st.nSlots, nTerms: st.terms.length, nPostings: st.fwdTerm.length },
      slots: this.frags.length,
      liveFragments: this.liveCount,
      documents: this.docSlots.size,
      relations: this.relations.length,
      files,
    };
    write('manifest.json', JSON.stringify(manifest, null, 2) + '\n');
  }

  /** Fill the slots from fragments.jsonl lines ('null' = a removed fragment's slot). */
  private restoreFragments(lines: string[], slots: number, gen: string): void {
    for (let s = 0; s < slots; s++) {
      const line = lines[s];
      if (line === undefined)
        throw new KfError('index_corrupt', `fragments.jsonl in ${gen} ends early (slot ${s} of ${slots})`, 'rebuild the index', { concerns: gen });
      const f = line === 'null' ? undefined : (JSON.parse(line) as Fragment);
      this.frags.push(f);
      if (!f) continue;
      this.idToSlot.set(f.id, s);
      const l = this.docSlots.get(f.docId);
      if (l) l.push(s);
      else this.docSlots.set(f.docId, [s]);
      this.liveCount++;
    }
  }

  /** True when `dir` holds a saved index. */
  static exists(dir: string): boolean {
    const cur = readPointer(path.resolve(dir));
    return !!cur && fs.existsSync(path.join(dir, cur, 'manifest.json'));
  }

  /**
   * Load an index saved by save(). `embedder` may be omitted when the index's
   * embedder can be restored offline (corpus-fitted, hash-N, glove-sif-100d);
   * when given, its id must match the one the index was built with.
   */
  static async load(dir: string, embedder?: Embedder, overrides: { indexText?: (f: Fragment) => string } = {}): Promise<SearchEngine> {
    const root = path.resolve(dir);
    const cur = readPointer(root);
    if (!cur)
      throw new KfError('index_missing', `no index in ${root} (no CURRENT file)`, 'build it first (kf index build) or check the path', { concerns: root });
    const gen = path.join(root, cur);
    const { read, parse } = generationReader(gen);
    const m = parse<Manifest>('manifest.json');
    if (m.format !== INDEX_FORMAT)
      throw new KfError('index_format', `index in ${gen} has format ${m.format}, this harness reads ${INDEX_FORMAT}`, 'rebuild the index with this version', {
        concerns: gen,
      });
    checkFileSizes(gen, m.files);
    const emb = embedder ?? restoreEmbedder(gen, m.embedder.id);
    if (emb.id !== m.embedder.id || emb.dim !== m.embedder.dim) {
      throw new KfError(
        'embedder_mismatch',
        `index in ${root} was built with embedder ${m.embedder.id} (${m.embedder.dim}-d), got ${emb.id} (${emb.dim}-d)`,
        'pass the same embedder, or rebuild the index with this one',
        { concerns: root },
      );
    }
    const bj = parse<{ options: Bm25State['options']; nSlots: number; terms: string[]; keys: string[] }>('bm25.json');
    const [fwdOff, fwdTerm, fwdTf, docLen, live] = unpackArrays(read('bm25.bin'), ['i32', 'i32', 'u16', 'i32', 'u8']) as [
      Int32Array,
      Int32Array,
      Uint16Array,
      Int32Array,
      Uint8Array,
    ];
    const bm25 = Bm25Index.fromState({ options: bj.options, terms: bj.terms, keys: bj.keys, nSlots: bj.nSlots, fwdOff, fwdTerm, fwdTf, docLen, live });
    const denseLive = new Uint8Array(read('dense.live.bin'));
    if (denseLive.length !== m.slots || bj.nSlots !== m.slots)
      throw new KfError('index_corrupt', `index in ${gen} has inconsistent slot counts`, 'rebuild the index (kf index build)', { concerns: gen });
    const dense = DenseIndex.load(path.join(gen, 'dense.hnsw'), path.join(gen, 'dense.vectors.bin'), m.embedder.dim, m.options.hnsw, denseLive);
    // Options pass through validation again: older manifests get defaults for switches added since.
    const engine = new SearchEngine(
      emb,
      SearchEngine.resolveOptions(m.options as unknown as Omit<EngineOptions, 'embedder'>),
      bm25,
      dense,
      overrides.indexText,
    );
    engine.restoreFragments(read('fragments.jsonl').toString('utf8').split('\n'), m.slots, gen);
    engine.setRelations(parse<RelationEdge[]>('relations.json'));
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
