/**
 * Retry middleware: the call below it is ONE attempt (a replica choice, the
 * breaker gate, a connection slot, one HTTP request); this layer repeats it by
 * the endpoint's retry policy (lib/models/retry.ts) and reports the attempts
 * made and the whole call's latency.
 */
import type { AttemptError } from '../call-error';
import type { ResolvedEndpoint } from '../config';
import { retryCall, type RetryPolicy } from '../retry';
import type { ChatMiddleware } from '../wrap-model';

export type RetryListener = (info: { stage: string; attempt: number; delayMs: number; error: AttemptError }) => void;

export function retryMiddleware(ep: ResolvedEndpoint, policy: RetryPolicy, onRetry?: RetryListener): ChatMiddleware {
  return {
    name: 'retry',
    async wrapChat({ next, req, signal }) {
      const ctx = { stage: req.stage, baseUrl: ep.baseUrl, model: ep.model, questionId: req.questionId, apiKeyEnv: ep.apiKeyEnv };
      const started = Date.now();
      const { value, attempts } = await retryCall(
        () => next(req, signal),
        policy,
        ctx,
        signal,
        onRetry ? (i) => onRetry({ stage: req.stage, ...i }) : undefined,
      );
      return { ...value, cacheHit: false, attempts, latencyMs: Date.now() - started };
    },
  };
}
