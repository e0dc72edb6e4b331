/**
 * Retrieval-round benchmark (`kf bench retrieval`): builds the demo world scaled
 * to N fragments, indexes it, and times search rounds stage by stage.
 *
 * What is timed: one round = BM25 + HNSW + fusion + one-hop expansion + context
 * (the paper's "0.12 s per round" minus the query embedding). Query vectors are
 * computed beforehand, in one batch, and passed as `queryVector`, so the round
 * time is the index's own cost; the embedding cost is reported separately per
 * query. Also: HNSW recall@8 against exact search, build time per step
 * (bench-build.ts, with each stage's cost), memory (RSS, peak RSS, estimates per
 * structure), the growth curve over the sizes of a sweep, and on request the
 * overlap of the two similarity-edge methods. Text form: bench-format.ts.
 */
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Fragment } from '../corpus/types';
import type { RetrievalMode } from './types';
import type { SearchEngine, EngineOptions } from './engine';
import type { OfflineEmbedderName } from './embedders/registry';
import { resolveHnswOptions, autoEfSearch } from './dense';
import { demoFragments } from '../demo/fragments';
import { KfError } from '../util/errors';
import { makeRng } from '../util/rng';
import { percentile } from '../util/percentile';
import { buildBenchEngine, compareEdgeMethods, loadCachedEngine, type BuildFigures, type EdgeComparison, type EdgesMethod } from './bench-build';
import { StagePeaks } from './peak-rss';
import { loadedGloveBytes } from './embedders/glove-table';

export interface RetrievalBenchOptions {
  /** Corpus sizes to run, in order (e.g. [4800, 200000]). */
  sizes: number[];
  /** Timed queries per size (default 300). */
  queries?: number;
  seed?: string | number;
  embedder?: OfflineEmbedderName;
  mode?: RetrievalMode;
  topk?: number;
  /** kNN similarity edges per fragment for graph expansion (default 3; 0 = no relations). */
  edgesK?: number;
  edgesThreshold?: number;
  /** How similarity edges are found (default 'graph': the HNSW graph's own lists; 'search': one query per fragment). */
  edgesMethod?: EdgesMethod;
  /** Also run the other edge method on the same engine and report the overlap (default false). */
  compareEdges?: boolean;
  /** Compare edge methods only at sizes up to this many fragments (default: every size); 'search' costs one query per fragment. */
  compareEdgesMax?: number;
  /** efSearch values at which pure HNSW recall@8 and search time are also measured on the built index (default none). */
  efSweep?: number[];
  /** Queries used to measure HNSW recall@8 vs exact search (default 200). */
  recallQueries?: number;
  engine?: Omit<EngineOptions, 'embedder'>;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
  /**
   * Keep built indexes here (one folder per size/seed/embedder/HNSW setting) and
   * load them on the next run instead of rebuilding: the build figures are then
   * those recorded when the index was built, and loadMs says how long loading took.
   */
  cacheDir?: string;
}

export interface StageStats {
  p50: number;
  p90: number;
  mean: number;
}

export interface SizeReport {
  fragments: number;
  documents: number;
  queries: number;
  embedder: string;
  dim: number;
  mode: RetrievalMode;
  build: BuildFigures;
  /** The other edge method's edges against this build's (with compareEdges). */
  edgeComparison?: EdgeComparison;
  /** Pure HNSW recall@8 and time per top-8 search (p50) at each efSweep value, on the same index and queries. */
  efSweep?: { efSearch: number; hnswRecallAt8: number; hnswP50Ms: number; denseStageRecallAt8: number; roundP50Ms: number }[];
  /** HNSW efSearch the timed searches used (the automatic value when none was set). */
  efSearch: number;
  /** Per-query embedding cost, measured on the batch (not part of the round). */
  queryEmbedMsPerQuery: number;
  /** Search side per stage; wideningMs is the part of hnswMs spent on lexical seeds and document siblings. */
  stages: Record<'bm25Ms' | 'hnswMs' | 'wideningMs' | 'fusionMs' | 'expansionMs' | 'contextMs' | 'roundMs', StageStats>;
  hitsPerQuery: number;
  /** Recall@8 of the graph alone: pure HNSW top-8 (efSearch as configured) vs exact dense search. */
  hnswRecallAt8: number;
  /**
   * Recall@8 of the dense stage as searches run it (HNSW candidates at the search depth,
   * re-scored with lexical seeds and document siblings by exact cosine; dense-stage.ts)
   * vs exact dense search: the recall the retrieval round actually gets.
   */
  denseStageRecallAt8: number;
  /**
   * Process memory after the searches, the peak RSS of this size (build + searches;
   * Linux resets it per size and per stage), and per structure (engine.indexMemoryBytes;
   * exact, computed or estimated as structureSizesHow says).
   */
  memory: {
    rssMB: number;
    /** The highest of the stage peaks (and the RSS at the end). */
    peakRssMB: number;
    /**
     * Peak RSS of each stage in order (generate, fit, embed+index, edges, save or
     * load, compare edges, searches): its own high-water mark when stagePeaksReset,
     * else the running peak of the process.
     */
    stagePeakRssMB?: Record<string, number>;
    stagePeaksReset?: boolean;
    heapUsedMB: number;
    externalMB: number;
    arrayBuffersMB: number;
    bm25IndexMB: number;
    denseIndexMB: number;
    denseVectorsMB: number;
    hnswGraphMB: number;
    gloveTableMB?: number;
    fragmentsMB: number;
    relationsMB: number;
    /** How each per-structure figure was obtained (STRUCTURE_SIZES_HOW). */
    structureSizesHow?: Record<string, string>;
  };
}

/** One point of the growth curve (one size of the sweep). */
export interface GrowthPoint {
  fragments: number;
  buildS: number;
  bm25BuildS: number | null;
  hnswBuildS: number | null;
  edgesS: number;
  roundP50Ms: number;
  roundP90Ms: number;
  hnswP50Ms: number;
  bm25P50Ms: number;
  /** Pure graph recall@8 vs exact (SizeReport.hnswRecallAt8). */
  hnswRecallAt8: number;
  /** Dense-stage recall@8 vs exact (SizeReport.denseStageRecallAt8). */
  denseStageRecallAt8: number;
  efSearch: number;
  peakRssMB: number;
}

export interface RetrievalBenchReport {
  config: Required<Omit<RetrievalBenchOptions, 'progress' | 'engine' | 'cacheDir'>> & { engine: Omit<EngineOptions, 'embedder'>; cacheDir?: string };
  sizes: SizeReport[];
  /** p50 round time of the largest size over the smallest (target <= 1.25 for 42x more corpus). */
  growth?: { from: number; to: number; corpusRatio: number; roundP50Ratio: number };
  /** Every size's build time, round time, recall and peak memory, in sweep order. */
  curve: GrowthPoint[];
  /** What each recall figure of the report measures (written into the JSON so a reader of it needs no source). */
  recallMeasures: typeof RECALL_MEASURES;
  node: string;
}

const RECALL_MEASURES = {
  hnswRecallAt8: 'pure graph: share of the exact dense top-8 that an HNSW top-8 search alone returns (efSearch as reported)',
  denseStageRecallAt8:
    "dense stage as searches run it: share of the exact dense top-8 among the top-8 of HNSW candidates (search depth) plus lexical seeds and document siblings, all re-scored by exact cosine; the seeds come from BM25, so the widening helps where query and passages share words, and without shared words the figure falls toward the pure graph's (plus siblings)",
} as const;

function stats(xs: number[]): StageStats {
  return { p50: percentile(xs, 0.5) ?? NaN, p90: percentile(xs, 0.9) ?? NaN, mean: xs.reduce((a, b) => a + b, 0) / (xs.length || 1) };
}

const MB = 1024 * 1024;

/** Questions of the demo world, cycled (with a suffix-free repeat) to `n` queries, in a seeded order. */
function queryTexts(questions: string[], n: number, seed: string | number): string[] {
  const rng = makeRng(`${seed}/bench-queries`);
  const pool = rng.shuffle(questions.slice());
  return Array.from({ length: n }, (_, i) => pool[i % pool.length]);
}

type BenchOneOptions = Required<Omit<RetrievalBenchOptions, 'progress' | 'engine' | 'sizes' | 'cacheDir'>> & {
  engine: Omit<EngineOptions, 'embedder'>;
  cacheDir?: string;
  progress: (l: string) => void;
  sizeLabel: string;
};

/** Time every query's search (after a warm-up: JIT, postings built lazily on the first search). */
async function timeSearches(
  engine: SearchEngine,
  queries: string[],
  qvecs: Float32Array[],
  o: BenchOneOptions,
): Promise<{ per: Record<string, number[]>; hits: number }> {
  for (let i = 0; i < Math.min(20, queries.length); i++) await engine.search(queries[i], { mode: o.mode, topk: o.topk, queryVector: qvecs[i] });
  const per: Record<string, number[]> = { bm25Ms: [], hnswMs: [], wideningMs: [], fusionMs: [], expansionMs: [], contextMs: [], roundMs: [] };
  let hits = 0;
  for (let i = 0; i < queries.length; i++) {
    const r = await engine.search(queries[i], { mode: o.mode, topk: o.topk, queryVector: qvecs[i] });
    for (const k of Object.keys(per)) per[k].push(r.timings[k as keyof typeof r.timings] ?? 0);
    hits += r.hits.length;
  }
  return { per, hits };
}

/** HNSW recall@8 (and the dense stage's) against exact search. */
function denseRecall(engine: SearchEngine, queries: string[], qvecs: Float32Array[], o: BenchOneOptions): { hnsw: number; stage: number } {
  const rq = Math.min(o.recallQueries, queries.length);
  let found = 0,
    foundStage = 0,
    total = 0;
  for (let i = 0; i < rq; i++) {
    const exact = engine.exactDense(qvecs[i], 8);
    const approx = new Set(engine.approxDense(qvecs[i], 8));
    const stage = new Set(engine.denseStage(o.mode === 'dense' ? null : queries[i], qvecs[i], 8));
    for (const id of exact) {
      if (approx.has(id)) found++;
      if (stage.has(id)) foundStage++;
    }
    total += exact.length;
  }
  return { hnsw: total ? found / total : NaN, stage: total ? foundStage / total : NaN };
}

/**
 * At each efSearch of the sweep (the index's own setting restored afterwards):
 * pure HNSW recall@8 and the p50 time of one top-8 graph search, the recall of
 * the dense stage as searches run it (HNSW + widening), and the round p50 of
 * the timed mode over the recall queries. O(|sweep| * recall queries).
 */
async function efSweep(engine: SearchEngine, queries: string[], qvecs: Float32Array[], o: BenchOneOptions): Promise<SizeReport['efSweep']> {
  if (!o.efSweep.length) return undefined;
  const rq = Math.min(o.recallQueries, qvecs.length);
  const exact = qvecs.slice(0, rq).map((q) => engine.exactDense(q, 8));
  const before = resolveHnswOptions(o.engine.hnsw).efSearch;
  const out: NonNullable<SizeReport['efSweep']> = [];
  for (const ef of o.efSweep) {
    engine.setEfSearch(ef);
    let found = 0,
      foundStage = 0,
      total = 0;
    const ms: number[] = [];
    const round: number[] = [];
    for (let i = 0; i < rq; i++) {
      const t = performance.now();
      const approx = new Set(engine.approxDense(qvecs[i], 8));
      ms.push(performance.now() - t);
      const stage = new Set(engine.denseStage(o.mode === 'dense' ? null : queries[i], qvecs[i], 8));
      for (const id of exact[i]) {
        if (approx.has(id)) found++;
        if (stage.has(id)) foundStage++;
      }
      total += exact[i].length;
      round.push((await engine.search(queries[i], { mode: o.mode, topk: o.topk, queryVector: qvecs[i] })).timings.roundMs);
    }
    const e = {
      efSearch: ef,
      hnswRecallAt8: total ? found / total : NaN,
      hnswP50Ms: percentile(ms, 0.5) ?? NaN,
      denseStageRecallAt8: total ? foundStage / total : NaN,
      roundP50Ms: percentile(round, 0.5) ?? NaN,
    };
    o.progress(
      `[${o.sizeLabel}] efSearch ${ef}: HNSW recall@8 ${e.hnswRecallAt8.toFixed(4)} (graph search p50 ${e.hnswP50Ms.toFixed(3)} ms), dense stage ${e.denseStageRecallAt8.toFixed(4)}, round p50 ${e.roundP50Ms.toFixed(3)} ms`,
    );
    out.push(e);
  }
  engine.setEfSearch(before);
  return out;
}

/** How each per-structure figure is obtained (written into the report beside the figures). */
export const STRUCTURE_SIZES_HOW: Record<string, string> = {
  bm25IndexMB: 'exact: byteLength of the BM25 typed arrays (forward and inverted index, scratch); vocabulary strings not counted',
  denseVectorsMB: 'exact: byteLength of the raw vector matrix and slot states as allocated (capacity doubles; rows never written are not resident)',
  hnswGraphMB: "computed: hnswlib's bottom-layer allocation (capacity x record size; records never written are not resident) plus the expected upper layers",
  gloveTableMB: 'exact: byteLength of the GloVe vectors and ranks the offline encoder holds (word map not counted); 0 when not loaded',
  fragmentsMB: 'estimate: text as UTF-16 plus ~200 bytes of object and map overhead per fragment',
  relationsMB: 'estimate: ~88 bytes per edge (edge objects, measured once with --expose-gc) plus ~40 per fragment with relations (adjacency rows)',
};

/** The memory figures of one size (MB): process, peak (overall and per stage), and per structure. */
function memoryFigures(engine: SearchEngine, peaks: StagePeaks): SizeReport['memory'] {
  peaks.mark('searches');
  const mem = process.memoryUsage();
  const im = engine.indexMemoryBytes();
  return {
    rssMB: mem.rss / MB,
    peakRssMB: Math.max(...Object.values(peaks.mb), mem.rss / MB),
    stagePeakRssMB: { ...peaks.mb },
    stagePeaksReset: peaks.resettable,
    heapUsedMB: mem.heapUsed / MB,
    externalMB: mem.external / MB,
    arrayBuffersMB: mem.arrayBuffers / MB,
    bm25IndexMB: im.bm25 / MB,
    denseIndexMB: im.dense / MB,
    denseVectorsMB: im.denseVectors / MB,
    hnswGraphMB: im.hnswGraph / MB,
    gloveTableMB: loadedGloveBytes() / MB,
    fragmentsMB: im.fragments / MB,
    relationsMB: im.relations / MB,
    structureSizesHow: STRUCTURE_SIZES_HOW,
  };
}

/** The build of one size: from the cache when there, else built (and cached); the other edge method compared on request. */
async function engineFor(n: number, fragments: Fragment[], o: BenchOneOptions, t0: number, generateMs: number, peaks: StagePeaks) {
  const h = resolveHnswOptions(o.engine.hnsw);
  const method = o.edgesMethod === 'graph' ? '' : `-${o.edgesMethod}`;
  const key = `n${n}-s${String(o.seed).replace(/[^A-Za-z0-9_-]/g, '_')}-${o.embedder}-k${o.edgesK}${method}-M${h.M}-efc${h.efConstruction}`;
  const cached = o.cacheDir ? path.join(o.cacheDir, key) : undefined;
  const settings = { ...o, say: (l: string) => o.progress(`[${o.sizeLabel}] ${l}`) };
  const loaded = await loadCachedEngine(cached, settings);
  if (loaded) peaks.mark('load');
  const built = loaded ?? (await buildBenchEngine(fragments, settings, cached, t0, generateMs, peaks));
  const compare = o.compareEdges && o.edgesK > 0 && n <= o.compareEdgesMax;
  const edgeComparison = compare ? compareEdgeMethods(built.engine, settings) : undefined;
  if (edgeComparison) peaks.mark('compare edges');
  return { ...built, edgeComparison };
}

async function benchOne(n: number, opts: Omit<BenchOneOptions, 'sizeLabel'>): Promise<SizeReport> {
  const o: BenchOneOptions = { ...opts, sizeLabel: String(n) };
  const say = o.progress;
  const peaks = new StagePeaks();
  const t0 = performance.now();
  const demo = demoFragments({ fragments: n, seed: o.seed });
  const fragments: Fragment[] = demo.fragments;
  const generateMs = performance.now() - t0;
  say(
    `[${n}] demo world: ${fragments.length} fragments, ${demo.documents.length} documents, ${demo.questions.length} questions (${(generateMs / 1000).toFixed(1)} s)`,
  );
  peaks.mark('generate');
  const { engine, build, edgeComparison } = await engineFor(n, fragments, o, t0, generateMs, peaks);
  const embedder = engine.embedder;
  const queries = queryTexts(
    demo.questions.map((q) => q.question),
    o.queries,
    o.seed,
  );
  await embedder.embed([queries[0] ?? '']); // load lazily held assets (GloVe) outside the timing
  const t5 = performance.now();
  const qvecs = await embedder.embed(queries);
  const queryEmbedMsPerQuery = (performance.now() - t5) / queries.length;
  const { per, hits } = await timeSearches(engine, queries, qvecs, o);
  const recall = denseRecall(engine, queries, qvecs, o);
  const sweep = await efSweep(engine, queries, qvecs, o);
  const ef = resolveHnswOptions(o.engine.hnsw).efSearch;
  const report: SizeReport = {
    fragments: fragments.length,
    documents: demo.documents.length,
    queries: queries.length,
    embedder: embedder.id,
    dim: embedder.dim,
    mode: o.mode,
    build,
    ...(edgeComparison ? { edgeComparison } : {}),
    ...(sweep ? { efSweep: sweep } : {}),
    efSearch: ef > 0 ? ef : autoEfSearch(engine.size),
    queryEmbedMsPerQuery,
    stages: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, stats(v)])) as SizeReport['stages'],
    hitsPerQuery: hits / queries.length,
    hnswRecallAt8: recall.hnsw,
    denseStageRecallAt8: recall.stage,
    memory: memoryFigures(engine, peaks),
  };
  say(
    `[${n}] round p50 ${report.stages.roundMs.p50.toFixed(2)} ms, p90 ${report.stages.roundMs.p90.toFixed(2)} ms; HNSW recall@8 ${report.hnswRecallAt8.toFixed(3)} (dense stage ${report.denseStageRecallAt8.toFixed(3)}); RSS ${report.memory.rssMB.toFixed(0)} MB (peak ${report.memory.peakRssMB.toFixed(0)} MB)`,
  );
  return report;
}

/** The growth curve: one point per size, in sweep order. */
export function growthCurve(sizes: readonly SizeReport[]): GrowthPoint[] {
  return sizes.map((s) => ({
    fragments: s.fragments,
    buildS: s.build.totalMs / 1000,
    bm25BuildS: s.build.bm25Ms === undefined ? null : s.build.bm25Ms / 1000,
    hnswBuildS: s.build.hnswMs === undefined ? null : s.build.hnswMs / 1000,
    edgesS: s.build.edgesMs / 1000,
    roundP50Ms: s.stages.roundMs.p50,
    roundP90Ms: s.stages.roundMs.p90,
    hnswP50Ms: s.stages.hnswMs.p50,
    bm25P50Ms: s.stages.bm25Ms.p50,
    hnswRecallAt8: s.hnswRecallAt8,
    denseStageRecallAt8: s.denseStageRecallAt8,
    efSearch: s.efSearch,
    peakRssMB: s.memory.peakRssMB,
  }));
}

function resolveConfig(opts: RetrievalBenchOptions): RetrievalBenchReport['config'] {
  if (!opts.sizes.length || opts.sizes.some((s) => !Number.isInteger(s) || s < 1)) {
    throw new KfError('bad_option', `fragment sizes must be positive integers (got ${opts.sizes.join(',')})`, 'pass e.g. --fragments 4800,200000');
  }
  const config = {
    sizes: opts.sizes,
    queries: opts.queries ?? 300,
    seed: opts.seed ?? 'kf-demo',
    embedder: opts.embedder ?? 'corpus-fitted',
    mode: opts.mode ?? 'hybrid+graph',
    topk: opts.topk ?? 8,
    edgesK: opts.edgesK ?? 3,
    edgesThreshold: opts.edgesThreshold ?? 0.5,
    edgesMethod: opts.edgesMethod ?? 'graph',
    compareEdges: opts.compareEdges ?? false,
    compareEdgesMax: opts.compareEdgesMax ?? Number.MAX_SAFE_INTEGER,
    efSweep: opts.efSweep ?? [],
    recallQueries: opts.recallQueries ?? 200,
    engine: opts.engine ?? {},
    cacheDir: opts.cacheDir,
  };
  if (!Number.isInteger(config.queries) || config.queries < 1)
    throw new KfError('bad_option', `queries must be a positive integer (got ${config.queries})`, 'pass e.g. --queries 300');
  if (config.edgesMethod !== 'graph' && config.edgesMethod !== 'search')
    throw new KfError('bad_option', `edgesMethod must be graph or search (got ${String(config.edgesMethod)})`, 'use graph (default) or search');
  return config;
}

export async function benchRetrieval(opts: RetrievalBenchOptions): Promise<RetrievalBenchReport> {
  const config = resolveConfig(opts);
  const progress = opts.progress ?? (() => undefined);
  const sizes: SizeReport[] = [];
  for (const n of config.sizes) {
    sizes.push(await benchOne(n, { ...config, progress }));
    (globalThis as { gc?: () => void }).gc?.();
  }
  const report: RetrievalBenchReport = { config, sizes, curve: growthCurve(sizes), recallMeasures: RECALL_MEASURES, node: process.version };
  if (sizes.length > 1) {
    const a = sizes[0],
      b = sizes[sizes.length - 1];
    report.growth = { from: a.fragments, to: b.fragments, corpusRatio: b.fragments / a.fragments, roundP50Ratio: b.stages.roundMs.p50 / a.stages.roundMs.p50 };
  }
  return report;
}

/**
 * The scaled demo world of `n` fragments as an engine, built (or loaded from `cacheDir`) exactly as
 * `kf bench retrieval` builds that size, with `queries` of its questions in the bench's seeded order:
 * what other benchmarks over the same index search (kf bench serve-kb).
 */
export async function benchWorldEngine(
  n: number,
  opts: Omit<RetrievalBenchOptions, 'sizes'>,
): Promise<{ engine: SearchEngine; build: BuildFigures; documents: number; queries: string[] }> {
  const config = resolveConfig({ ...opts, sizes: [n] });
  const o: BenchOneOptions = { ...config, progress: opts.progress ?? (() => undefined), sizeLabel: String(n) };
  const t0 = performance.now();
  const demo = demoFragments({ fragments: n, seed: o.seed });
  const { engine, build } = await engineFor(n, demo.fragments, o, t0, performance.now() - t0, new StagePeaks());
  const queries = queryTexts(
    demo.questions.map((q) => q.question),
    o.queries,
    o.seed,
  );
  return { engine, build, documents: demo.documents.length, queries };
}
