/**
 * Secret redaction for everything that leaves the model layer: API keys, the
 * user:password part of a base URL, and the query parameters of its query
 * string. The model layer registers the secrets of every endpoint it resolves
 * (and the knowledge-base client its key); any layer that writes text out
 * (records, traces, manifests, CLI output) can pass it through `redactSecrets`
 * without knowing which secrets exist.
 *
 * Redaction is by VALUE, whatever the secret's length or the parameter's name:
 * - registered values: every occurrence of a known secret, wherever it appears
 *   (a reply that echoes the key, an SDK message quoting the URL, tool
 *   arguments, error bodies). A value of MIN_SECRET_LENGTH characters or more is
 *   replaced anywhere; a shorter one wherever it stands as a token of its own
 *   (not inside a longer word or number), so a short key is hidden when echoed
 *   without erasing every word that contains its letters;
 * - every query value of a configured base URL is a registered secret, and a
 *   query parameter holding a secret is printed `name=***`, whatever the name.
 * Shapes catch what nobody registered (a URL the server echoes back):
 * `scheme://user:pass@`, `Bearer <token>` and credential-like parameter names
 * (anything naming a key, token, secret, password, signature, credential...).
 */

export const REDACTED = '[REDACTED]';

/** How a query parameter's value is printed when it holds a secret (`?name=***`). */
const MASKED_QUERY_VALUE = '***';

/** Values this long or longer are replaced wherever they appear; shorter ones where they stand as a token. */
export const MIN_SECRET_LENGTH = 8;

/** Query parameter names that carry credentials by convention (Azure, AWS, GitLab, OAuth, presigned URLs...). */
const CREDENTIAL_PARAM =
  /(?:^|[-_.])(?:api[-_]?key|key|token|secret|pass|passwd|password|pwd|auth|authorization|sig|signature|credentials?|code|session)(?:$|[-_.])|(?:key|token|secret|password|signature)$/i;

const secrets = new Set<string>();
let compiled: { long: string[]; short?: RegExp } | undefined;

/**
 * The placeholder keys local servers are documented with (vLLM's `EMPTY`, Ollama's `ollama`...): they
 * authenticate nothing, and redacting them would erase ordinary answer words ("FINAL ANSWER: none").
 */
const PLACEHOLDER_KEYS = new Set(['empty', 'none', 'null', 'dummy', 'no-key', 'nokey', 'ollama', 'lm-studio', 'not-needed']);

/** Remember a secret value (any length >= 1); every later redactSecrets call hides it. Empty values and placeholder keys are ignored. */
export function registerSecret(value: string | undefined): void {
  if (!value || secrets.has(value) || PLACEHOLDER_KEYS.has(value.toLowerCase())) return;
  secrets.add(value);
  compiled = undefined;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function matchers(): { long: string[]; short?: RegExp } {
  if (compiled) return compiled;
  // Longest first, so a secret containing another is replaced whole.
  const all = [...secrets].sort((a, b) => b.length - a.length);
  const short = all.filter((s) => s.length < MIN_SECRET_LENGTH);
  compiled = {
    long: all.filter((s) => s.length >= MIN_SECRET_LENGTH),
    short: short.length ? new RegExp(`(?<![A-Za-z0-9])(?:${short.map(escapeRegExp).join('|')})(?![A-Za-z0-9])`, 'g') : undefined,
  };
  return compiled;
}

/** The secret parts of a URL: user name, password and every query value (also their percent-decoded forms). */
export function secretsOfUrl(url: string | undefined): string[] {
  if (!url) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out = [u.username, u.password];
  for (const [, value] of u.searchParams) out.push(value);
  for (const pair of u.search.slice(1).split('&')) {
    const value = pair.split('=').slice(1).join('=');
    if (value) out.push(value);
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

/** A URL safe to print: userinfo replaced, every query value shown as `***` (whatever the name), the rest kept. */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const masked = url.replace(/([?&])([^=&#\s]+)=([^&#\s]*)/g, (_all, sep: string, name: string) => `${sep}${name}=${MASKED_QUERY_VALUE}`);
  return redactSecrets(masked);
}

const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@?#]+@/gi;
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;
const QUERY_PARAM = /([?&])([A-Za-z0-9_.-]+)=([^&#\s"'<>]+)/g;

/** The text with every registered secret and every credential-shaped part replaced. */
export function redactSecrets(text: string): string {
  if (!text) return text;
  // Query parameters first: one holding a secret (registered, or by its name) is printed name=***.
  let out = text.replace(QUERY_PARAM, (all, sep: string, name: string, value: string) =>
    CREDENTIAL_PARAM.test(name) || secrets.has(value) || secrets.has(decodeSafe(value)) ? `${sep}${name}=${MASKED_QUERY_VALUE}` : all,
  );
  const m = matchers();
  for (const s of m.long) if (out.includes(s)) out = out.split(s).join(REDACTED);
  if (m.short) out = out.replace(m.short, REDACTED);
  out = out.replace(USERINFO, `$1${REDACTED}@`).replace(BEARER, `$1${REDACTED}`);
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
