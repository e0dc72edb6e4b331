/**
 * The circuit breaker of one endpoint (base URL): while the endpoint refuses
 * work (429, 503), every worker waits at its gate instead of sending more
 * requests that would be refused too. The pause is the server's Retry-After when
 * it sends one, else an exponential backoff with full jitter over the length of
 * the current refusal streak; a success ends the streak.
 *
 * A refusal that arrives while a pause is already running belongs to the same
 * burst (its request was sent before the pause began): it lengthens the streak
 * (so the next pause is longer) but starts no second pause.
 */
import { AttemptError } from './call-error';
import { fullJitterMs, type Backoff } from './backoff';

export class CircuitBreaker {
  private streak = 0;
  private pause?: Promise<void>;
  private readonly closer = new AbortController();
  /** Pauses started so far (for tests and the endpoint ledger). */
  pauses = 0;

  constructor(private readonly backoff: Backoff) {}

  get paused(): boolean {
    return this.pause !== undefined;
  }

  /** Wait until the endpoint is not paused; rejects with an aborted AttemptError when the caller cancels. */
  async gate(signal?: AbortSignal): Promise<void> {
    while (this.pause) {
      if (signal?.aborted) throw new AttemptError('aborted', 'cancelled while the endpoint was paused');
      await raceAbort(this.pause, signal);
    }
  }

  /** Learn from one attempt's failure; pauses the endpoint when it is refusing. Returns whether it did. */
  observe(err: AttemptError): boolean {
    if (!err.endpointRefusing) return false;
    this.streak++;
    err.pausedEndpoint = true;
    if (this.pause) return true;
    const ms = err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, this.backoff.maxRetryAfterMs) : fullJitterMs(this.backoff, this.streak);
    this.pauses++;
    const pause: Promise<void> = this.backoff
      .sleep(ms, this.closer.signal)
      .catch(() => undefined)
      .finally(() => {
        if (this.pause === pause) this.pause = undefined;
      });
    this.pause = pause;
    return true;
  }

  succeeded(): void {
    this.streak = 0;
  }

  /** End any pause now (the router is closing): waiting workers go on and meet their own cancellation. */
  close(): void {
    this.closer.abort(new Error('model router closed'));
  }
}

function raceAbort(p: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return p;
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new AttemptError('aborted', 'cancelled while the endpoint was paused'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
