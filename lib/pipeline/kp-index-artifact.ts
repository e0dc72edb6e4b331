/**
 * The knowledge-point index as the first artifact kind, 'kp-index'
 * (lib/pipeline/artifact-store.ts). The artifact folder holds the index under
 * `index/`, built by lib/index/build.ts, which keeps its own layout there
 * (CURRENT -> build-NNNNNN, work checkpoints, assets).
 *
 *   inputs:   corpus (content fingerprint of every document), models (which model, or
 *             'offline', each model-backed build stage used)
 *   settings: embedder + the build options that shape the index (seed, benchmark, ingest,
 *             knowledgePoints, relations, engine, hashDim, fitted, describeMedia)
 *   args:     corpusDir | passages (what to read), models (the router), onProgress
 *   open():   the OpenIndex (lib/index/open.ts)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CorpusPassage } from '../bench/types';
import type { ArtifactKind, ArtifactRequest, PrepareSource } from './artifact';
import { registerArtifactKind } from './artifact-store';
import { KfError } from '../util/errors';
import { buildIndex, buildStageModels, corpusFingerprint, EMBEDDER_CHOICES, type BuildOptions, type EmbedderChoice } from '../index/build';
import { openIndex, type IndexModels, type OpenIndex } from '../index/open';

export const KP_INDEX = 'kp-index';

/** Build options that shape the index (functions and per-run knobs such as concurrency are not settings). */
const SHAPING_OPTIONS = ['seed', 'benchmark', 'corpusName', 'ingest', 'describeMedia', 'knowledgePoints', 'relations', 'engine', 'hashDim', 'fitted'] as const;

export interface KpIndexSettings {
  embedder: EmbedderChoice;
  options: Record<string, unknown>;
}

function normalise(raw: Record<string, unknown>): KpIndexSettings {
  const embedder = (raw.embedder ?? 'fitted') as EmbedderChoice;
  if (!EMBEDDER_CHOICES.includes(embedder))
    throw new KfError('bad_setting', `kp-index setting embedder = ${JSON.stringify(raw.embedder)}`, `use one of ${EMBEDDER_CHOICES.join(', ')}`);
  const given = (raw.options ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((k) => k !== 'embedder' && k !== 'options');
  if (unknown.length) throw new KfError('bad_setting', `kp-index has no setting ${unknown.join(', ')}`, 'settings are embedder and options');
  const options: Record<string, unknown> = { seed: 'kf-index' };
  for (const k of SHAPING_OPTIONS) if (given[k] !== undefined) options[k] = given[k];
  options.seed = String(options.seed);
  return { embedder, options };
}

/** The request for an index over this corpus with these settings (the corpus is read and hashed now). */
export function kpIndexRequest(
  corpus: { corpusDir?: string; passages?: readonly CorpusPassage[] },
  settings: { embedder?: string; options?: Record<string, unknown> },
  models?: IndexModels,
): ArtifactRequest {
  const s = normalise(settings as Record<string, unknown>);
  const source = corpus.corpusDir ? { corpusDir: path.resolve(corpus.corpusDir) } : { passages: corpus.passages ?? [] };
  return {
    inputs: { corpus: corpusFingerprint({ ...source, options: s.options as BuildOptions }), models: JSON.stringify(buildStageModels(models)) },
    settings: s as unknown as Record<string, unknown>,
    args: { ...source, models },
  };
}

/** `kf prepare kp-index --set corpus=<dir|passages.json> [--set embedder=hash] [--set benchmark=demo]`. */
function requestFromOptions(source: PrepareSource): ArtifactRequest {
  const o = source.options;
  if (!o.corpus)
    throw new KfError(
      'bad_flag',
      'kf prepare kp-index needs --set corpus=<documents folder|passages.json>',
      'e.g. kf prepare kp-index --set corpus=data/demo/tiny/corpus --set embedder=hash',
    );
  const corpus = path.resolve(o.corpus);
  const isFile = fs.existsSync(corpus) && fs.statSync(corpus).isFile();
  const passages = isFile ? (JSON.parse(fs.readFileSync(corpus, 'utf8')) as CorpusPassage[]) : undefined;
  const options: Record<string, unknown> = {};
  if (o.benchmark) options.benchmark = o.benchmark;
  if (o.seed) options.seed = o.seed;
  if (o.ocr) options.ingest = { ocr: o.ocr };
  return kpIndexRequest(isFile ? { passages } : { corpusDir: corpus }, { embedder: o.embedder, options }, source.models as IndexModels | undefined);
}

export const kpIndexKind: ArtifactKind<KpIndexSettings, OpenIndex> = {
  kind: KP_INDEX,
  version: 1,
  description: 'knowledge-point index (fragments, BM25, HNSW, relations) over a corpus: lib/index/build.ts',
  settings: (raw) => normalise(raw),
  async build(ctx) {
    const args = ctx.args as { corpusDir?: string; passages?: CorpusPassage[]; models?: IndexModels; onProgress?: BuildOptions['onProgress'] };
    if (!args.corpusDir && !args.passages)
      throw new KfError('bad_request', 'a kp-index build needs args.corpusDir or args.passages', 'use kpIndexRequest() to make the request');
    const r = await buildIndex({
      ...(args.corpusDir ? { corpusDir: args.corpusDir } : { passages: args.passages }),
      outDir: path.join(ctx.dir, 'index'),
      embedder: ctx.settings.embedder,
      models: args.models,
      options: { ...(ctx.settings.options as BuildOptions), onProgress: args.onProgress, signal: ctx.signal },
    });
    return { stats: { generation: r.generation, counts: r.manifest.counts, offline: r.manifest.offline, indexInputKey: r.manifest.inputKey } };
  },
  open: (ref, args) => openIndex(path.join(ref.dir, 'index'), { models: args.models as IndexModels | undefined }),
  request: requestFromOptions,
};

export function register(): void {
  registerArtifactKind(kpIndexKind);
}
