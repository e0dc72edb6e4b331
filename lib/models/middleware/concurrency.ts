/**
 * Concurrency-limit middleware: each attempt holds one slot of its endpoint's
 * semaphore (one per base URL, shared by every stage using it) while it is in
 * flight; the slot is free while the call backs off or waits at the breaker.
 */
import { AttemptError } from '../call-error';
import type { Semaphore } from '../semaphore';
import type { ChatMiddleware } from '../wrap-model';

export function concurrencyMiddleware(semaphore: Semaphore): ChatMiddleware {
  return {
    name: 'concurrency',
    async wrapChat({ next, req, signal }) {
      const release = await acquireSlot(semaphore, signal);
      try {
        return await next(req, signal);
      } finally {
        release();
      }
    },
  };
}

/** One connection slot of an endpoint; a cancel while queued for it is an 'aborted' attempt (never retried). */
export async function acquireSlot(semaphore: Semaphore, signal?: AbortSignal): Promise<() => void> {
  try {
    return await semaphore.acquire(signal);
  } catch {
    throw new AttemptError('aborted', 'cancelled while waiting for a free connection slot');
  }
}
