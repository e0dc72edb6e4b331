/**
 * Backoff arithmetic shared by the retry layer and the circuit breaker:
 * exponential growth capped at a maximum, each wait drawn uniformly between 0
 * and that cap ("full jitter"), so workers that failed together do not come back
 * together. Randomness and sleeping are injectable so tests are exact and fast.
 */

export interface Backoff {
  /** First cap; doubles with each consecutive failure. */
  baseMs: number;
  maxMs: number;
  /** Cap on a server's Retry-After (a server asking for an hour gets this). */
  maxRetryAfterMs: number;
  /** Uniform [0, 1): the jitter source (seeded by the router). */
  random: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Wait before the next try after `streak` consecutive failures (1-based): uniform in [0, min(max, base * 2^(streak-1))]. */
export function fullJitterMs(b: Pick<Backoff, 'baseMs' | 'maxMs' | 'random'>, streak: number): number {
  const cap = Math.min(b.maxMs, b.baseMs * 2 ** Math.max(0, streak - 1));
  return Math.round(cap * b.random());
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
