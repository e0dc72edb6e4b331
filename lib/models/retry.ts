/**
 * Retries with exponential backoff and jitter for one model call: on 429, 5xx,
 * timeouts, connection resets and garbled replies; honouring Retry-After
 * (seconds and HTTP-date); stopping at once on other 4xx and on cancellation.
 * Randomness (jitter) and sleeping are injectable so tests are exact and fast.
 */
import { KfError } from '../util/errors';
import { makeRng } from '../util/rng';
import { AttemptError, ModelCallError, displayUrl } from './call-error';

export interface RetryPolicy {
  maxAttempts: number;
  /** First backoff; doubles each attempt (before jitter). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Cap on a server's Retry-After (a server asking for an hour gets maxRetryAfterMs). */
  maxRetryAfterMs: number;
  /** Uniform [0, 1): the jitter source (seeded by default). */
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallContext {
  stage: string;
  baseUrl?: string;
  model: string;
  questionId?: string;
  /** NAME of the key variable (for the 401 hint). */
  apiKeyEnv?: string;
}

/** Sleep that ends early (rejecting) when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function defaultRetryPolicy(maxAttempts: number, seed: string | number = 'kf-retry'): RetryPolicy {
  const rng = makeRng(seed);
  return { maxAttempts, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000, random: () => rng.next(), sleep: abortableSleep };
}

/** Backoff before attempt `attempt + 1` (attempt is 1-based): Retry-After when given, else base*2^(n-1) with +-50% jitter. */
export function backoffMs(policy: RetryPolicy, attempt: number, err: AttemptError): number {
  if (err.retryAfterMs !== undefined) return Math.min(err.retryAfterMs, policy.maxRetryAfterMs);
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp * (0.5 + policy.random()));
}

function where(ctx: CallContext): string {
  return `stage ${ctx.stage}${ctx.questionId ? ` (question ${ctx.questionId})` : ''}: model ${ctx.model} at ${displayUrl(ctx.baseUrl)}`;
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
  if (s === 429) return 'the endpoint is rate-limiting: lower concurrency (KF_CONCURRENCY / models.*.concurrency) or raise maxAttempts; rerun resumes';
  if (s === 401 || s === 403)
    return `the endpoint refused the credentials: check the key in $${ctx.apiKeyEnv ?? 'OPENAI_API_KEY'} (or set apiKeyEnv to the right variable)`;
  if (s === 404) return 'unknown model or wrong path: `kf models --check` lists the models the endpoint serves; the base URL usually ends with /v1';
  if (s === 400 || s === 422) return 'the endpoint rejected the request: check extraBody, and that the model supports this input (images, tools, JSON mode)';
  if (s >= 500) return 'the server is failing: check its logs and rerun later (finished questions are kept)';
  return 'check the endpoint and the request settings';
}

/**
 * Run `attempt(n)` until it succeeds, fails permanently or runs out of attempts.
 * Throws a KfError naming stage, endpoint, model, attempts and the last failure.
 */
export async function retryCall<T>(
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicy,
  ctx: CallContext,
  signal?: AbortSignal,
  onRetry?: (info: { attempt: number; delayMs: number; error: AttemptError }) => void,
): Promise<{ value: T; attempts: number }> {
  const max = Math.max(1, policy.maxAttempts);
  for (let n = 1; ; n++) {
    if (signal?.aborted) throw cancelledError(ctx, signal.reason);
    try {
      return { value: await attempt(n), attempts: n };
    } catch (e) {
      if (!(e instanceof AttemptError)) throw e;
      if (e.kind === 'aborted' || signal?.aborted) throw cancelledError(ctx, e);
      if (!e.retryable || n >= max) {
        throw new ModelCallError(
          `${where(ctx)} failed after ${n} attempt${n === 1 ? '' : 's'}${e.retryable ? '' : ' (not retryable)'}; last error: ${e.describe()}`,
          hintFor(e, ctx),
          ctx.stage,
          n,
          e.status,
          e.kind,
        );
      }
      const delayMs = backoffMs(policy, n, e);
      onRetry?.({ attempt: n, delayMs, error: e });
      try {
        await policy.sleep(delayMs, signal);
      } catch (abortReason) {
        throw cancelledError(ctx, abortReason);
      }
    }
  }
}
