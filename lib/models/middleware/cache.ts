/**
 * Cache middleware: a hit returns the stored reply (cacheHit, zero usage, no
 * HTTP); replay-only fails loudly on a miss; read-write stores fresh replies
 * (except empty ones: a failure, not an answer, so it is never replayed).
 * Every reply it hands out carries the asking stage's verdict hook
 * (ChatResponse.reject): a stage that refuses the reply (cut at the token
 * limit, unparseable, no answer) marks it rejected, and a rejected reply is
 * never served again, so `--retry-errors` and later runs ask the model anew.
 * The key is the canonical request (lib/models/cache-key.ts): never the API key
 * or the base URL. It sits above the redaction middleware, so what it stores is
 * already redacted.
 */
import { KfError } from '../../util/errors';
import type { ModelCache } from '../cache';
import { cacheKey, effectiveParams } from '../cache-key';
import type { CacheMode, ResolvedEndpoint } from '../config';
import type { ChatMiddleware } from '../wrap-model';

export function cacheMiddleware(ep: ResolvedEndpoint, cache: ModelCache, mode: Exclude<CacheMode, 'off'>): ChatMiddleware {
  return {
    name: 'cache',
    async wrapChat({ next, req, signal, model }) {
      const started = Date.now();
      const params = effectiveParams(req, ep);
      const key = cacheKey(req, params);
      const reject = (reason: string) => cache.reject(key, reason);
      const hit = cache.get(key);
      if (hit) {
        return {
          text: hit.text,
          toolCalls: hit.toolCalls,
          usage: { promptTokens: 0, completionTokens: 0 },
          model: hit.model,
          backend: model.backend,
          finishReason: hit.finishReason,
          cacheHit: true,
          latencyMs: Date.now() - started,
          attempts: 0,
          reject,
        };
      }
      if (mode === 'replay-only') {
        throw new KfError(
          'cache_miss',
          `replay-only: the cache ${cache.file} has no reply for stage ${req.stage}, question ${req.questionId ?? '(none)'} (model ${params.model}, request ${key.slice(0, 12)})`,
          'the request differs from the recorded run (prompt, model or settings changed), was never recorded, or its reply was rejected by its stage: restore the recorded cache, or rerun with cache mode read-write (calls the endpoint)',
          { concerns: req.questionId ?? req.stage },
        );
      }
      const res = await next(req, signal);
      // An empty reply (no text, no tool call) is a failure the pipeline reports as model_output: storing it would
      // replay the failure on every rerun, and --retry-errors could never ask the endpoint again.
      if (!res.text.trim() && !res.toolCalls.length) return res;
      cache.put(
        key,
        { text: res.text, toolCalls: res.toolCalls, usage: res.usage, model: res.model, finishReason: res.finishReason },
        { stage: req.stage, questionId: req.questionId },
      );
      return { ...res, reject };
    },
  };
}
