/**
 * Circuit-breaker middleware: an attempt first waits at its endpoint's gate
 * while the endpoint is paused; a refusal (429/503) pauses it for every worker
 * (lib/models/breaker.ts), a success ends the refusal streak.
 */
import type { CircuitBreaker } from '../breaker';
import { AttemptError } from '../call-error';
import type { ChatMiddleware } from '../wrap-model';

export function breakerMiddleware(breaker: CircuitBreaker): ChatMiddleware {
  return {
    name: 'breaker',
    async wrapChat({ next, req, signal }) {
      await breaker.gate(signal);
      try {
        const res = await next(req, signal);
        breaker.succeeded();
        return res;
      } catch (e) {
        if (e instanceof AttemptError) breaker.observe(e);
        throw e;
      }
    },
  };
}
