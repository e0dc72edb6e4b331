/**
 * The model stacks: which middleware (lib/models/middleware/, one concern per
 * file) wrap which model, composed by wrapModel (lib/models/wrap-model.ts).
 *
 *   endpoint stage:  stage-label > ledger > cache > redaction > retry > replica set
 *   each replica:    breaker > concurrency > attempt ledger > provider (one HTTP attempt)
 *   offline stage:   stage-label > ledger > redaction > in-process model
 *
 * Why this order: the cache stores what redaction let through (never a secret);
 * the ledger sees cache hits; retry repeats whole attempts, each of which picks a
 * replica anew, waits at that replica's breaker and holds one of its slots only
 * while the request is in flight.
 */
import type { Backoff } from './backoff';
import type { ModelCache } from './cache';
import type { CacheMode, ResolvedEndpoint } from './config';
import type { EndpointState } from './endpoint-state';
import type { Ledger } from './ledger';
import { breakerMiddleware } from './middleware/breaker';
import { cacheMiddleware } from './middleware/cache';
import { concurrencyMiddleware } from './middleware/concurrency';
import { attemptLedgerMiddleware, ledgerMiddleware } from './middleware/ledger';
import { redactionMiddleware } from './middleware/redaction';
import { retryMiddleware, type RetryListener } from './middleware/retry';
import { stageLabelMiddleware } from './middleware/stage-label';
import { replicaSetModel } from './replica-set';
import type { RetryPolicy } from './retry';
import { wrapModel, type ChatMiddleware } from './wrap-model';
import type { ChatModel } from '../model-api/types';

export interface EndpointStackDeps {
  ledger: Ledger;
  runId?: string;
  cache?: ModelCache;
  cacheMode: CacheMode;
  /** Backoff of an endpoint's retries (its settings, the router's jitter source and sleep). */
  backoffFor: (ep: ResolvedEndpoint) => Backoff;
  onRetry?: RetryListener;
  /** The shared state of each replica URL (semaphore, breaker, health). */
  stateOf: (url: string) => EndpointState;
  /** The one-attempt provider of each replica URL. */
  providerOf: (url: string) => ChatModel;
}

/** The model of a stage routed to an endpoint (one or several replicas). */
export function endpointStageModel(ep: ResolvedEndpoint, deps: EndpointStackDeps): ChatModel {
  const replicas = ep.replicas.map((url) => {
    const state = deps.stateOf(url);
    const attemptStack = [breakerMiddleware(state.breaker), concurrencyMiddleware(state.semaphore), attemptLedgerMiddleware(deps.ledger, state.label)];
    return { state, model: wrapModel(deps.providerOf(url), attemptStack) };
  });
  const stack: ChatMiddleware[] = [stageLabelMiddleware(ep.stage), ledgerMiddleware(deps.ledger, deps.runId)];
  if (deps.cache && deps.cacheMode !== 'off') stack.push(cacheMiddleware(ep, deps.cache, deps.cacheMode));
  const policy: RetryPolicy = { maxAttempts: ep.maxAttempts, maxRefusals: ep.maxRefusals, backoff: deps.backoffFor(ep) };
  stack.push(redactionMiddleware(), retryMiddleware(ep, policy, deps.onRetry));
  return wrapModel(replicaSetModel(replicas), stack);
}

/** The model of a stage answered in process (offline): no HTTP, so no cache, retry or limit. */
export function offlineStageModel(stage: string, model: ChatModel, ledger: Ledger, runId?: string): ChatModel {
  return wrapModel(model, [stageLabelMiddleware(stage), ledgerMiddleware(ledger, runId), redactionMiddleware()]);
}

/** A model whose calls the ledger counts (tests, scripted pipelines). */
export function withLedger(inner: ChatModel, ledger: Ledger, runId?: string): ChatModel {
  return wrapModel(inner, [ledgerMiddleware(ledger, runId)]);
}
