/**
 * `kf models --check`: ping each configured endpoint once (GET /models) and say
 * whether the configured models are served. Never prints or returns the key.
 */
import { displayUrl, redactSecret } from './call-error';
import type { ResolvedEndpoint } from './config';
import { makeClient } from './openai-provider';

export interface EndpointCheck {
  baseUrl: string;
  apiKeyEnv: string;
  ok: boolean;
  /** Models the endpoint lists (first 50). */
  served: string[];
  /** Per configured model: listed by the endpoint or not (some servers list nothing useful: informative only). */
  models: Record<string, boolean>;
  stages: string[];
  error?: string;
  latencyMs: number;
}

export async function checkEndpoints(
  endpoints: ResolvedEndpoint[],
  opts: { env?: NodeJS.ProcessEnv; fetch?: typeof fetch; timeoutMs?: number } = {},
): Promise<EndpointCheck[]> {
  const env = opts.env ?? process.env;
  const groups = new Map<string, ResolvedEndpoint[]>();
  for (const ep of endpoints) {
    if (ep.backend !== 'openai' || !ep.baseUrl) continue;
    const k = `${ep.baseUrl}\u0000${ep.apiKeyEnv}`;
    groups.set(k, [...(groups.get(k) ?? []), ep]);
  }
  const out: EndpointCheck[] = [];
  for (const eps of groups.values()) {
    const ep = { ...eps[0], timeoutMs: opts.timeoutMs ?? 10_000 };
    const { client, key } = makeClient(ep, env, opts.fetch);
    const started = Date.now();
    const check: EndpointCheck = {
      baseUrl: displayUrl(ep.baseUrl),
      apiKeyEnv: ep.apiKeyEnv,
      ok: false,
      served: [],
      models: {},
      stages: eps.map((e) => e.stage),
      latencyMs: 0,
    };
    try {
      const page = await client.models.list({ timeout: ep.timeoutMs, maxRetries: 0 });
      const ids = (page.data ?? []).map((m) => m.id);
      check.ok = true;
      check.served = ids.slice(0, 50);
      for (const e of eps) check.models[e.model] = ids.includes(e.model);
    } catch (e) {
      const status = (e as { status?: number }).status;
      const chain: string[] = [];
      for (
        let c = (e as { cause?: unknown }).cause as { code?: string; message?: string; cause?: unknown } | undefined;
        c && chain.length < 4;
        c = c.cause as typeof c
      ) {
        chain.push([c.code, c.message].filter(Boolean).join(' '));
      }
      check.error = redactSecret(`${status ? `HTTP ${status}: ` : ''}${[(e as Error).message, ...chain].filter(Boolean).join(': ')}`, key).slice(0, 300);
    }
    check.latencyMs = Date.now() - started;
    out.push(check);
  }
  return out;
}
