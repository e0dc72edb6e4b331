/**
 * `kf models`: print where every stage's model calls go (backend, model, base
 * URL, protocol, limits) and where each setting came from (provenance).
 * `--check` pings each endpoint once. Never prints an API key: only the NAME of
 * the variable and whether it is set.
 */
import type { CommandSpec } from '../command';
import { bool, list, str } from '../command';
import { checkEndpoints } from '../../models/check';
import { resolveStage, type ModelsConfig, type ResolvedEndpoint } from '../../models/config';
import { readModelsConfigFile } from '../../models/config-file';
import { STAGES } from '../../model-api/types';
import { errorMessage } from '../../util/errors';
import { redactSecrets, registerSecret, registerUrlSecrets } from '../../model-api/redact';

function row(r: ResolvedEndpoint, env: NodeJS.ProcessEnv): string[] {
  const p = r.provenance;
  if (r.backend === 'offline') return [`${r.stage.padEnd(11)} offline  rule-based stand-in, results labelled offline  [${p.backend}]`];
  const lines = [`${r.stage.padEnd(11)} ${r.backend.padEnd(8)} ${r.model}  [${p.model}]`, `${''.padEnd(21)}${r.baseUrl}  [${p.baseUrl}]`];
  {
    lines.push(
      `${''.padEnd(21)}key $${r.apiKeyEnv} (${env[r.apiKeyEnv] ? 'set' : 'unset'}) [${p.apiKeyEnv}]; protocol ${r.protocol} [${p.protocol}]; timeout ${r.timeoutMs} ms [${p.timeoutMs}]; ` +
        `concurrency ${r.concurrency} [${p.concurrency}]; attempts ${r.maxAttempts} [${p.maxAttempts}]` +
        (r.temperature !== undefined ? `; temperature ${r.temperature} [${p.temperature}]` : '') +
        (r.maxTokens !== undefined ? `; max tokens ${r.maxTokens} [${p.maxTokens}]` : '') +
        (Object.keys(r.extraBody).length ? `; extra body ${JSON.stringify(r.extraBody)} [${p.extraBody}]` : ''),
    );
  }
  return lines;
}

export const command: CommandSpec = {
  name: 'models',
  group: 'setup',
  summary: 'Show which model/endpoint each stage uses and why (provenance); --check pings the endpoints',
  options: {
    config: { type: 'string', description: 'experiment or models config file (JSON/TOML; its `models` table or the whole file)' },
    defaults: { type: 'string', description: 'project/user-level models config file (below the experiment in precedence)' },
    stage: { type: 'string', multiple: true, description: 'only this stage (repeatable; any name)' },
    check: { type: 'boolean', description: 'ping each endpoint (GET /models) and report whether the configured models are served' },
    json: { type: 'boolean', description: 'print JSON' },
  },
  examples: [
    'kf models',
    'OPENAI_BASE_URL=http://localhost:8000/v1 KF_MODEL=Qwen/Qwen3-8B kf models --check',
    'kf models --config experiments/m5.toml --stage judge --stage synth',
  ],
  async run(args) {
    const env = process.env;
    const experiment: ModelsConfig | undefined = str(args, 'config') ? readModelsConfigFile(str(args, 'config')!) : undefined;
    const defaults: ModelsConfig | undefined = str(args, 'defaults') ? readModelsConfigFile(str(args, 'defaults')!) : undefined;
    const wanted = list(args, 'stage');
    const stages = wanted.length ? wanted : [...new Set([...STAGES, ...Object.keys(experiment?.stages ?? {}), ...Object.keys(defaults?.stages ?? {})])];
    const routes: (ResolvedEndpoint | { stage: string; error: string })[] = stages.map((s) => {
      try {
        return resolveStage(s, { experiment, defaults }, env);
      } catch (e) {
        return { stage: s, error: errorMessage(e) };
      }
    });
    const ok = routes.filter((r): r is ResolvedEndpoint => !('error' in r));
    // Base URLs may carry user:password or ?token=, and keys may be echoed in errors: everything printed is redacted.
    for (const r of ok) {
      registerSecret(env[r.apiKeyEnv]);
      for (const u of r.replicas) registerUrlSecrets(u);
    }
    const log = (line: string) => console.log(redactSecrets(line));
    const checks = bool(args, 'check') ? await checkEndpoints(ok, { env }) : undefined;
    const failed = routes.some((r) => 'error' in r) || (checks ?? []).some((c) => !c.ok);
    if (bool(args, 'json')) {
      const redacted = routes.map((r) => ('error' in r ? r : { ...r, keySet: !!env[r.apiKeyEnv] }));
      log(JSON.stringify({ stages: redacted, checks }, null, 2));
      return failed ? 1 : 0;
    }
    log('stage       backend  model  [where each setting came from]');
    for (const r of routes) {
      if ('error' in r) log(`${r.stage.padEnd(11)} ERROR    ${r.error}`);
      else for (const l of row(r, env)) log(l);
    }
    log(
      '\nPrecedence: stage override > experiment.stages > experiment.defaults > defaults.stages > defaults.defaults > environment > built-in (lib/models/config.ts).',
    );
    if (checks) {
      log('');
      if (!checks.length) log('check: every stage uses the offline backend: no endpoint to ping');
      for (const c of checks) {
        if (!c.ok) {
          log(`check ${c.baseUrl}: FAILED (${c.error}) -- is the server running? is $${c.apiKeyEnv} right?`);
          continue;
        }
        const missing = Object.entries(c.models)
          .filter(([, v]) => !v)
          .map(([m]) => m);
        log(`check ${c.baseUrl}: ok in ${c.latencyMs} ms; serves ${c.served.length ? c.served.slice(0, 8).join(', ') : '(no models listed)'}`);
        if (missing.length) log(`  not listed by the endpoint: ${missing.join(', ')} (stages ${c.stages.join(', ')}): check the model names`);
      }
    }
    if (failed) {
      // The table above says what is wrong per stage; stderr gets the one-line verdict that scripts see.
      const bad = routes.filter((r) => 'error' in r).map((r) => r.stage);
      const down = (checks ?? []).filter((c) => !c.ok).map((c) => c.baseUrl);
      const what = [
        bad.length ? `${bad.length} stage(s) have a bad setting (${bad.join(', ')})` : '',
        down.length ? `${down.length} endpoint(s) did not answer (${down.join(', ')})` : '',
      ]
        .filter(Boolean)
        .join('; ');
      const todo = [bad.length ? 'fix the setting each ERROR line names' : '', down.length ? 'start the server, or fix its URL and $OPENAI_API_KEY' : '']
        .filter(Boolean)
        .join('; ');
      console.error(redactSecrets(`kf models: error: ${what} -- ${todo}`));
    }
    return failed ? 1 : 0;
  },
};
