/**
 * A counting semaphore with a FIFO queue and cancellation: the per-endpoint
 * concurrency limit (one per base URL, shared by every stage that uses it).
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: { resolve: () => void; reject: (e: unknown) => void; signal?: AbortSignal; onAbort?: () => void }[] = [];

  constructor(private limitValue: number) {
    if (!(limitValue >= 1)) throw new Error(`semaphore limit must be >= 1, got ${limitValue}`);
  }

  get limit(): number {
    return this.limitValue;
  }

  /** Lower (never raise) the limit: the smallest concurrency of the stages sharing an endpoint applies. */
  lowerTo(limit: number): void {
    if (limit >= 1 && limit < this.limitValue) this.limitValue = limit;
  }

  get inFlight(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    if (this.active < this.limitValue) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const entry: (typeof this.waiting)[number] = { resolve, reject, signal };
      if (signal) {
        entry.onAbort = () => {
          const i = this.waiting.indexOf(entry);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal.reason ?? new Error('aborted'));
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      this.waiting.push(entry);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.active < this.limitValue && this.waiting.length) {
      const next = this.waiting.shift()!;
      if (next.signal && next.onAbort) next.signal.removeEventListener('abort', next.onAbort);
      this.active++;
      next.resolve();
    }
  }

  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
