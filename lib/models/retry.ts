/**
 * Retries of one model call: on 5xx, timeouts, connection resets and garbled
 * replies (each spends an attempt, then waits an exponential backoff with full
 * jitter), and on 429 (spends a refusal: the endpoint's circuit breaker pauses
 * every worker, honouring Retry-After); stopping at once on other 4xx and on
 * cancellation. Randomness and sleeping are injectable (lib/models/backoff.ts).
 */
import { KfError } from '../util/errors';
import { abortableSleep, fullJitterMs, type Backoff } from './backoff';
import { AttemptError, ModelCallError, displayUrl } from './call-error';

/** How one endpoint's calls are retried (per endpoint: models.*.maxAttempts, backoffBaseMs, backoffMaxMs, maxRefusals). */
export interface RetryPolicy {
  /** Attempts per call for failures (5xx, timeouts, resets, garbled replies), the first included. */
  maxAttempts: number;
  /** 429 refusals one call accepts before it fails (they wait at the circuit breaker and spend no attempt). */
  maxRefusals: number;
  backoff: Backoff;
}

export interface CallContext {
  stage: string;
  baseUrl?: string;
  model: string;
  questionId?: string;
  /** NAME of the key variable (for the 401 hint). */
  apiKeyEnv?: string;
}

export { abortableSleep };

/** The wait before the next attempt: none when the breaker paused the endpoint (the gate waits), else Retry-After or full jitter. */
export function backoffMs(b: Backoff, streak: number, err: AttemptError): number {
  if (err.pausedEndpoint) return 0;
  if (err.retryAfterMs !== undefined) return Math.min(err.retryAfterMs, b.maxRetryAfterMs);
  return fullJitterMs(b, streak);
}

/** `endpoint`: the replica that failed last (printable), when the call went through a replica set. */
function where(ctx: CallContext, endpoint?: string): string {
  return `stage ${ctx.stage}${ctx.questionId ? ` (question ${ctx.questionId})` : ''}: model ${ctx.model} at ${endpoint ?? displayUrl(ctx.baseUrl)}`;
}

export function cancelledError(ctx: CallContext, cause?: unknown): KfError {
  return new KfError('aborted', `${where(ctx)}: call cancelled`, 'the run was cancelled; rerun to resume (finished questions are kept)', {
    concerns: ctx.stage,
    cause,
  });
}

function hintFor(err: AttemptError, ctx: CallContext): string {
  if (err.kind === 'timeout')
    return 'the endpoint did not answer in time: raise timeoutMs (KF_TIMEOUT_MS or models.*.timeoutMs), lower concurrency, or check the server load';
  if (err.kind === 'connection')
    return `is the server running at ${displayUrl(ctx.baseUrl)}? check the base URL (OPENAI_BASE_URL / models.*.baseUrl) and \`kf models --check\``;
  if (err.kind === 'bad_response')
    return 'the endpoint returned something that is not an OpenAI-compatible reply: check the base URL ends with /v1 and the server logs';
  const s = err.status ?? 0;
  if (s === 429) return 'the endpoint kept rate-limiting: lower concurrency (KF_CONCURRENCY / models.*.concurrency) or raise maxRefusals; rerun resumes';
  if (s === 401 || s === 403)
    return `the endpoint refused the credentials: check the key in $${ctx.apiKeyEnv ?? 'OPENAI_API_KEY'} (or set apiKeyEnv to the right variable)`;
  if (s === 404) return 'unknown model or wrong path: `kf models --check` lists the models the endpoint serves; the base URL usually ends with /v1';
  if (s === 400 || s === 422) return 'the endpoint rejected the request: check extraBody, and that the model supports this input (images, tools, JSON mode)';
  if (s >= 500) return 'the server is failing: check its logs and rerun later (finished questions are kept)';
  return 'check the endpoint and the request settings';
}

/**
 * Run `attempt(n)` until it succeeds, fails permanently, or runs out of attempts
 * (failures) or refusals (429s). Throws a KfError naming stage, endpoint, model,
 * attempts and the last failure.
 */
export async function retryCall<T>(
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicy,
  ctx: CallContext,
  signal?: AbortSignal,
  onRetry?: (info: { attempt: number; delayMs: number; error: AttemptError }) => void,
): Promise<{ value: T; attempts: number }> {
  let failures = 0;
  let refusals = 0;
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw cancelledError(ctx, signal.reason);
    try {
      return { value: await attempt(n), attempts: n };
    } catch (e) {
      if (!(e instanceof AttemptError)) throw e;
      if (e.kind === 'aborted' || signal?.aborted) throw cancelledError(ctx, e);
      if (e.refusal) refusals++;
      else failures++;
      const exhausted = e.refusal ? refusals > policy.maxRefusals : failures >= Math.max(1, policy.maxAttempts);
      if (!e.retryable || exhausted) throw finalError(e, n, refusals, ctx);
      const delayMs = backoffMs(policy.backoff, e.refusal ? refusals : failures, e);
      onRetry?.({ attempt: n, delayMs, error: e });
      if (delayMs > 0) {
        try {
          await policy.backoff.sleep(delayMs, signal);
        } catch (abortReason) {
          throw cancelledError(ctx, abortReason);
        }
      }
    }
  }
}

function finalError(e: AttemptError, n: number, refusals: number, ctx: CallContext): ModelCallError {
  const refused = refusals ? `, ${refusals} of them refused with 429` : '';
  return new ModelCallError(
    `${where(ctx, e.endpoint)} failed after ${n} attempt${n === 1 ? '' : 's'}${refused}${e.retryable ? '' : ' (not retryable)'}; last error: ${e.describe()}`,
    hintFor(e, e.endpoint ? { ...ctx, baseUrl: e.endpoint } : ctx),
    ctx.stage,
    n,
    e.status,
    e.kind,
  );
}
