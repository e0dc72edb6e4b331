/**
 * What went wrong in ONE attempt of a model call, classified for the retry
 * layer: retryable (429, 5xx, timeouts, connection resets, garbled replies) or
 * not (other 4xx, cancellation). Messages here are already free of the API key.
 */
import { redactSecrets } from '../model-api/redact';
import { KfError } from '../util/errors';

export type AttemptFailureKind = 'http' | 'timeout' | 'connection' | 'bad_response' | 'aborted';

export class AttemptError extends Error {
  /** Set by the circuit breaker when it paused the endpoint for this failure: the retry layer then waits at the breaker, not on its own. */
  pausedEndpoint = false;
  /** The endpoint (printable, no credentials) this attempt went to, set by the replica set. */
  endpoint?: string;

  constructor(
    readonly kind: AttemptFailureKind,
    message: string,
    readonly status?: number,
    /** From Retry-After / retry-after-ms, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'AttemptError';
  }

  get retryable(): boolean {
    if (this.kind === 'aborted') return false;
    if (this.kind === 'http') return this.status === 429 || this.status === 408 || this.status === 409 || (this.status ?? 0) >= 500;
    return true;
  }

  /**
   * A 429 says "not now", not "this request failed": it spends one of the call's
   * refusals (maxRefusals), not one of its attempts (maxAttempts).
   */
  get refusal(): boolean {
    return this.kind === 'http' && this.status === 429;
  }

  /** 429 and 503: the endpoint is refusing work, so every worker should pause, not only this one. */
  get endpointRefusing(): boolean {
    return this.kind === 'http' && (this.status === 429 || this.status === 503);
  }

  /** Short description for the final error: `HTTP 503 ...`, `timeout after 2000 ms`, ... */
  describe(): string {
    return this.kind === 'http' ? `HTTP ${this.status}: ${this.message}` : `${this.kind}: ${this.message}`;
  }
}

/**
 * Parse Retry-After (seconds or an HTTP-date) and the non-standard
 * retry-after-ms into milliseconds; undefined when absent or unparseable.
 */
export function parseRetryAfter(headers: { get(name: string): string | null } | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.max(0, Math.round(Number(ms)));
  const ra = headers.get('retry-after');
  if (!ra) return undefined;
  const v = ra.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.max(0, Math.round(Number(v) * 1000));
  const date = Date.parse(v);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/** A URL for messages: without user:password and query string (a key can hide there). */
export function displayUrl(url: string | undefined): string {
  if (!url) return '(none)';
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//').replace(/\?.*$/, '');
  }
}

/** Remove the given secret, every registered secret and every credential-shaped part from a text (lib/model-api/redact.ts). */
export function redactSecret(text: string, secret: string | undefined): string {
  const out = redactSecrets(text);
  return secret && secret.length >= 4 ? out.split(secret).join('[REDACTED]') : out;
}

/** The final error of a model call (all attempts spent, or not retryable): a KfError that also carries the numbers. */
export class ModelCallError extends KfError {
  constructor(
    message: string,
    hint: string,
    readonly stage: string,
    readonly attempts: number,
    readonly lastStatus?: number,
    readonly lastKind?: AttemptFailureKind,
  ) {
    super('model_call_failed', message, hint, { concerns: stage });
  }
}
