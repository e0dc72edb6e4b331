/**
 * The seam between the runner and the indexes: a `RetrieverProvider` gives the
 * retriever (plus fragment lookup and document titles) for one question. The
 * default one opens the experiment's index once (lib/index/open.ts
 * `openIndex`; with `index.build = "ensure"` it first builds or updates it
 * from the benchmark's corpus with lib/index/build.ts `ensureIndex`) and asks
 * it for the question's retriever (restricted to Question.doc on
 * single-document benchmarks). Tests and notebooks inject their own provider.
 */
import type { BenchmarkData, CorpusPassage } from '../bench/types';
import type { Retriever, SearchOptions } from '../index/types';
import { KfError } from '../util/errors';
import { stateDir } from '../util/paths';
import type { EngineKnowledgeBase } from '../pipeline/engine-knowledge-base';
import type { OpenIndex } from '../index/open';
import { engineKnowledgeBase } from '../pipeline/index-view';
import type { ExperimentConfig } from './config';
import { expandPath } from './config';
import { indexBuildTag, withEndpointDefaults } from './endpoint-defaults';
import type { ConfiguredIndex, IndexInfo, IndexModelsLike, QuestionIndex } from './index-types';
import { benchmarkDisplayName } from '../bench/own';

export type { ConfiguredIndex, IndexInfo, IndexModelsLike, QuestionIndex, RetrieverProvider } from './index-types';

export function isRetriever(x: unknown): x is Retriever {
  return !!x && typeof (x as Retriever).search === 'function';
}

/** A provider's answer as a QuestionIndex (a retriever object may also carry fragment/docTitle). */
export function asQuestionIndex(x: QuestionIndex | Retriever | undefined): QuestionIndex | undefined {
  if (!x) return undefined;
  if (isRetriever(x)) {
    const r = x as Retriever & Partial<Pick<QuestionIndex, 'fragment' | 'docTitle'>>;
    return { retriever: r, fragment: r.fragment?.bind(r), docTitle: r.docTitle?.bind(r) };
  }
  return x;
}

/** Wrap a retriever so every search gets the run's forced settings (index.search). */
export function withForcedSearch(r: Retriever, forced: SearchOptions): Retriever {
  if (!Object.keys(forced).length) return r;
  return { search: (q, o) => r.search(q, { ...(o ?? {}), ...forced }) };
}

/**
 * The experiment's index folder. One the harness builds (build = "ensure") with a model (a build stage or the
 * embeddings endpoint) lives beside the offline one (lib/run/endpoint-defaults.ts): backends never rebuild each other's.
 */
export function defaultIndexDir(config: ExperimentConfig): string {
  const dir = config.index?.dir ? expandPath(config.index.dir) : stateDir('index', config.benchmark.name);
  const tag = config.index?.build === 'ensure' ? indexBuildTag(config) : '';
  return tag && !dir.endsWith(tag) ? dir + tag : dir;
}

type IndexOpenOptions = {
  models?: IndexModelsLike;
  data?: BenchmarkData;
  log?: (line: string) => void;
  /** Only `kf prepare` / `kf index build` (asked for, estimate printed) build with model calls; runs refuse such a build. */
  allowModelBuild?: boolean;
  /** The command that builds the index on purpose (named by the refusal of an implicit model-priced build). */
  prepareCommand?: string;
  /** With allowModelBuild: called before a build that calls a model (kf prepare prints the estimate and asks for --yes). */
  beforeModelBuild?: (input: { corpusDir?: string; passages?: readonly CorpusPassage[]; models?: IndexModelsLike }) => void | Promise<void>;
};

/** The refusal of an implicit model-priced build names the command that builds the experiment's index on purpose. */
export function prepareHint(config: ExperimentConfig, prepare?: string): { what: string; prepare: string } {
  return { what: `the index of experiment ${config.name} (${config.benchmark.name})`, prepare: prepare ?? `kf prepare <experiment file of ${config.name}>` };
}

/** index.build = "ensure": build or update the index folder from the benchmark's corpus when missing or stale. */
async function ensureIndexDir(config: ExperimentConfig, dir: string, opts: IndexOpenOptions): Promise<boolean> {
  const data = opts.data;
  if (!data?.passages?.length && !data?.corpusDir) {
    throw new KfError(
      'no_corpus',
      `index.build = "ensure" but benchmark ${config.benchmark.name} has no corpus here (no passages, no documents folder)`,
      'set the corpus path in benchmark.paths, or build the index elsewhere and set index.dir with index.build = "never"',
    );
  }
  // Loaded lazily: the index engine pulls native addons that closed-book runs and `kf compare` never need.

  const { ensureIndex } = require('../index/build') as typeof import('../index/build');
  opts.log?.(
    `index: checking ${dir} against the ${benchmarkDisplayName(config.benchmark)} corpus (builds when missing or stale; a first build can take minutes)`,
  );
  const ix = config.index!;
  const r = await ensureIndex({
    ...(data.passages?.length ? { passages: data.passages } : { corpusDir: data.corpusDir }),
    outDir: dir,
    embedder: ix.embedder,
    models: opts.models,
    options: { benchmark: config.benchmark.name, ...(ix.options as object) },
    ...(opts.allowModelBuild
      ? opts.beforeModelBuild
        ? { beforeModelBuild: opts.beforeModelBuild }
        : {}
      : { refuseModelBuild: prepareHint(config, opts.prepareCommand) }),
  });
  if (r.built) opts.log?.(`index: built ${r.result?.generation ?? ''} in ${dir}`);
  return r.built;
}

/** The experiment's index: a kp-index artifact (index.artifact), or the folder `dir` (built first with build = "ensure"). */
async function openConfiguredIndex(
  config: ExperimentConfig,
  dir: string,
  opts: IndexOpenOptions,
): Promise<{ idx: OpenIndex; built: boolean; artifact?: string }> {
  if (config.index!.artifact) {
    const { openIndexArtifact } = require('./index-artifact') as typeof import('./index-artifact');
    if (!opts.data)
      throw new KfError(
        'no_corpus',
        'index.artifact needs the benchmark loaded (its corpus is part of the artifact key)',
        'run through kf run / runExperiment',
      );
    const r = await openIndexArtifact(config, {
      data: opts.data,
      models: opts.models,
      log: opts.log,
      allowModelBuild: opts.allowModelBuild,
      prepareCommand: opts.prepareCommand,
      ...(opts.beforeModelBuild ? { beforeModelBuild: opts.beforeModelBuild } : {}),
    });
    return { idx: r.index, built: r.built, artifact: `${r.ref.kind}/${r.ref.key}` };
  }
  const built = config.index!.build === 'ensure' ? await ensureIndexDir(config, dir, opts) : false;

  const { openIndex } = require('../index/open') as typeof import('../index/open');
  return { idx: await openIndex(dir, { models: opts.models }), built };
}

/**
 * The provider for an experiment: undefined without an `index` section. The
 * index is opened on first use (a run whose questions are all recorded opens
 * nothing) and shared by every question.
 */
export function indexProviderFromConfig(given: ExperimentConfig, opts: IndexOpenOptions = {}): ConfiguredIndex | undefined {
  // With an embeddings endpoint, "fitted" means the endpoint (the paper's dense retriever).
  const config = withEndpointDefaults(given);
  const ix = config.index;
  if (!ix) return undefined;
  if (ix.kb) return remoteIndexProvider(ix.kb);
  if (ix.perDocument) {
    const { perDocumentIndexProvider } = require('./per-document-index') as typeof import('./per-document-index');
    return perDocumentIndexProvider(config, opts);
  }
  const dir = defaultIndexDir(config);
  let opened: Promise<OpenIndex> | undefined;
  let info: IndexInfo = { dir };
  const open = () => {
    opened ??= openConfiguredIndex(config, dir, opts).then(({ idx, built, artifact }) => {
      const m = idx.manifest;
      info = {
        dir: idx.dir,
        built,
        generation: m.generation,
        embedder: m.embedder,
        offline: m.offline,
        ...(m.descriptions
          ? { descriptions: { by: m.descriptions.by, model: m.descriptions.model, offline: m.descriptions.offline, failed: m.descriptions.failed } }
          : {}),
        backends: m.backends,
        counts: m.counts,
        builtAt: m.builtAt,
        ...(artifact ? { artifact } : {}),
      };
      return idx;
    });
    return opened;
  };
  let kb: Promise<EngineKnowledgeBase> | undefined;
  const knowledgeBase = () =>
    (kb ??= open().then((idx) => engineKnowledgeBase(idx, { forced: ix.search, settings: ix.settings, log: opts.log, models: opts.models })));
  return {
    provider: async (q) => {
      const idx = await open();
      // retrieverFor also refuses a question whose document is not in the index.
      const retriever = idx.retrieverFor(q);
      return {
        retriever,
        fragment: (id) => idx.fragment(id),
        docTitle: (id) => idx.docTitle(id),
        kb: (await knowledgeBase()).restrictedTo(q.doc ? [q.doc] : undefined),
      };
    },
    open,
    info: () => info,
  };
}

/**
 * index.kb = "remote:<uuid>" (kf run --kb): the hosted knowledge base instead of a local index. The
 * server and key come from the environment; the manifest records the reference, the server root and
 * the package's card name, never the key.
 */
function remoteIndexProvider(ref: string): ConfiguredIndex {
  // Loaded lazily: only runs over a hosted knowledge base need the HTTP client and its worker thread.
  const { openRemoteKb, remoteKbInfo, remoteRetriever } = require('../remote-kb/open') as typeof import('../remote-kb/open');
  let kb: ReturnType<typeof openRemoteKb> | undefined;
  let info: IndexInfo = { dir: ref };
  const open = async () => {
    if (!kb) {
      kb = openRemoteKb(ref);
      info = remoteKbInfo(kb); // the first request: a bad key or server fails the run here, before any question
    }
    return kb;
  };
  return {
    provider: async (q) => {
      const view = (await open()).restrictedTo(q.doc ? [q.doc] : undefined);
      return { retriever: remoteRetriever(view), fragment: (id) => view.fragment(id), docTitle: (id) => view.title(id), kb: view };
    },
    open,
    info: () => info,
  };
}
