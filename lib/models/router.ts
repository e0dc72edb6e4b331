/**
 * The model router: one object per run that hands each pipeline stage its
 * ChatModel, with routing (config.ts precedence), cache, ledger, retries and the
 * per-endpoint concurrency limit applied. Callers never see providers, keys or
 * URLs; `describe()` is what goes into manifests (never the key).
 *
 *   const router = createModelRouter(experiment.models, { runId, cacheFile });
 *   const judge = router.forStage('judge');          // ChatModel
 *   const res = await judge.chat({ stage: 'judge', messages, task, questionId });
 *   manifest.models = router.describe(); manifest.ledger = router.ledger.toJSON();
 *   await router.close();
 */
import { KfError } from '../util/errors';
import { defaultCacheFile, ModelCache } from './cache';
import type { AttemptError } from './call-error';
import { CACHE_MODES, normalizeModelsConfig, resolveStage, type CacheMode, type EndpointConfig, type ModelsConfig, type ResolvedEndpoint } from './config';
import { OpenAIEmbedder } from './embeddings';
import { Ledger } from './ledger';
import { withCache, withLedger, withRetries } from './middleware';
import { InProcessModel, InProcessResources, type Closable } from './in-process';
import { OpenAIChatProvider } from './openai-provider';
import { defaultRetryPolicy, type RetryPolicy } from './retry';
import { Semaphore } from './semaphore';
import { STAGES, type AgentProtocol, type Backend, type ChatModel, type Embedder, type Stage } from '../model-api/types';

/** One stage's route as printed by `kf models` and written into manifests. Never holds the key. */
export interface StageRoute {
  stage: string;
  backend: Backend;
  model: string;
  baseUrl?: string;
  protocol: AgentProtocol;
  /** NAME of the key variable, and whether it is set (never its value). */
  apiKeyEnv: string;
  keySet: boolean;
  timeoutMs: number;
  maxTokens?: number;
  temperature?: number;
  concurrency: number;
  maxAttempts: number;
  extraBody: Record<string, unknown>;
  provenance: ResolvedEndpoint['provenance'];
}

export interface ModelRouter {
  /** The stage's model with cache, ledger, retries and concurrency applied. */
  forStage(stage: Stage): ChatModel;
  /** The OpenAI-compatible embedder when an embedding endpoint + model is configured; undefined means "use an offline encoder". */
  embedder(): Embedder | undefined;
  describe(): StageRoute[];
  backendOf(stage: Stage): Backend;
  /** The resolved endpoint of a stage (protocol, limits, provenance; no key). */
  endpoint(stage: Stage): ResolvedEndpoint;
  readonly ledger: Ledger;
  readonly cacheMode: CacheMode;
  readonly cacheFile?: string;
  close(): Promise<void>;
}

export interface RouterOptions {
  runId?: string;
  /** Cache file (overrides config.cache.file and KF_CACHE_FILE). */
  cacheFile?: string;
  /** Cache mode (overrides config.cache.mode and KF_CACHE). Default: read-write when a file is known, else off. */
  cacheMode?: CacheMode;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  /** Project/user-level config below the experiment's (precedence level 4-5). */
  defaults?: ModelsConfig;
  /** Explicit per-stage overrides above the experiment's (precedence level 1). */
  overrides?: Record<string, EndpointConfig>;
  /** Retry tuning and test hooks (jitter source, sleep). */
  retry?: Partial<Omit<RetryPolicy, 'maxAttempts'>> & { seed?: string | number };
  onRetry?: (info: { stage: string; attempt: number; delayMs: number; error: AttemptError }) => void;
  /**
   * Services for the in-process (offline) handlers, by name (e.g. `{ ocr }` for the vision/caption roles); used, never
   * closed here. Default: each handler creates what it needs on first use, and the router closes it.
   */
  resources?: Record<string, Closable>;
}

export function createModelRouter(config: ModelsConfig = {}, opts: RouterOptions = {}): ModelRouter {
  const env = opts.env ?? process.env;
  const experiment = normalizeModelsConfig(config, 'models');
  const defaults = opts.defaults ? normalizeModelsConfig(opts.defaults, 'defaults') : undefined;
  const prices = { ...(defaults?.prices ?? {}), ...(experiment.prices ?? {}) };
  const ledger = new Ledger(prices, opts.runId);

  const envMode = env.KF_CACHE as CacheMode | undefined;
  if (envMode !== undefined && envMode !== ('' as CacheMode) && !CACHE_MODES.includes(envMode)) {
    throw new KfError('bad_models_config', `KF_CACHE must be one of ${CACHE_MODES.join('|')}, got "${envMode}"`, 'fix or unset KF_CACHE');
  }
  const fileGiven = opts.cacheFile ?? experiment.cache?.file ?? defaults?.cache?.file ?? (env.KF_CACHE_FILE || undefined);
  const cacheMode: CacheMode =
    opts.cacheMode ?? experiment.cache?.mode ?? defaults?.cache?.mode ?? (envMode || undefined) ?? (fileGiven ? 'read-write' : 'off');
  const cacheFile = cacheMode === 'off' ? fileGiven : (fileGiven ?? defaultCacheFile());
  const cache = cacheMode !== 'off' && cacheFile ? ModelCache.open(cacheFile, { create: cacheMode !== 'replay-only' }) : undefined;
  const resources = new InProcessResources(cache, opts.resources);

  const resolved = new Map<string, ResolvedEndpoint>();
  const resolve = (stage: string): ResolvedEndpoint => {
    let r = resolved.get(stage);
    if (!r) {
      r = resolveStage(stage, { stage: opts.overrides?.[stage], experiment, defaults }, env);
      resolved.set(stage, r);
      if (r.backend === 'openai') semaphoreFor(r);
    }
    return r;
  };
  const semaphores = new Map<string, Semaphore>();
  const semaphoreFor = (r: ResolvedEndpoint): Semaphore => {
    const key = r.baseUrl ?? '';
    let s = semaphores.get(key);
    if (!s) semaphores.set(key, (s = new Semaphore(r.concurrency)));
    else s.lowerTo(r.concurrency);
    return s;
  };
  const { seed, ...retryOverrides } = opts.retry ?? {};
  // maxAttempts here is a placeholder: each stage's own maxAttempts applies (middleware.withRetries).
  const policy: RetryPolicy = { ...defaultRetryPolicy(4, seed ?? 'kf-retry'), ...retryOverrides };

  // Resolve every known and configured stage now: a bad config fails before the first question.
  const known = new Set<string>([
    ...STAGES,
    ...Object.keys(experiment.stages ?? {}),
    ...Object.keys(defaults?.stages ?? {}),
    ...Object.keys(opts.overrides ?? {}),
  ]);
  for (const s of known) resolve(s);

  const models = new Map<string, ChatModel>();
  const forStage = (stage: Stage): ChatModel => {
    let m = models.get(stage);
    if (m) return m;
    const r = resolve(stage);
    if (r.backend === 'offline') {
      m = withLedger(new InProcessModel(stage, resources), ledger, opts.runId);
    } else {
      const provider = new OpenAIChatProvider(r, { env, fetch: opts.fetch });
      const retrying = withRetries(provider, r, { policy, semaphore: semaphoreFor(r), onRetry: opts.onRetry });
      m = withLedger(withCache(retrying, r, { cache, mode: cacheMode }), ledger, opts.runId);
    }
    // Requests name their stage; a model handed out for one stage keeps routing that stage even if a caller mislabels.
    const routed: ChatModel = { id: m.id, backend: m.backend, chat: (req, signal) => m!.chat(req.stage === stage ? req : { ...req, stage }, signal) };
    models.set(stage, routed);
    return routed;
  };

  let embedderInstance: Embedder | undefined | null = null;
  const embedder = (): Embedder | undefined => {
    if (embedderInstance !== null) return embedderInstance;
    const r = resolve('embedding');
    embedderInstance =
      r.backend === 'openai'
        ? new OpenAIEmbedder(r, { env, fetch: opts.fetch, cache, cacheMode, ledger, runId: opts.runId, policy, semaphore: semaphoreFor(r) })
        : undefined;
    return embedderInstance;
  };

  const describeOne = (r: ResolvedEndpoint): StageRoute => ({
    stage: r.stage,
    backend: r.backend,
    model: r.model,
    baseUrl: r.baseUrl,
    protocol: r.protocol,
    apiKeyEnv: r.apiKeyEnv,
    keySet: !!env[r.apiKeyEnv],
    timeoutMs: r.timeoutMs,
    maxTokens: r.maxTokens,
    temperature: r.temperature,
    concurrency: r.concurrency,
    maxAttempts: r.maxAttempts,
    extraBody: r.extraBody,
    provenance: { ...r.provenance },
  });

  let closed = false;
  return {
    forStage,
    embedder,
    describe: () => [...resolved.values()].map(describeOne),
    backendOf: (stage) => resolve(stage).backend,
    endpoint: (stage) => ({ ...resolve(stage) }),
    ledger,
    cacheMode,
    cacheFile: cache?.file ?? cacheFile,
    async close() {
      if (closed) return;
      closed = true;
      await resources.close();
      cache?.close();
    },
  };
}
