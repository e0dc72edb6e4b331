/**
 * The package `kf bench serve-kb` serves: `kf bench retrieval`'s scaled demo world as one whole
 * package (uuid `bench`), warmed so that lazily loaded parts (the query encoder's tables) load before
 * the measured CPU time. Opened in the bench's own process (one worker) or in every worker process.
 */
import { benchWorldEngine } from '../index/benchmark';
import type { OfflineEmbedderName } from '../index/embedders/registry';
import { corpusOfEngine } from './corpus';
import { wholePackage, type ServedPackage } from './packages';

export const BENCH_UUID = 'bench';

export interface BenchWorldSource {
  fragments: number;
  topk: number;
  seed?: string;
  embedder?: OfflineEmbedderName;
  cacheDir?: string;
}

export interface BenchWorld {
  pkg: ServedPackage;
  fragments: number;
  documents: number;
  queries: string[];
  fromCache: boolean;
}

export async function openBenchWorld(src: BenchWorldSource, progress?: (line: string) => void): Promise<BenchWorld> {
  const world = await benchWorldEngine(src.fragments, { queries: 1000, seed: src.seed, embedder: src.embedder, cacheDir: src.cacheDir, progress });
  const pkg = wholePackage(corpusOfEngine(world.engine, `bench-${src.fragments}`), BENCH_UUID);
  for (const q of world.queries.slice(0, 20)) await pkg.kb.search(q, { k: src.topk });
  return { pkg, fragments: world.engine.size, documents: world.documents, queries: world.queries, fromCache: world.build.fromCache };
}
