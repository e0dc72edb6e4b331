/**
 * One HTTP exchange with a hosted knowledge base, as plain data: what is sent
 * (HttpRequest) and what came back or went wrong (HttpOutcome). The same shapes
 * travel to the synchronous transport's worker thread (sync-http.ts), so they
 * hold only cloneable values; the API key is in `headers` and never leaves
 * this layer (errors are built from status, path and body snippets only).
 */

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** JSON text for POST. */
  body?: string;
  timeoutMs: number;
}

export type HttpOutcome = { ok: true; status: number; headers: Record<string, string>; body: Uint8Array } | { ok: false; timedOut: boolean; message: string };

/** Perform one request with fetch; never throws (a failure is an outcome). */
export async function sendAsync(req: HttpRequest): Promise<HttpOutcome> {
  try {
    const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(req.timeoutMs) });
    const body = new Uint8Array(await res.arrayBuffer());
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { ok: true, status: res.status, headers, body };
  } catch (e) {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const timedOut = err.name === 'TimeoutError' || err.name === 'AbortError';
    return { ok: false, timedOut, message: err.cause?.message ?? err.message };
  }
}

/** Block this thread for `ms` milliseconds (the synchronous transport's backoff). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));
}
