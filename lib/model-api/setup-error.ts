/**
 * A model call that failed because of the setup, not the request: refused credentials (401/403), an unknown
 * model or path (404), no server at the URL. Builds that would fall back to an offline stand-in per item
 * (index extraction, relation typing, media descriptions) stop at the first such failure instead, with its
 * one clear error: a wrong key never leaves a silently half-offline index.
 */
export function isSetupFailure(e: unknown): boolean {
  const x = e as { code?: unknown; lastStatus?: unknown; lastKind?: unknown } | undefined;
  if (!x || x.code !== 'model_call_failed') return false;
  return x.lastStatus === 401 || x.lastStatus === 403 || x.lastStatus === 404 || x.lastKind === 'connection';
}
