/**
 * Ledger middleware: every call (hit, miss, offline, failure) is recorded with
 * its usage, per stage, question, run and model (lib/models/ledger.ts). The
 * attempt variant sits below the replica choice and counts each HTTP attempt
 * per endpoint: answered, refused (429/503) or failed.
 */
import { isKfError } from '../../util/errors';
import { AttemptError, ModelCallError } from '../call-error';
import type { Ledger } from '../ledger';
import type { ChatMiddleware } from '../wrap-model';

export function ledgerMiddleware(ledger: Ledger, runId?: string): ChatMiddleware {
  return {
    name: 'ledger',
    async wrapChat({ next, req, signal, model }) {
      const started = Date.now();
      const base = { stage: req.stage, questionId: req.questionId, runId: req.runId ?? runId };
      try {
        const res = await next(req, signal);
        ledger.record({
          ...base,
          model: res.model,
          backend: res.backend,
          promptTokens: res.usage.promptTokens,
          completionTokens: res.usage.completionTokens,
          latencyMs: res.latencyMs,
          cacheHit: res.cacheHit,
          attempts: res.attempts,
          finishReason: res.finishReason,
        });
        return res;
      } catch (e) {
        ledger.record({
          ...base,
          model: model.id,
          backend: model.backend,
          promptTokens: 0,
          completionTokens: 0,
          latencyMs: Date.now() - started,
          cacheHit: false,
          attempts: e instanceof ModelCallError ? e.attempts : 0,
          error: isKfError(e) ? e.code : 'error',
        });
        throw e;
      }
    },
  };
}

/** Count each HTTP attempt at one endpoint (`label`: its printable base URL). */
export function attemptLedgerMiddleware(ledger: Ledger, label: string): ChatMiddleware {
  return {
    name: 'attempt-ledger',
    async wrapChat({ next, req, signal }) {
      try {
        const res = await next(req, signal);
        ledger.recordAttempt(label, 'answered', res.usage);
        return res;
      } catch (e) {
        const aborted = e instanceof AttemptError && e.kind === 'aborted';
        if (!aborted) ledger.recordAttempt(label, e instanceof AttemptError && e.endpointRefusing ? 'refused' : 'failed');
        throw e;
      }
    },
  };
}
