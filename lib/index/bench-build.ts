/**
 * The build side of `kf bench retrieval` (benchmark.ts): fit, embed, index and
 * relate the scaled demo world, timed stage by stage, or load a cached build.
 *
 * Stages and their cost (n fragments, d dimensions, M graph degree):
 *   fit         corpus-fitted encoder: O(n * tokens) counts + a fixed-size projection
 *   embed       O(n * tokens * d)
 *   BM25        O(total tokens) postings (timed inside addFragments)
 *   HNSW        O(n * efConstruction * M * log n * d) insertions (timed inside addFragments)
 *   edges       'graph': O(n * M * d), neighbour lists read back from the graph (hnsw-links.ts);
 *               'search': one graph query per fragment, O(n * efSearch * M * log n * d)
 * No stage compares all pairs.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Fragment } from '../corpus/types';
import type { Embedder } from './types';
import { SearchEngine, defaultIndexText, type EngineOptions, type RelationEdge } from './engine';
import { makeOfflineEmbedder, type OfflineEmbedderName } from './embedders/registry';
import { similarityEdges } from './similarity-edges';
import { resolveHnswOptions } from './dense';
import { defaultFusionWeights } from './fusion';

export type EdgesMethod = 'graph' | 'search';

export interface BuildFigures {
  generateMs: number;
  fitMs: number;
  embedMs: number;
  /** BM25 + HNSW together (kept for older reports); split in bm25Ms and hnswMs. */
  indexMs: number;
  bm25Ms?: number;
  hnswMs?: number;
  edgesMs: number;
  edges: number;
  edgesMethod?: EdgesMethod;
  totalMs: number;
  fromCache: boolean;
  loadMs?: number;
}

/** The other relation method run on the same engine: how many of its edges the main method also found. */
export interface EdgeComparison {
  method: EdgesMethod;
  ms: number;
  edges: number;
  common: number;
  /** common / edges of the other method (the share of its edges kept). */
  recallOfOther: number;
  /** common / |union|. */
  jaccard: number;
}

export interface BuildSettings {
  embedder: OfflineEmbedderName;
  engine: Omit<EngineOptions, 'embedder'>;
  edgesK: number;
  edgesThreshold: number;
  edgesMethod: EdgesMethod;
  say: (line: string) => void;
}

const s1 = (ms: number) => (ms / 1000).toFixed(1);

/** A cached engine (query-time options are this run's, not those saved with it), or undefined. */
export async function loadCachedEngine(cached: string | undefined, o: BuildSettings): Promise<{ engine: SearchEngine; build: BuildFigures } | undefined> {
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
  o.say(`loaded the cached index ${cached} in ${s1(loadMs)} s`);
  const recorded = JSON.parse(fs.readFileSync(path.join(cached, 'build.json'), 'utf8')) as BuildFigures;
  return { engine, build: { ...recorded, fromCache: true, loadMs } };
}

function edgesWith(engine: SearchEngine, o: BuildSettings, method: EdgesMethod): { edges: RelationEdge[]; ms: number } {
  const t = performance.now();
  const edges = similarityEdges(engine, { k: o.edgesK, threshold: o.edgesThreshold, exact: false, approx: method });
  return { edges, ms: performance.now() - t };
}

/** Edge overlap of two undirected edge lists (each pair once, from < to, as similarityEdges returns them). */
export function compareEdgeLists(main: readonly RelationEdge[], other: readonly RelationEdge[]): { common: number; recallOfOther: number; jaccard: number } {
  const key = (e: RelationEdge) => `${e.from}\u0000${e.to}`;
  const mine = new Set(main.map(key));
  let common = 0;
  for (const e of other) if (mine.has(key(e))) common++;
  const union = main.length + other.length - common;
  return { common, recallOfOther: other.length ? common / other.length : 1, jaccard: union ? common / union : 1 };
}

/** Fit, embed, index and (with edgesK) relate the fragments; saved to `cached` when given. */
export async function buildBenchEngine(
  fragments: Fragment[],
  o: BuildSettings,
  cached: string | undefined,
  t0: number,
  generateMs: number,
): Promise<{ engine: SearchEngine; build: BuildFigures }> {
  const texts = fragments.map(defaultIndexText);
  const t1 = performance.now();
  const embedder: Embedder = await makeOfflineEmbedder(o.embedder, texts);
  const fitMs = performance.now() - t1;
  const t2 = performance.now();
  const vectors = await embedder.embed(texts);
  const embedMs = performance.now() - t2;
  o.say(`embedder ${embedder.id} (${embedder.dim}-d): fit ${s1(fitMs)} s, embed ${s1(embedMs)} s`);
  const engine = SearchEngine.create({ embedder, ...o.engine });
  const timings = { bm25Ms: 0, hnswMs: 0 };
  const t3 = performance.now();
  const progress = (done: number, total: number) => o.say(`indexing ${done}/${total} (BM25 ${s1(timings.bm25Ms)} s, HNSW ${s1(timings.hnswMs)} s)`);
  await engine.addFragments(fragments, vectors, { timings, progress, progressEvery: Math.max(10000, Math.ceil(fragments.length / 10)) });
  vectors.length = 0;
  const indexMs = performance.now() - t3;
  o.say(`indexed in ${s1(indexMs)} s (BM25 ${s1(timings.bm25Ms)} s, HNSW ${s1(timings.hnswMs)} s)`);
  let edges = 0;
  let edgesMs = 0;
  if (o.edgesK > 0) {
    const r = edgesWith(engine, o, o.edgesMethod);
    edgesMs = r.ms;
    edges = engine.setRelations(r.edges);
    o.say(`${edges} kNN similarity edges (${o.edgesMethod}) in ${s1(edgesMs)} s`);
  }
  const build: BuildFigures = {
    generateMs,
    fitMs,
    embedMs,
    indexMs,
    ...timings,
    edgesMs,
    edges,
    edgesMethod: o.edgesMethod,
    totalMs: performance.now() - t0,
    fromCache: false,
  };
  if (cached) {
    await engine.save(cached);
    fs.writeFileSync(path.join(cached, 'build.json'), JSON.stringify(build));
    o.say(`saved the index to ${cached}`);
  }
  return { engine, build };
}

/** Run the other edge method on the built engine and compare (the engine's relations are left as built). */
export function compareEdgeMethods(engine: SearchEngine, o: BuildSettings): EdgeComparison {
  const other: EdgesMethod = o.edgesMethod === 'graph' ? 'search' : 'graph';
  const main = similarityEdges(engine, { k: o.edgesK, threshold: o.edgesThreshold, exact: false, approx: o.edgesMethod });
  const r = edgesWith(engine, o, other);
  const c = compareEdgeLists(main, r.edges);
  o.say(
    `edges by '${other}': ${r.edges.length} in ${s1(r.ms)} s; ${c.common} shared with '${o.edgesMethod}' (${(100 * c.recallOfOther).toFixed(1)}% of them, Jaccard ${c.jaccard.toFixed(3)})`,
  );
  return { method: other, ms: r.ms, edges: r.edges.length, ...c };
}
