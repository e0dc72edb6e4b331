/**
 * What the DualG speed bench (bench.ts) runs on: a knowledge base to search
 * (the hybrid pool the searcher fills from), the graph source its graph is
 * built from, and the questions to time.
 *
 * Two kinds:
 * - a demo preset (tiny | default | scale): the preset's world planned with its
 *   filler (generateWorld, the same document trees `kf demo generate` renders)
 *   and turned into fragments straight from the trees (documentFragments), with
 *   no rendering or parsing of files: the cheapest honest path to the scale
 *   preset's 201K fragments. Images carry their drawn text as OCR text, as the
 *   scaling path of `kf bench retrieval` does. The offline engine (corpus-fitted
 *   embedder, BM25 + HNSW, no relations: the searcher asks for plain hybrid)
 *   is built here and, with a cache folder, saved and reused.
 * - a benchmark's built index (2Wiki ...), opened as `kf eval retrieval` does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Fragment } from '../corpus/types';
import { demoOptionsHash, documentFragments, generateWorld, resolveDemoOptions, type PresetName } from '../demo';
import { makeOfflineEmbedder } from '../index/embedders/registry';
import { defaultIndexText, SearchEngine } from '../index/engine';
import { EngineKnowledgeBase } from '../pipeline/engine-knowledge-base';
import { openIndex } from '../index/open';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import { engineKnowledgeBase } from '../pipeline/index-view';
import { loadBench } from '../bench/registry';
import { assertBenchmarkName } from '../bench/names';
import { KfError } from '../util/errors';
import { stateDir } from '../util/paths';
import { sourceFromEngine, sourceFromIndexDir } from './graph/source';
import type { GraphSource } from './graph/build';

export interface BenchCorpus {
  /** "demo:scale", "2wiki" ... */
  label: string;
  kb: KnowledgeBase;
  source: GraphSource;
  questions: string[];
  fragments: number;
  documents: number;
  /** Folder the index lives in (benchmarks), for the trained-GNN lookup. */
  indexDir?: string;
  /** Seconds of each preparation step; `engineFromCache` when the engine was loaded, not built. */
  build: Record<string, number | boolean>;
}

const secondsSince = (t: number) => Math.round((performance.now() - t) / 10) / 100;

/** The preset's world as fragments (what ingesting its rendered files yields), with its questions. */
function presetFragments(preset: PresetName): { fragments: Fragment[]; titles: Map<string, string>; questions: string[]; hash: string } {
  const options = resolveDemoOptions({ preset });
  const world = generateWorld(options);
  const fragments: Fragment[] = [];
  for (const d of world.docs) documentFragments(d, fragments);
  return {
    fragments,
    titles: new Map(world.docs.map((d) => [d.id, d.title])),
    questions: world.questions.map((q) => q.question),
    hash: demoOptionsHash(options),
  };
}

/** Fit the corpus-fitted embedder, embed and index (BM25 + HNSW); saved into `cached` when given. */
async function buildEngine(
  fragments: Fragment[],
  cached: string | undefined,
  say: (l: string) => void,
): Promise<{ engine: SearchEngine; steps: Record<string, number> }> {
  const texts = fragments.map(defaultIndexText);
  let t = performance.now();
  const embedder = await makeOfflineEmbedder('corpus-fitted', texts);
  const fitS = secondsSince(t);
  t = performance.now();
  const vectors = await embedder.embed(texts);
  const embedS = secondsSince(t);
  say(`embedder ${embedder.id} (${embedder.dim}-d): fit ${fitS} s, embed ${embedS} s`);
  t = performance.now();
  const engine = SearchEngine.create({ embedder });
  await engine.addFragments(fragments, vectors);
  const indexS = secondsSince(t);
  say(`indexed ${fragments.length} fragments (BM25 + HNSW) in ${indexS} s`);
  if (cached) {
    await engine.save(cached);
    say(`saved the engine to ${cached}`);
  }
  return { engine, steps: { fitS, embedS, indexS } };
}

/** A demo preset's world, its offline engine (built, or loaded from `cacheDir`) and its questions. */
export async function demoBenchCorpus(preset: PresetName, o: { cacheDir?: string; progress?: (l: string) => void } = {}): Promise<BenchCorpus> {
  const say = (l: string) => o.progress?.(`[demo:${preset}] ${l}`);
  const t0 = performance.now();
  const world = presetFragments(preset);
  const generateS = secondsSince(t0);
  say(`world: ${world.titles.size} documents, ${world.fragments.length} fragments, ${world.questions.length} questions (${generateS} s)`);
  const cached = o.cacheDir ? path.join(path.resolve(o.cacheDir), `demo-${preset}-${world.hash}-n${world.fragments.length}`) : undefined;
  let engine: SearchEngine;
  let steps: Record<string, number | boolean>;
  if (cached && SearchEngine.exists(cached)) {
    const t = performance.now();
    engine = await SearchEngine.load(cached);
    steps = { engineFromCache: true, engineLoadS: secondsSince(t) };
    say(`loaded the cached engine ${cached} in ${steps.engineLoadS} s`);
  } else {
    const built = await buildEngine(world.fragments, cached, say);
    engine = built.engine;
    steps = { engineFromCache: false, ...built.steps };
  }
  const id = `demo-${preset}-${world.hash}`;
  const kb = new EngineKnowledgeBase(engine, { id, docTitle: (d) => world.titles.get(d) });
  const source = sourceFromEngine(engine, { id, fingerprint: `${world.hash}:${world.fragments.length}` }, (d) => world.titles.get(d));
  return {
    label: `demo:${preset}`,
    kb,
    source,
    questions: world.questions,
    fragments: world.fragments.length,
    documents: world.titles.size,
    build: { generateS, ...steps },
  };
}

/** The newest index `kf eval retrieval --bench <b> --offline` built under .kf-cache/indexes/. */
export function newestBenchIndex(bench: string): string {
  const root = stateDir('indexes');
  const dirs = fs.existsSync(root) ? fs.readdirSync(root).filter((d) => d.startsWith(`${bench}-`)) : [];
  if (!dirs.length)
    throw new KfError('index_missing', `no index for ${bench} under ${root}`, `run kf eval retrieval --bench ${bench} --offline first, or pass --index`, {
      concerns: root,
    });
  const mtime = (d: string) => fs.statSync(path.join(root, d)).mtimeMs;
  return path.join(root, dirs.sort((a, b) => mtime(b) - mtime(a))[0]);
}

/** A benchmark's built index (newest under .kf-cache/indexes/ unless `indexDir`) and its questions. */
export async function indexBenchCorpus(benchName: string, indexDir?: string): Promise<BenchCorpus> {
  const bench = assertBenchmarkName(benchName, '--bench');
  const dir = indexDir ?? newestBenchIndex(bench);
  const t0 = performance.now();
  const idx = await openIndex(dir);
  const openS = secondsSince(t0);
  const source = sourceFromIndexDir(idx.dir);
  const documents = source.documents();
  let fragments = 0;
  for (const d of documents) fragments += source.fragmentsOf(d.id).length;
  return {
    label: bench,
    kb: engineKnowledgeBase(idx, { forced: { withContext: false } }),
    source,
    questions: loadBench(bench).questions.map((q) => q.question),
    fragments,
    documents: documents.length,
    indexDir: idx.dir,
    build: { engineFromCache: true, engineLoadS: openS },
  };
}
