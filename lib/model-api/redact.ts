/**
 * Secret redaction for everything that leaves the model layer: API keys, the
 * user:password part of a base URL, and credential parameters of its query
 * string. The model layer registers the secrets of every endpoint it resolves;
 * any layer that writes text out (records, traces, manifests, CLI output) can
 * pass it through `redactSecrets` without knowing which secrets exist.
 *
 * Two nets, because either alone misses something:
 * - registered values: every occurrence of a known secret, wherever it appears
 *   (a reply that echoes the key, an SDK message quoting the URL);
 * - shapes: `scheme://user:pass@`, `Bearer <token>` and `?token=...`-style
 *   parameters, so a secret nobody registered (a URL the server echoes back) is
 *   hidden too.
 * Values shorter than MIN_SECRET_LENGTH are not searched for in free text: a
 * four-letter password would also erase every ordinary word containing it and
 * corrupt the answers being recorded. They are still hidden by the shapes.
 */

export const REDACTED = '[REDACTED]';

/** Shortest value searched for verbatim (shorter ones are only hidden by shape). */
export const MIN_SECRET_LENGTH = 8;

/** Query parameter names that carry credentials by convention (Azure, S3 presigned URLs, tokens). */
const CREDENTIAL_PARAM =
  /^(?:access[_-]?token|api[_-]?key|apikey|key|token|auth|authorization|password|passwd|pwd|secret|sig|signature|x-amz-signature|code)$/i;

const secrets = new Set<string>();

/** Remember a secret value; every later redactSecrets call hides it. Empty and too-short values are ignored. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
}

/** The secret parts of a URL: user name, password and credential query values (also their percent-decoded forms). */
export function secretsOfUrl(url: string | undefined): string[] {
  if (!url) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out = [u.username, u.password];
  for (const [name, value] of u.searchParams) if (CREDENTIAL_PARAM.test(name)) out.push(value);
  const raw = u.search.slice(1).split('&');
  for (const pair of raw) {
    const [name, value] = pair.split('=');
    if (value && CREDENTIAL_PARAM.test(decodeSafe(name))) out.push(value);
  }
  const withDecoded = out.flatMap((s) => [s, decodeSafe(s)]);
  return [...new Set(withDecoded.filter((s) => s.length > 0))];
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Register every secret a URL carries. */
export function registerUrlSecrets(url: string | undefined): void {
  for (const s of secretsOfUrl(url)) registerSecret(s);
}

/** A URL safe to print: userinfo and credential query values replaced, everything else kept. */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  return redactSecrets(url);
}

const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@?#]+@/gi;
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;
const QUERY_PARAM = /([?&])([A-Za-z0-9_-]+)=([^&#\s"'<>]+)/g;

/** The text with every registered secret and every credential-shaped part replaced by [REDACTED]. */
export function redactSecrets(text: string): string {
  if (!text) return text;
  let out = text;
  // Longest first, so a secret containing another is replaced whole.
  for (const s of [...secrets].sort((a, b) => b.length - a.length)) if (out.includes(s)) out = out.split(s).join(REDACTED);
  out = out.replace(USERINFO, `$1${REDACTED}@`).replace(BEARER, `$1${REDACTED}`);
  out = out.replace(QUERY_PARAM, (all, sep: string, name: string) => (CREDENTIAL_PARAM.test(name) ? `${sep}${name}=${REDACTED}` : all));
  return out;
}

/** A copy of a JSON-like value with every string redacted (keys included). */
export function redactDeep<T>(value: T): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  const proto = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  // Plain objects, and null-prototype ones (TOML tables): anything else (class instances, buffers) is kept as is.
  if (value && typeof value === 'object' && (proto === Object.prototype || proto === null)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redactSecrets(k)] = redactDeep(v);
    return out as T;
  }
  return value;
}

/** Redact an error in place (message, hint, stack) and return it: thrown errors keep their class and code. */
export function redactError<E>(e: E): E {
  if (!(e instanceof Error)) return (typeof e === 'string' ? redactSecrets(e) : e) as E;
  const writable = e as Error & { hint?: unknown };
  writable.message = redactSecrets(e.message);
  if (typeof writable.hint === 'string') Object.defineProperty(writable, 'hint', { value: redactSecrets(writable.hint), configurable: true });
  if (e.stack) e.stack = redactSecrets(e.stack);
  return e;
}
