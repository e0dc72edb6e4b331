/**
 * A model router aimed at a ScriptedServer, for measurements that run a pipeline against a scripted
 * endpoint (lib/knowforge/scripts/bench.ts). It lives beside the router (lib/models) so that code
 * above it never builds a router of its own: the run and the CLI hand theirs in (issue 30).
 */
import { createModelRouter } from '../router';

export interface ScriptedRouterOptions {
  /** The model each stage asks for (the server's rules match on it). */
  stages: Record<string, string>;
  /** Requests in flight at once (default 64: the server answers at once). */
  concurrency?: number;
}

/** A router whose every stage calls the scripted server at `server.url` (a ScriptedServer, here or in another process), one attempt per call, no cache: what it sends is what the pipeline asked. */
export function scriptedRouter(server: { url: string }, opts: ScriptedRouterOptions): ReturnType<typeof createModelRouter> {
  return createModelRouter(
    {
      defaults: { baseUrl: server.url, model: 'base', concurrency: opts.concurrency ?? 64, maxAttempts: 1 },
      stages: Object.fromEntries(Object.entries(opts.stages).map(([s, model]) => [s, { model }])),
    },
    { env: { OPENAI_API_KEY: 'bench' }, cacheMode: 'off' },
  );
}
