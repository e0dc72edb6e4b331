/**
 * The model router: one object per run that hands each pipeline stage its
 * ChatModel. It only decides WHERE a stage goes (config.ts precedence: offline,
 * or one or several endpoint replicas) and builds that stage's middleware stack
 * (lib/models/middleware.ts: cache, ledger, redaction, retry, breaker,
 * concurrency limit). Callers never see providers, keys or URLs; `describe()` is
 * what goes into manifests (URLs redacted, never the key).
 *
 *   const router = createModelRouter(experiment.models, { runId, cacheFile });
 *   const judge = router.forStage('judge');          // ChatModel
 *   const res = await judge.chat({ stage: 'judge', messages, task, questionId });
 *   manifest.models = router.describe(); manifest.ledger = router.ledger.toJSON();
 *   await router.close();
 */
import { makeRng } from '../util/rng';
import { abortableSleep, type Backoff } from './backoff';
import { chooseCache } from './cache-choice';
import type { AttemptError } from './call-error';
import { normalizeModelsConfig, resolveStage, type CacheMode, type EndpointConfig, type ModelsConfig, type ResolvedEndpoint } from './config';
import { OpenAIEmbedder } from './embeddings';
import { EndpointRegistry } from './endpoint-state';
import { Ledger } from './ledger';
import { endpointStageModel, offlineStageModel } from './middleware';
import { registerEndpointSecrets } from './middleware/redaction';
import { InProcessModel, InProcessResources, type Closable } from './in-process';
import { OpenAIChatProvider } from './openai-provider';
import { describeRoute, type StageRoute } from './stage-route';
import { STAGES, type Backend, type ChatModel, type Embedder, type Stage } from '../model-api/types';

export type { StageRoute } from './stage-route';

export interface ModelRouter {
  /** The stage's model with its middleware stack applied. */
  forStage(stage: Stage): ChatModel;
  /** The OpenAI-compatible embedder when an embedding endpoint + model is configured; undefined means "use an offline encoder". */
  embedder(): Embedder | undefined;
  describe(): StageRoute[];
  backendOf(stage: Stage): Backend;
  /** The resolved endpoint of a stage (protocol, limits, provenance; no key; URLs as configured: print them through redactUrl). */
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
  /** Test hooks and tuning of every endpoint's backoff: jitter source (or its seed), sleep; numbers override the endpoints' settings. */
  retry?: { baseDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number; random?: () => number; sleep?: Backoff['sleep']; seed?: string | number };
  onRetry?: (info: { stage: string; attempt: number; delayMs: number; error: AttemptError }) => void;
  /**
   * Services for the in-process (offline) handlers, by name (e.g. `{ ocr }` for the vision/caption roles); used, never
   * closed here. Default: each handler creates what it needs on first use, and the router closes it.
   */
  resources?: Record<string, Closable>;
}

/** A server asking to wait longer than this gets this (a Retry-After of an hour would stall the run). */
const MAX_RETRY_AFTER_MS = 120_000;

/** Every endpoint's backoff: its own settings, one seeded jitter source per router, and the router's sleep. */
function backoffMaker(retry: RouterOptions['retry'] = {}): (ep: { backoffBaseMs: number; backoffMaxMs: number }) => Backoff {
  const rng = makeRng(retry.seed ?? 'kf-retry');
  const random = retry.random ?? (() => rng.next());
  return (ep) => ({
    baseMs: retry.baseDelayMs ?? ep.backoffBaseMs,
    maxMs: retry.maxDelayMs ?? ep.backoffMaxMs,
    maxRetryAfterMs: retry.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS,
    random,
    sleep: retry.sleep ?? abortableSleep,
  });
}

export function createModelRouter(config: ModelsConfig = {}, opts: RouterOptions = {}): ModelRouter {
  const env = opts.env ?? process.env;
  const experiment = normalizeModelsConfig(config, 'models');
  const defaults = opts.defaults ? normalizeModelsConfig(opts.defaults, 'defaults') : undefined;
  const ledger = new Ledger({ ...(defaults?.prices ?? {}), ...(experiment.prices ?? {}) }, opts.runId);
  const { cache, mode: cacheMode, file: cacheFile } = chooseCache({ experiment, defaults }, opts, env);
  const resources = new InProcessResources(cache, opts.resources);
  const backoffFor = backoffMaker(opts.retry);
  const endpoints = new EndpointRegistry(backoffFor);

  const resolved = new Map<string, ResolvedEndpoint>();
  const resolve = (stage: string): ResolvedEndpoint => {
    let r = resolved.get(stage);
    if (!r) {
      r = resolveStage(stage, { stage: opts.overrides?.[stage], experiment, defaults }, env);
      resolved.set(stage, r);
      registerEndpointSecrets(r, env);
      for (const url of r.replicas) endpoints.get(url, r);
    }
    return r;
  };
  // Resolve every known and configured stage now: a bad config fails before the first question.
  for (const s of new Set([...STAGES, ...Object.keys(experiment.stages ?? {}), ...Object.keys(defaults?.stages ?? {}), ...Object.keys(opts.overrides ?? {})]))
    resolve(s);

  const models = new Map<string, ChatModel>();
  const build = (stage: Stage): ChatModel => {
    const r = resolve(stage);
    if (r.backend === 'offline') return offlineStageModel(stage, new InProcessModel(stage, resources), ledger, opts.runId);
    return endpointStageModel(r, {
      ledger,
      runId: opts.runId,
      cache,
      cacheMode,
      backoffFor,
      onRetry: opts.onRetry,
      stateOf: (url) => endpoints.get(url, r),
      providerOf: (url) => new OpenAIChatProvider({ ...r, baseUrl: url }, { env, fetch: opts.fetch }),
    });
  };
  const forStage = (stage: Stage): ChatModel => models.get(stage) ?? (models.set(stage, build(stage)), models.get(stage)!);

  let embedderInstance: Embedder | undefined | null = null;
  const embedder = (): Embedder | undefined => {
    if (embedderInstance !== null) return embedderInstance;
    const r = resolve('embedding');
    embedderInstance =
      r.backend === 'openai'
        ? new OpenAIEmbedder(r, {
            env,
            fetch: opts.fetch,
            cache,
            cacheMode,
            ledger,
            runId: opts.runId,
            backoff: backoffFor(r),
            state: endpoints.get(r.baseUrl!, r),
          })
        : undefined;
    return embedderInstance;
  };

  let closed = false;
  return {
    forStage,
    embedder,
    describe: () => [...resolved.values()].map((r) => describeRoute(r, env)),
    backendOf: (stage) => resolve(stage).backend,
    endpoint: (stage) => ({ ...resolve(stage) }),
    ledger,
    cacheMode,
    cacheFile,
    async close() {
      if (closed) return;
      closed = true;
      endpoints.close();
      await resources.close();
      cache?.close();
    },
  };
}
