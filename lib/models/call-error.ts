/**
 * What went wrong in ONE attempt of a model call, classified for the retry
 * layer: retryable (429, 5xx, timeouts, connection resets, garbled replies) or
 * not (other 4xx, cancellation). Messages here are already free of the API key.
 */
import { KfError } from '../util/errors';

export type AttemptFailureKind = 'http' | 'timeout' | 'connection' | 'bad_response' | 'aborted';

export class AttemptError extends Error {
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

/** Remove every occurrence of the secret (and of a Bearer header carrying it) from a text. */
export function redactSecret(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join('[REDACTED]');
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
