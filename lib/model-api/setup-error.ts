/**
 * A model call that failed because of the setup, not the request: refused credentials (401/403), an unknown
 * model or path (404), no server at the URL (connection refused, unknown host). Builds that would fall back
 * to an offline stand-in per item (index extraction, relation typing, media descriptions) stop at the first
 * such failure instead, with its one clear error, and a run stops taking questions: a wrong key never leaves
 * a silently half-offline index. A connection cut mid-reply is not one (the next request may pass).
 */
export function isSetupFailure(e: unknown): boolean {
  const x = e as { code?: unknown; lastStatus?: unknown; lastKind?: unknown; message?: unknown } | undefined;
  if (!x || x.code !== 'model_call_failed') return false;
  if (x.lastStatus === 401 || x.lastStatus === 403 || x.lastStatus === 404) return true;
  return x.lastKind === 'connection' && /ECONNREFUSED|ENOTFOUND|EAI_AGAIN/.test(String(x.message ?? ''));
}
