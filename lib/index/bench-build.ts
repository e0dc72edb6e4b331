/**
 * The build side of `kf bench retrieval` (benchmark.ts): fit, embed, index and
 * relate the scaled demo world, timed stage by stage, or load a cached build.
 *
 * Stages and their cost (n fragments, d dimensions, M graph degree, E edges):
 *   generate    O(n) demo fragments (lib/demo/fragments.ts)
 *   fit         corpus-fitted encoder: O(n * tokens) counts + a fixed-size projection
 *   embed       O(n * tokens * d), in tenths interleaved with indexing (embedAndIndex)
 *   BM25        O(total tokens) postings, arrays grown by doubling (timed inside addFragments)
 *   HNSW        O(n * efConstruction * M * log n * d) insertions (timed inside addFragments)
 *   edges       'graph': O(n * M * d), neighbour lists read back from the graph (hnsw-links.ts);
 *               'search': one graph query per fragment, O(n * efSearch * M * log n * d);
 *               then O(E log E) to sort and index them (relation-edges.ts)
 *   save        O(index size) bytes, streamed (engine-persist.ts)
 * No stage compares all pairs. Progress: every tenth of embed+index and of edges.
 * Peak RSS is recorded per stage (StagePeaks, peak-rss.ts).
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
import type { StagePeaks } from './peak-rss';

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
  const progress = (done: number, total: number) => o.say(`similarity edges (${method}): ${done}/${total} fragments (${s1(performance.now() - t)} s)`);
  const edges = similarityEdges(engine, { k: o.edgesK, threshold: o.edgesThreshold, exact: false, approx: method, progress });
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

/**
 * Embed and index the fragments in batches of about a tenth of the corpus: the
 * embedder's output for one batch is all that exists besides the index (the
 * whole corpus' vectors, ~1.4 KB each at 356-d, used to sit beside the dense
 * matrix that copies them). The same vectors reach the index in the same order,
 * so the index is the same as one call would build. Progress after every batch.
 */
async function embedAndIndex(engine: SearchEngine, fragments: Fragment[], texts: string[], o: BuildSettings) {
  const timings = { bm25Ms: 0, hnswMs: 0 };
  let embedMs = 0;
  const batch = Math.max(1000, Math.ceil(fragments.length / 10));
  for (let i = 0; i < fragments.length; i += batch) {
    const t = performance.now();
    const vectors = await engine.embedder.embed(texts.slice(i, i + batch));
    embedMs += performance.now() - t;
    await engine.addFragments(fragments.slice(i, i + batch), vectors, { timings });
    const done = Math.min(fragments.length, i + batch);
    o.say(`embedded and indexed ${done}/${fragments.length} (embed ${s1(embedMs)} s, BM25 ${s1(timings.bm25Ms)} s, HNSW ${s1(timings.hnswMs)} s)`);
  }
  return { embedMs, ...timings };
}

/** Fit, embed, index and (with edgesK) relate the fragments; saved to `cached` when given. Peak RSS per stage into `peaks`. */
export async function buildBenchEngine(
  fragments: Fragment[],
  o: BuildSettings,
  cached: string | undefined,
  t0: number,
  generateMs: number,
  peaks: StagePeaks,
): Promise<{ engine: SearchEngine; build: BuildFigures }> {
  const texts = fragments.map(defaultIndexText);
  const t1 = performance.now();
  const embedder: Embedder = await makeOfflineEmbedder(o.embedder, texts);
  const fitMs = performance.now() - t1;
  o.say(`embedder ${embedder.id} (${embedder.dim}-d): fit ${s1(fitMs)} s`);
  peaks.mark('fit');
  const engine = SearchEngine.create({ embedder, ...o.engine });
  const t3 = performance.now();
  const { embedMs, ...timings } = await embedAndIndex(engine, fragments, texts, o);
  texts.length = 0; // the index texts are no longer needed: let them go before the edges stage
  const indexMs = performance.now() - t3 - embedMs;
  o.say(`embedded in ${s1(embedMs)} s, indexed in ${s1(indexMs)} s (BM25 ${s1(timings.bm25Ms)} s, HNSW ${s1(timings.hnswMs)} s)`);
  peaks.mark('embed+index');
  let edges = 0;
  let edgesMs = 0;
  if (o.edgesK > 0) {
    const r = edgesWith(engine, o, o.edgesMethod);
    edgesMs = r.ms;
    edges = engine.setRelations(r.edges);
    o.say(`${edges} kNN similarity edges (${o.edgesMethod}) in ${s1(edgesMs)} s`);
    peaks.mark('edges');
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
    peaks.mark('save');
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
