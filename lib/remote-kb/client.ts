/**
 * The HTTP client of one hosted, read-only knowledge base (the KnowForge
 * authors serve their indexed benchmarks this way): every call is one
 * `/api/v2/kb/{uuid}/<endpoint>` request with the account key as a bearer
 * token. Replies are `{success, data}` envelopes (a bare object is accepted);
 * what this client returns is `data`.
 *
 * Failures become KfErrors that say what to do: a missing key (426), a
 * refused key (401), a package the account has not enabled (403), a rate
 * limit (429: retried with exponential backoff, honouring Retry-After), server
 * errors (5xx: retried the same way), timeouts, and bodies that are not the
 * expected JSON. The key is never part of a message, a cache key or a record.
 */
import { registerSecret, registerUrlSecrets } from '../model-api/redact';
import { KfError } from '../util/errors';
import { sendAsync, sleepSync, type HttpOutcome, type HttpRequest } from './http';
import { SyncHttp } from './sync-http';

/**
 * Asks `kf serve kb` for the harness's own fragment ids (`<document>#<n>`) rather than the hosted form
 * it shows the released runner (lib/serve-kb/ids.ts); other servers ignore it.
 */
export const HARNESS_IDS_HEADER = 'x-kf-ids';
export const HARNESS_IDS_VALUE = 'harness';

export interface RemoteKbOptions {
  /** Server root, e.g. https://kb.example.org (the `/api/v2/kb/...` paths are appended). */
  baseUrl: string;
  /** The knowledge-base package id. */
  uuid: string;
  apiKey?: string;
  /** Per-request timeout (default 60 s). */
  timeoutMs?: number;
  /** Retries after a 429 or 5xx (default 4). */
  retries?: number;
  /** First backoff delay; doubles on each retry (default 500 ms). */
  backoffMs?: number;
  /** The synchronous transport to share (clients of one server's packages use one worker thread). */
  transport?: SyncHttp;
}

export type Params = Record<string, string | number | undefined>;

const RETRIED = new Set([429, 500, 502, 503, 504]);

export class RemoteKbClient {
  readonly uuid: string;
  readonly baseUrl: string;
  private readonly apiKey?: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly sync: SyncHttp;
  private readonly cache = new Map<string, unknown>();
  /** Requests sent (retries included): what a run reports as its knowledge-base calls. */
  calls = 0;

  constructor(opts: RemoteKbOptions) {
    this.uuid = opts.uuid;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.apiKey = opts.apiKey || undefined;
    // The account key and any credential in the server URL are secrets by value (lib/model-api/redact.ts):
    // hidden wherever a reply or an error echoes them.
    registerSecret(this.apiKey);
    registerUrlSecrets(this.baseUrl);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.retries = opts.retries ?? 4;
    this.backoffMs = opts.backoffMs ?? 500;
    this.sync = opts.transport ?? new SyncHttp();
  }

  /** A client of another package on the same server, with the same key and settings, sharing the transport. */
  forPackage(uuid: string): RemoteKbClient {
    return new RemoteKbClient({
      baseUrl: this.baseUrl,
      uuid,
      apiKey: this.apiKey,
      timeoutMs: this.timeoutMs,
      retries: this.retries,
      backoffMs: this.backoffMs,
      transport: this.sync,
    });
  }

  private url(endpoint: string, params: Params = {}): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
    const qs = q.toString();
    return `${this.baseUrl}/api/v2/kb/${encodeURIComponent(this.uuid)}/${endpoint}${qs ? `?${qs}` : ''}`;
  }

  private request(method: 'GET' | 'POST', endpoint: string, params: Params, body?: unknown): HttpRequest {
    const headers: Record<string, string> = { accept: 'application/json', [HARNESS_IDS_HEADER]: HARNESS_IDS_VALUE };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return { method, url: this.url(endpoint, params), headers, body: body === undefined ? undefined : JSON.stringify(body), timeoutMs: this.timeoutMs };
  }

  /** Wait before retry `attempt` (0-based): Retry-After when the server gives one, else exponential. */
  private delay(outcome: HttpOutcome, attempt: number): number {
    const after = outcome.ok ? Number(outcome.headers['retry-after']) : NaN;
    return Number.isFinite(after) && after >= 0 ? Math.min(after * 1000, 60_000) : this.backoffMs * 2 ** attempt;
  }

  private shouldRetry(outcome: HttpOutcome, attempt: number): boolean {
    return outcome.ok && RETRIED.has(outcome.status) && attempt < this.retries;
  }

  /** Send a request synchronously, retrying what the server says to retry (the lookups and downloads). */
  private sendSync(req: HttpRequest): HttpOutcome {
    let outcome: HttpOutcome;
    for (let attempt = 0; ; attempt++) {
      this.calls++;
      outcome = this.sync.request(req);
      if (!this.shouldRetry(outcome, attempt)) return outcome;
      sleepSync(this.delay(outcome, attempt));
    }
  }

  /** A GET answered synchronously (lookups of the knowledge-base view); answers are cached. */
  getSync(endpoint: string, params: Params = {}): Record<string, unknown> {
    const key = `${endpoint}?${JSON.stringify(params)}`;
    if (this.cache.has(key)) return this.cache.get(key) as Record<string, unknown>;
    const req = this.request('GET', endpoint, params);
    const outcome = this.sendSync(req);
    const data = this.unwrap(outcome, endpoint);
    this.cache.set(key, data);
    return data;
  }

  /** A POST (search), asynchronous; not cached (the caller may). */
  async post(endpoint: string, body: unknown): Promise<Record<string, unknown>> {
    const req = this.request('POST', endpoint, {}, body);
    let outcome: HttpOutcome;
    for (let attempt = 0; ; attempt++) {
      this.calls++;
      outcome = await sendAsync(req);
      if (!this.shouldRetry(outcome, attempt)) break;
      await new Promise((r) => setTimeout(r, this.delay(outcome, attempt)));
    }
    return this.unwrap(outcome, endpoint);
  }

  /** The stored file of a fragment (image, rendered table): bytes, type and the server's file name. */
  downloadSync(fragmentId: string): { bytes: Uint8Array; mime: string; name: string } {
    const req = this.request('GET', 'download', { fragment_id: fragmentId });
    const outcome = this.sendSync(req);
    this.check(outcome, 'download');
    const ok = outcome as Extract<HttpOutcome, { ok: true }>;
    const disposition = ok.headers['content-disposition'] ?? '';
    const name = /filename="?([^";]+)"?/.exec(disposition)?.[1] ?? '';
    const mime = (ok.headers['content-type'] ?? '').split(';')[0].trim() || 'application/octet-stream';
    return { bytes: ok.body, mime, name };
  }

  /** The package's card (name, description, counts): what a run manifest names. */
  card(): Record<string, unknown> {
    return this.getSync('card');
  }

  /** The package's overview (name, goal, modules: the runner's persona). */
  overview(): Record<string, unknown> {
    return this.getSync('overview');
  }

  /** A media fragment's surroundings (its caption, the text before and after it). */
  mediaContext(fragmentId: string): Record<string, unknown> {
    return this.getSync('media-context', { fragment_id: fragmentId });
  }

  async close(): Promise<void> {
    await this.sync.close();
  }

  private where(endpoint: string): string {
    return `knowledge base ${this.uuid} (${this.baseUrl}), ${endpoint}`;
  }

  /** Throw the KfError an unusable outcome stands for. */
  private check(outcome: HttpOutcome, endpoint: string): void {
    const where = this.where(endpoint);
    if (!outcome.ok) {
      if (outcome.timedOut)
        throw new KfError('kb_timeout', `${where}: no reply within ${this.timeoutMs / 1000} s`, 'retry later, or raise KF_KB_TIMEOUT_S', {
          concerns: this.uuid,
        });
      throw new KfError('kb_unreachable', `${where}: ${outcome.message}`, 'check KF_KB_BASE_URL and that the server is reachable', { concerns: this.uuid });
    }
    const s = outcome.status;
    if (s < 400) return;
    const snippet = Buffer.from(outcome.body).toString('utf8').slice(0, 200);
    if (s === 426)
      throw new KfError(
        'kb_key_required',
        `${where}: the server now requires an account API key (HTTP 426)`,
        "create a free account with the knowledge-base provider, put the account's API key in the environment as KF_KB_API_KEY (never in a file), and add the benchmark packages to that account",
        { concerns: this.uuid },
      );
    if (s === 401)
      throw new KfError(
        'kb_key_rejected',
        `${where}: the API key was refused as invalid or revoked (HTTP 401)`,
        'set KF_KB_API_KEY to a current key of your account',
        {
          concerns: this.uuid,
        },
      );
    if (s === 403)
      throw new KfError(
        'kb_package_not_enabled',
        `${where}: package ${this.uuid} is not enabled for this account (HTTP 403)`,
        "add the package to your account (the provider's subscribe step) or enable it again on the account's package page",
        { concerns: this.uuid },
      );
    if (s === 429)
      throw new KfError(
        'kb_rate_limited',
        `${where}: still rate limited (HTTP 429) after ${this.retries} retries`,
        'wait a while, then rerun with lower concurrency',
        {
          concerns: this.uuid,
        },
      );
    throw new KfError('kb_http_error', `${where}: HTTP ${s}: ${snippet}`, 'check the package id and the request; retry later if the server is failing', {
      concerns: this.uuid,
    });
  }

  /** The `data` object of a usable reply. */
  private unwrap(outcome: HttpOutcome, endpoint: string): Record<string, unknown> {
    this.check(outcome, endpoint);
    const text = Buffer.from((outcome as Extract<HttpOutcome, { ok: true }>).body).toString('utf8');
    const badReply = (what: string) =>
      new KfError(
        'kb_bad_reply',
        `${this.where(endpoint)}: ${what}: ${text.slice(0, 120)}`,
        'check that KF_KB_BASE_URL points at the knowledge-base API (not a proxy or login page)',
        {
          concerns: this.uuid,
        },
      );
    let j: unknown;
    try {
      j = JSON.parse(text);
    } catch {
      throw badReply('the reply is not JSON');
    }
    if (!j || typeof j !== 'object' || Array.isArray(j)) throw badReply('the reply is not a JSON object');
    const o = j as Record<string, unknown>;
    if ('success' in o) {
      if (o.success !== true)
        throw new KfError('kb_refused', `${this.where(endpoint)}: the server refused: ${String(o.error ?? 'no reason given')}`, 'check the arguments', {
          concerns: this.uuid,
        });
      const d = o.data ?? {};
      if (typeof d !== 'object' || Array.isArray(d)) throw badReply('its data is not an object');
      return d as Record<string, unknown>;
    }
    return o;
  }
}

/** The environment's server and key for `remote:<uuid>` (KF_KB_BASE_URL, KF_KB_API_KEY, KF_KB_TIMEOUT_S). */
export function remoteKbOptionsFromEnv(uuid: string, env: NodeJS.ProcessEnv = process.env): RemoteKbOptions {
  const baseUrl = env.KF_KB_BASE_URL;
  if (!baseUrl)
    throw new KfError(
      'kb_no_server',
      `--kb remote:${uuid} needs the knowledge-base server`,
      'set KF_KB_BASE_URL to the server root (and KF_KB_API_KEY to your account key)',
      {
        concerns: uuid,
      },
    );
  const t = Number(env.KF_KB_TIMEOUT_S);
  return { baseUrl, uuid, apiKey: env.KF_KB_API_KEY, ...(Number.isFinite(t) && t > 0 ? { timeoutMs: t * 1000 } : {}) };
}
