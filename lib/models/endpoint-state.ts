/**
 * What the router knows about one endpoint (one base URL), shared by every stage
 * that uses it: its concurrency limit (semaphore), its circuit breaker, and its
 * health as a replica (taken out after a failure, tried again later).
 */
import type { Backoff } from './backoff';
import { CircuitBreaker } from './breaker';
import { displayUrl } from './call-error';
import { Semaphore } from './semaphore';

export class EndpointState {
  /** The base URL as printed: no user:password, no query string. */
  readonly label: string;
  readonly semaphore: Semaphore;
  readonly breaker: CircuitBreaker;
  /** Times the replica set chose it (ties between equally idle replicas go to the less used one). */
  picks = 0;
  private failStreak = 0;
  /** Epoch ms until which it is out of the replica rotation (0: in). */
  outUntil = 0;

  constructor(
    readonly url: string,
    concurrency: number,
    private readonly backoff: Backoff,
  ) {
    this.label = displayUrl(url);
    this.semaphore = new Semaphore(concurrency);
    this.breaker = new CircuitBreaker(backoff);
  }

  /** Requests in flight or queued, per slot: the load the replica set balances. */
  get load(): number {
    return (this.semaphore.inFlight + this.semaphore.queued) / this.semaphore.limit;
  }

  isIn(now: number): boolean {
    return now >= this.outUntil;
  }

  /** A failing replica leaves the rotation for its backoff (doubling while it keeps failing); the last one left is still tried. */
  takeOut(now: number): void {
    this.failStreak++;
    this.outUntil = now + Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** (this.failStreak - 1));
  }

  restore(): void {
    this.failStreak = 0;
    this.outUntil = 0;
  }
}

/** One EndpointState per base URL for a router; the smallest concurrency of the stages sharing a URL applies. */
export class EndpointRegistry {
  private readonly states = new Map<string, EndpointState>();

  constructor(private readonly backoffFor: (ep: { backoffBaseMs: number; backoffMaxMs: number }) => Backoff) {}

  get(url: string, ep: { concurrency: number; backoffBaseMs: number; backoffMaxMs: number }): EndpointState {
    let s = this.states.get(url);
    if (!s) this.states.set(url, (s = new EndpointState(url, ep.concurrency, this.backoffFor(ep))));
    else s.semaphore.lowerTo(ep.concurrency);
    return s;
  }

  close(): void {
    for (const s of this.states.values()) s.breaker.close();
  }
}
