/**
 * Retrieval-round benchmark (`kf bench retrieval`): builds the demo world scaled
 * to N fragments, indexes it, and times search rounds stage by stage.
 *
 * What is timed: one round = BM25 + HNSW + fusion + one-hop expansion + context
 * (the paper's "0.12 s per round" minus the query embedding). Query vectors are
 * computed beforehand, in one batch, and passed as `queryVector`, so the round
 * time is the index's own cost; the embedding cost is reported separately per
 * query. Also: HNSW recall@8 against exact search, build time per step,
 * memory (RSS, heap, array buffers) and growth between the sizes of a sweep.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Fragment } from '../corpus/types';
import type { Embedder, RetrievalMode } from './types';
import { SearchEngine, defaultIndexText, type EngineOptions } from './engine';
import { makeOfflineEmbedder, type OfflineEmbedderName } from './embedders/registry';
import { similarityEdges } from './similarity-edges';
import { resolveHnswOptions } from './dense';
import { defaultFusionWeights } from './fusion';
import { demoFragments } from '../demo/fragments';
import { KfError } from '../util/errors';
import { makeRng } from '../util/rng';
import { percentile } from '../util/percentile';

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
  build: {
    generateMs: number;
    fitMs: number;
    embedMs: number;
    indexMs: number;
    edgesMs: number;
    edges: number;
    totalMs: number;
    fromCache: boolean;
    loadMs?: number;
  };
  /** Per-query embedding cost, measured on the batch (not part of the round). */
  queryEmbedMsPerQuery: number;
  stages: Record<'bm25Ms' | 'hnswMs' | 'fusionMs' | 'expansionMs' | 'contextMs' | 'roundMs', StageStats>;
  hitsPerQuery: number;
  /** Pure HNSW top-8 (efSearch as configured) vs exact search. */
  hnswRecallAt8: number;
  /** The dense stage searches use (HNSW + lexical seeds + document siblings, exact cosine) vs exact search. */
  denseStageRecallAt8: number;
  memory: { rssMB: number; heapUsedMB: number; externalMB: number; arrayBuffersMB: number; bm25IndexMB: number; denseIndexMB: number };
}

export interface RetrievalBenchReport {
  config: Required<Omit<RetrievalBenchOptions, 'progress' | 'engine' | 'cacheDir'>> & { engine: Omit<EngineOptions, 'embedder'>; cacheDir?: string };
  sizes: SizeReport[];
  /** p50 round time of the largest size over the smallest (target <= 1.25 for 42x more corpus). */
  growth?: { from: number; to: number; corpusRatio: number; roundP50Ratio: number };
  node: string;
}

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

/** A cached engine (query-time options are this run's, not those saved with it), or undefined. */
async function loadCachedEngine(cached: string | undefined, o: BenchOneOptions): Promise<{ engine: SearchEngine; build: SizeReport['build'] } | undefined> {
  if (!cached || !SearchEngine.exists(cached) || !fs.existsSync(path.join(cached, 'build.json'))) return undefined;
  const h = resolveHnswOptions(o.engine.hnsw);
  const tl = performance.now();
  const engine = await SearchEngine.load(cached);
  const { hnsw: _h, ...queryTime } = o.engine;
  engine.configure({
    ...SearchEngine.defaultQueryOptions(),
    ...queryTime,
    fusionWeights: o.engine.fusionWeights ?? defaultFusionWeights(engine.embedder.id),
    efSearch: h.efSearch,
  });
  const loadMs = performance.now() - tl;
  o.progress(`[${o.sizeLabel}] loaded the cached index ${cached} in ${(loadMs / 1000).toFixed(1)} s`);
  return { engine, build: { ...(JSON.parse(fs.readFileSync(path.join(cached, 'build.json'), 'utf8')) as SizeReport['build']), fromCache: true, loadMs } };
}

/** Fit, embed, index and (with edgesK) relate the fragments; saved to `cached` when given. */
async function buildBenchEngine(
  fragments: Fragment[],
  o: BenchOneOptions,
  cached: string | undefined,
  t0: number,
  generateMs: number,
): Promise<{ engine: SearchEngine; build: SizeReport['build'] }> {
  const say = (l: string) => o.progress(`[${o.sizeLabel}] ${l}`);
  const texts = fragments.map(defaultIndexText);
  const t1 = performance.now();
  const embedder: Embedder = await makeOfflineEmbedder(o.embedder, texts);
  const fitMs = performance.now() - t1;
  const t2 = performance.now();
  const vectors = await embedder.embed(texts);
  const embedMs = performance.now() - t2;
  say(`embedder ${embedder.id} (${embedder.dim}-d): fit ${(fitMs / 1000).toFixed(1)} s, embed ${(embedMs / 1000).toFixed(1)} s`);
  const engine = SearchEngine.create({ embedder, ...o.engine });
  const t3 = performance.now();
  await engine.addFragments(fragments, vectors);
  vectors.length = 0;
  const indexMs = performance.now() - t3;
  say(`indexed (BM25 + HNSW) in ${(indexMs / 1000).toFixed(1)} s`);
  let edges = 0;
  const t4 = performance.now();
  if (o.edgesK > 0) {
    edges = engine.setRelations(similarityEdges(engine, { k: o.edgesK, threshold: o.edgesThreshold, exact: false }));
    say(`${edges} kNN similarity edges in ${((performance.now() - t4) / 1000).toFixed(1)} s`);
  }
  const edgesMs = performance.now() - t4;
  const build = { generateMs, fitMs, embedMs, indexMs, edgesMs, edges, totalMs: performance.now() - t0, fromCache: false };
  if (cached) {
    await engine.save(cached);
    fs.writeFileSync(path.join(cached, 'build.json'), JSON.stringify(build));
    say(`saved the index to ${cached}`);
  }
  return { engine, build };
}

/** Time every query's search (after a warm-up: JIT, postings built lazily on the first search). */
async function timeSearches(
  engine: SearchEngine,
  queries: string[],
  qvecs: Float32Array[],
  o: BenchOneOptions,
): Promise<{ per: Record<string, number[]>; hits: number }> {
  for (let i = 0; i < Math.min(20, queries.length); i++) await engine.search(queries[i], { mode: o.mode, topk: o.topk, queryVector: qvecs[i] });
  const per: Record<string, number[]> = { bm25Ms: [], hnswMs: [], fusionMs: [], expansionMs: [], contextMs: [], roundMs: [] };
  let hits = 0;
  for (let i = 0; i < queries.length; i++) {
    const r = await engine.search(queries[i], { mode: o.mode, topk: o.topk, queryVector: qvecs[i] });
    for (const k of Object.keys(per)) per[k].push(r.timings[k as keyof typeof r.timings]);
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

async function benchOne(n: number, opts: Omit<BenchOneOptions, 'sizeLabel'>): Promise<SizeReport> {
  const o: BenchOneOptions = { ...opts, sizeLabel: String(n) };
  const say = o.progress;
  const t0 = performance.now();
  const demo = demoFragments({ fragments: n, seed: o.seed });
  const fragments: Fragment[] = demo.fragments;
  const generateMs = performance.now() - t0;
  say(
    `[${n}] demo world: ${fragments.length} fragments, ${demo.documents.length} documents, ${demo.questions.length} questions (${(generateMs / 1000).toFixed(1)} s)`,
  );
  const h = resolveHnswOptions(o.engine.hnsw);
  const key = `n${n}-s${String(o.seed).replace(/[^A-Za-z0-9_-]/g, '_')}-${o.embedder}-k${o.edgesK}-M${h.M}-efc${h.efConstruction}`;
  const cached = o.cacheDir ? path.join(o.cacheDir, key) : undefined;
  const { engine, build } = (await loadCachedEngine(cached, o)) ?? (await buildBenchEngine(fragments, o, cached, t0, generateMs));
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
  const mem = process.memoryUsage();
  const im = engine.indexMemoryBytes();
  const report: SizeReport = {
    fragments: fragments.length,
    documents: demo.documents.length,
    queries: queries.length,
    embedder: embedder.id,
    dim: embedder.dim,
    mode: o.mode,
    build,
    queryEmbedMsPerQuery,
    stages: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, stats(v)])) as SizeReport['stages'],
    hitsPerQuery: hits / queries.length,
    hnswRecallAt8: recall.hnsw,
    denseStageRecallAt8: recall.stage,
    memory: {
      rssMB: mem.rss / MB,
      heapUsedMB: mem.heapUsed / MB,
      externalMB: mem.external / MB,
      arrayBuffersMB: mem.arrayBuffers / MB,
      bm25IndexMB: im.bm25 / MB,
      denseIndexMB: im.dense / MB,
    },
  };
  say(
    `[${n}] round p50 ${report.stages.roundMs.p50.toFixed(2)} ms, p90 ${report.stages.roundMs.p90.toFixed(2)} ms; HNSW recall@8 ${report.hnswRecallAt8.toFixed(3)} (dense stage ${report.denseStageRecallAt8.toFixed(3)}); RSS ${report.memory.rssMB.toFixed(0)} MB`,
  );
  return report;
}

export async function benchRetrieval(opts: RetrievalBenchOptions): Promise<RetrievalBenchReport> {
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
    recallQueries: opts.recallQueries ?? 200,
    engine: opts.engine ?? {},
    cacheDir: opts.cacheDir,
  };
  if (!Number.isInteger(config.queries) || config.queries < 1)
    throw new KfError('bad_option', `queries must be a positive integer (got ${config.queries})`, 'pass e.g. --queries 300');
  const progress = opts.progress ?? (() => undefined);
  const sizes: SizeReport[] = [];
  for (const n of config.sizes) {
    sizes.push(await benchOne(n, { ...config, progress }));
    (globalThis as { gc?: () => void }).gc?.();
  }
  const report: RetrievalBenchReport = { config, sizes, node: process.version };
  if (sizes.length > 1) {
    const a = sizes[0],
      b = sizes[sizes.length - 1];
    report.growth = { from: a.fragments, to: b.fragments, corpusRatio: b.fragments / a.fragments, roundP50Ratio: b.stages.roundMs.p50 / a.stages.roundMs.p50 };
  }
  return report;
}

/** A fixed-width text table of a report (what the CLI prints without --json). */
export function formatBenchReport(r: RetrievalBenchReport): string {
  const lines: string[] = [];
  const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  lines.push(
    `retrieval round benchmark (offline; mode ${r.config.mode}, topk ${r.config.topk}, ${r.config.queries} queries, seed ${r.config.seed}, node ${r.node})`,
  );
  for (const s of r.sizes) {
    lines.push('');
    lines.push(`${s.fragments} fragments / ${s.documents} documents, embedder ${s.embedder} (${s.dim}-d)`);
    lines.push(
      `  build${s.build.fromCache ? ` (cached; loaded in ${f((s.build.loadMs ?? 0) / 1000, 1)} s)` : ''}: generate ${f(s.build.generateMs / 1000, 1)} s, fit ${f(s.build.fitMs / 1000, 1)} s, embed ${f(s.build.embedMs / 1000, 1)} s, index ${f(s.build.indexMs / 1000, 1)} s, edges ${f(s.build.edgesMs / 1000, 1)} s (${s.build.edges}), total ${f(s.build.totalMs / 1000, 1)} s`,
    );
    lines.push(`  stage          p50 ms   p90 ms   mean ms`);
    for (const [k, v] of Object.entries(s.stages))
      lines.push(`  ${k.replace('Ms', '').padEnd(12)} ${f(v.p50, 3).padStart(8)} ${f(v.p90, 3).padStart(8)} ${f(v.mean, 3).padStart(9)}`);
    lines.push(`  query embedding (separate): ${f(s.queryEmbedMsPerQuery, 3)} ms/query; hits/query ${f(s.hitsPerQuery, 1)}`);
    lines.push(
      `  recall@8 vs exact dense search: pure HNSW ${f(s.hnswRecallAt8, 4)}; dense stage as searched (HNSW + lexical seeds + document siblings) ${f(s.denseStageRecallAt8, 4)}`,
    );
    lines.push(
      `  memory: RSS ${f(s.memory.rssMB, 0)} MB, heap ${f(s.memory.heapUsedMB, 0)} MB, array buffers ${f(s.memory.arrayBuffersMB, 0)} MB (BM25 ${f(s.memory.bm25IndexMB, 0)} MB, dense ${f(s.memory.denseIndexMB, 0)} MB)`,
    );
  }
  if (r.growth) {
    lines.push('');
    lines.push(
      `growth: ${r.growth.from} -> ${r.growth.to} fragments (${f(r.growth.corpusRatio, 1)}x corpus): round p50 x${f(r.growth.roundP50Ratio, 3)} (${f((r.growth.roundP50Ratio - 1) * 100, 1)}% more time)`,
    );
  }
  return lines.join('\n');
}
