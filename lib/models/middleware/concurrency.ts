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
      let release: () => void;
      try {
        release = await semaphore.acquire(signal);
      } catch {
        throw new AttemptError('aborted', 'cancelled while waiting for a free connection slot');
      }
      try {
        return await next(req, signal);
      } finally {
        release();
      }
    },
  };
}
