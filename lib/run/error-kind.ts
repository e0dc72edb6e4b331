/**
 * What kind of failure a question's error is, so summaries can count them
 * apart ("n failed: model output / transport / timeout"):
 *   - model_output: the endpoint answered, but with nothing usable (empty, cut,
 *     unparseable twice): a ModelOutputError;
 *   - transport: the call itself failed after its retries (HTTP status, reset,
 *     a body that is not a chat completion, e.g. an HTML error page);
 *   - timeout: the per-question limit, or a model call that kept timing out;
 *   - other: the harness or the pipeline (bad index, a bug, a scoring failure).
 * Each kind points at a different fix: the model or prompt, the endpoint, the
 * limits, the code.
 */
import { isModelOutputError } from '../model-api/model-output-error';
import { errorMessage, isKfError } from '../util/errors';
import type { RecordError } from './records';
import { isSetupFailure } from '../model-api/setup-error';

export const ERROR_KINDS = ['model_output', 'transport', 'timeout', 'other'] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Words for summaries ("model output", ...). */
export const ERROR_KIND_LABEL: Record<ErrorKind, string> = { model_output: 'model output', transport: 'transport', timeout: 'timeout', other: 'other' };

/** The record error of a thrown value; `timedOut`: the per-question limit fired (its message says so). */
export function recordErrorOf(e: unknown, timedOut?: { questionId: string; limitMs: number }): RecordError {
  if (timedOut)
    return {
      code: 'timeout',
      kind: 'timeout',
      message: `question ${timedOut.questionId} exceeded the per-question limit of ${timedOut.limitMs} ms (limits.timeoutMs)`,
    };
  const message = errorMessage(e);
  if (isModelOutputError(e)) {
    const reason = (e as { reason?: unknown }).reason;
    return { code: 'model_output', kind: 'model_output', message, stage: e.stage, received: e.received, ...(typeof reason === 'string' ? { reason } : {}) };
  }
  const code = isKfError(e) ? e.code : 'pipeline_failed';
  if (code === 'model_call_failed') {
    const last = (e as { lastKind?: string; stage?: string }).lastKind;
    // A refused key, an unknown model, no server: the setup is wrong, every further call would fail alike (the runner stops).
    const setup = isSetupFailure(e) ? { setup: true as const } : {};
    return { code, kind: last === 'timeout' ? 'timeout' : 'transport', message, stage: (e as { stage?: string }).stage, ...setup };
  }
  return { code, kind: 'other', message };
}

/** The kind of a stored record error; records written before kinds existed are classified by their code. */
export function errorKindOf(err: RecordError): ErrorKind {
  if (err.kind && (ERROR_KINDS as readonly string[]).includes(err.kind)) return err.kind;
  if (err.code === 'timeout') return 'timeout';
  if (err.code === 'model_output') return 'model_output';
  if (err.code === 'model_call_failed') return /\btimeout\b/i.test(err.message) ? 'timeout' : 'transport';
  return 'other';
}

/**
 * Below this many records the error share is not checked mid-run (one failure
 * of the first three questions says little); the end of a run is always checked.
 */
export const MIN_RECORDS_FOR_SHARE = 20;

/** Whether `errors` of `recorded` records pass the limit (limits.maxErrorShare); `final`: the run has ended. */
export function errorShareExceeded(errors: number, recorded: number, maxShare: number, final: boolean): boolean {
  if (!recorded || (!final && recorded < MIN_RECORDS_FOR_SHARE)) return false;
  return errors / recorded > maxShare;
}
