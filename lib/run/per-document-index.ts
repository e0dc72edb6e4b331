/**
 * `index.perDocument = true`: one index per document, as the KnowForge paper
 * runs MMLongBench-Doc (the shared index with a document mask differs from it
 * in BM25's idf, computed over the whole collection, and in the dense
 * neighbourhoods). Each question's document gets its own index, built on
 * first use from the benchmark's corpus folder restricted to that one file
 * and cached under a content-hash folder named after the document, so a rerun
 * (or another experiment with the same index settings) reuses it. At most a
 * few are kept open at once: a benchmark of hundreds of long PDFs would not
 * fit in memory otherwise.
 */
import type { BenchmarkData, Question } from '../bench/types';
import { docIdFromRel } from '../corpus/source';
import type { OpenIndex } from '../index/open';
import { KfError } from '../util/errors';
import type { ExperimentConfig } from './config';
import { engineKnowledgeBase } from '../pipeline/index-view';
import type { ConfiguredIndex, IndexInfo, IndexModelsLike } from './index-types';

/** How many per-document indexes are kept open (the least recently used is dropped first and left to the garbage collector). */
const OPEN_AT_ONCE = 4;

export function perDocumentIndexProvider(
  config: ExperimentConfig,
  opts: { models?: IndexModelsLike; data?: BenchmarkData; log?: (line: string) => void; allowModelBuild?: boolean; prepareCommand?: string },
): ConfiguredIndex {
  const ix = config.index!;
  const bench = config.benchmark.name;
  const open = new Map<string, Promise<OpenIndex>>();
  const built = new Map<string, { dir: string; built: boolean }>();
  const corpusDir = opts.data?.corpusDir;

  const indexOf = (doc: string): Promise<OpenIndex> => {
    const had = open.get(doc);
    if (had) {
      open.delete(doc); // most recently used last
      open.set(doc, had);
      return had;
    }
    if (!corpusDir)
      throw new KfError('no_corpus', `index.perDocument: benchmark ${bench} has no documents folder here`, 'set the documents path in benchmark.paths', {
        concerns: bench,
      });
    const p = (async () => {
      // Loaded lazily: the index engine pulls native addons.
      const { ensureIndex } = require('../index/build') as typeof import('../index/build');
      const { openIndex } = require('../index/open') as typeof import('../index/open');
      const r = await ensureIndex({
        corpusDir,
        embedder: ix.embedder,
        models: opts.models,
        options: { benchmark: bench, ...(ix.options as object), corpusName: `${bench}-doc-${doc}`, include: (rel: string) => docIdFromRel(rel) === doc },
        ...(opts.allowModelBuild
          ? {}
          : {
              refuseModelBuild: {
                what: `the index of document ${doc} (index.perDocument)`,
                prepare: opts.prepareCommand ?? `kf prepare <experiment file of ${config.name}>`,
              },
            }),
      });
      if (r.built) opts.log?.(`index: built the index of document ${doc} in ${r.dir}`);
      built.set(doc, { dir: r.dir, built: r.built });
      return openIndex(r.dir, { models: opts.models });
    })();
    open.set(doc, p);
    while (open.size > OPEN_AT_ONCE) open.delete(open.keys().next().value!);
    return p;
  };

  const info = (): IndexInfo => ({
    dir: `per-document (${built.size} indexes)`,
    built: [...built.values()].some((b) => b.built),
    perDocument: [...built].map(([doc, b]) => ({ doc, dir: b.dir, built: b.built })),
  });

  return {
    provider: async (q: Question) => {
      if (!q.doc)
        throw new KfError(
          'no_document',
          `index.perDocument: question ${q.id} names no document`,
          'use perDocument only on single-document benchmarks (MMLongBench-Doc)',
          {
            concerns: q.id,
          },
        );
      const idx = await indexOf(q.doc);
      return {
        retriever: idx.retrieverFor(q),
        fragment: (id) => idx.fragment(id),
        docTitle: (id) => idx.docTitle(id),
        kb: engineKnowledgeBase(idx, { forced: ix.search, settings: ix.settings, models: config.models, log: opts.log }),
      };
    },
    // Nothing to open before the first question: each document's index is built when its first question comes.
    open: async () => undefined,
    info,
  };
}
