/** Shared bits of the model-layer tests: temp dirs, a router pointed at a scripted server, a no-wait sleep. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createModelRouter, type RouterOptions } from '../../lib/models/router';
import type { ModelsConfig } from '../../lib/models/config';
import type { ScriptedServer } from '../../lib/models/testing/scripted-server';

export function tempDir(prefix = 'kf-models-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Records backoff delays instead of waiting (behaviour, not wall-clock). */
export function recordingSleep(): { delays: number[]; sleep: (ms: number, signal?: AbortSignal) => Promise<void> } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms, signal) => {
      if (signal?.aborted) throw signal.reason;
      delays.push(ms);
    },
  };
}

export const SECRET = 'sk-kf-test-SECRET-7f3a9c1e5b';

export function routerFor(server: ScriptedServer, config: ModelsConfig = {}, opts: RouterOptions = {}) {
  const cfg: ModelsConfig = { ...config, defaults: { baseUrl: server.url, model: 'base-model', ...(config.defaults ?? {}) } };
  return createModelRouter(cfg, { env: { OPENAI_API_KEY: SECRET }, cacheMode: 'off', ...opts });
}
