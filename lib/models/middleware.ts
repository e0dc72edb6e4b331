/**
 * Cross-cutting concerns as wrappers around a model, never code inside callers:
 *
 *   withLedger( withCache( withRetries( provider ) ) )
 *
 * - withRetries: per attempt, take a slot of the endpoint's semaphore, make ONE
 *   HTTP attempt (hard timeout inside the provider), back off and retry on
 *   429/5xx/timeouts/resets; the slot is free while backing off.
 * - withCache: a hit returns the stored reply (cacheHit, zero usage, no HTTP);
 *   replay-only fails loudly on a miss; read-write stores fresh replies.
 * - withLedger: records every call (hit, miss, failure) with its usage.
 */
import { KfError, isKfError } from '../util/errors';
import type { ModelCache } from './cache';
import { cacheKey, effectiveParams, type EffectiveParams } from './cache-key';
import { AttemptError, ModelCallError } from './call-error';
import type { CacheMode, ResolvedEndpoint } from './config';
import type { Ledger } from './ledger';
import { retryCall, type RetryPolicy, cancelledError } from './retry';
import type { Semaphore } from './semaphore';
import type { Backend, ChatModel, ChatRequest, ChatResponse } from '../model-api/types';

/** A provider that makes single attempts (OpenAIChatProvider). */
export interface AttemptingModel {
  readonly id: string;
  readonly backend: Backend;
  attempt(req: ChatRequest, params: EffectiveParams, signal?: AbortSignal): Promise<Omit<ChatResponse, 'cacheHit' | 'attempts'>>;
}

export function withRetries(
  provider: AttemptingModel,
  ep: ResolvedEndpoint,
  deps: { policy: RetryPolicy; semaphore: Semaphore; onRetry?: (info: { stage: string; attempt: number; delayMs: number; error: AttemptError }) => void },
): ChatModel {
  return {
    id: provider.id,
    backend: provider.backend,
    async chat(req, signal) {
      const params = effectiveParams(req, ep);
      const ctx = { stage: req.stage, baseUrl: ep.baseUrl, model: ep.model, questionId: req.questionId, apiKeyEnv: ep.apiKeyEnv };
      const started = Date.now();
      const { value, attempts } = await retryCall(
        async () => {
          let release: () => void;
          try {
            release = await deps.semaphore.acquire(signal);
          } catch {
            throw new AttemptError('aborted', 'cancelled while waiting for a free connection slot');
          }
          try {
            return await provider.attempt(req, params, signal);
          } finally {
            release();
          }
        },
        { ...deps.policy, maxAttempts: ep.maxAttempts },
        ctx,
        signal,
        deps.onRetry ? (i) => deps.onRetry!({ stage: req.stage, ...i }) : undefined,
      );
      return { ...value, cacheHit: false, attempts, latencyMs: Date.now() - started };
    },
  };
}

export function withCache(inner: ChatModel, ep: ResolvedEndpoint, deps: { cache?: ModelCache; mode: CacheMode }): ChatModel {
  if (deps.mode === 'off' || !deps.cache) return inner;
  const cache = deps.cache;
  return {
    id: inner.id,
    backend: inner.backend,
    async chat(req, signal) {
      const started = Date.now();
      const params = effectiveParams(req, ep);
      const key = cacheKey(req, params);
      const hit = cache.get(key);
      if (hit) {
        return {
          text: hit.text,
          toolCalls: hit.toolCalls,
          usage: { promptTokens: 0, completionTokens: 0 },
          model: hit.model,
          backend: inner.backend,
          finishReason: hit.finishReason,
          cacheHit: true,
          latencyMs: Date.now() - started,
          attempts: 0,
        };
      }
      if (deps.mode === 'replay-only') {
        throw new KfError(
          'cache_miss',
          `replay-only: the cache ${cache.file} has no reply for stage ${req.stage}, question ${req.questionId ?? '(none)'} (model ${params.model}, request ${key.slice(0, 12)})`,
          'the request differs from the recorded run (prompt, model or settings changed) or was never recorded: restore the recorded cache, or rerun with cache mode read-write (calls the endpoint)',
          { concerns: req.questionId ?? req.stage },
        );
      }
      const res = await inner.chat(req, signal);
      cache.put(
        key,
        { text: res.text, toolCalls: res.toolCalls, usage: res.usage, model: res.model, finishReason: res.finishReason },
        { stage: req.stage, questionId: req.questionId },
      );
      return res;
    },
  };
}

export function withLedger(inner: ChatModel, ledger: Ledger, runId?: string): ChatModel {
  return {
    id: inner.id,
    backend: inner.backend,
    async chat(req, signal) {
      const started = Date.now();
      try {
        const res = await inner.chat(req, signal);
        ledger.record({
          stage: req.stage,
          model: res.model,
          backend: res.backend,
          questionId: req.questionId,
          runId: req.runId ?? runId,
          promptTokens: res.usage.promptTokens,
          completionTokens: res.usage.completionTokens,
          latencyMs: res.latencyMs,
          cacheHit: res.cacheHit,
          attempts: res.attempts,
        });
        return res;
      } catch (e) {
        ledger.record({
          stage: req.stage,
          model: inner.id,
          backend: inner.backend,
          questionId: req.questionId,
          runId: req.runId ?? runId,
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: Date.now() - started,
          cacheHit: false,
          attempts: e instanceof ModelCallError ? e.attempts : 0,
          error: isKfError(e) ? e.code : 'error',
        });
        throw e;
      }
    },
  };
}

/** Cancellation check for non-HTTP models (offline): the same error shape as HTTP calls. */
export function throwIfAborted(signal: AbortSignal | undefined, stage: string, model: string, questionId?: string): void {
  if (signal?.aborted) throw cancelledError({ stage, model, questionId }, signal.reason);
}
