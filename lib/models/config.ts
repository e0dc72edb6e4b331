/**
 * Per-stage model configuration: which endpoint, model and request settings each
 * pipeline stage uses, resolved through explicit, documented layers.
 *
 * PRECEDENCE (highest first; the first level that sets a field wins, field by field):
 *   1. `stage`                      an explicit override for this stage (CLI flag, notebook parameter)
 *   2. `experiment.stages[stage]`   the experiment config's per-stage block
 *   3. `experiment.defaults`        the experiment config's defaults
 *   4. `defaults.stages[stage]`     project/user-level config, per stage
 *   5. `defaults.defaults`          project/user-level config, defaults
 *   6. environment                  see ENVIRONMENT below
 *   7. built-in                     see BUILTIN below
 * A stage override therefore INHERITS every field it does not set (base URL, model,
 * key env, extra body, timeout, ...) from the levels below it: unlike the authors'
 * runner, an override never loses request extras or timeouts. `extraBody` is merged
 * key by key across levels (a higher level wins per key). Every resolved field
 * records where it came from (`provenance`), printed by `kf models`.
 *
 * ENVIRONMENT (level 6; `<STAGE>` = stage name upper-cased, non-alphanumerics as `_`):
 *   KF_<STAGE>_BASE_URL > OPENAI_BASE_URL          base URL (embedding also reads KF_EMBED_BASE_URL, caption KF_VISION_BASE_URL)
 *   KF_<STAGE>_MODEL > KF_MODEL                    model (vision and caption also read KF_VISION_MODEL;
 *                                                  embedding reads KF_EMBEDDING_MODEL / KF_EMBED_MODEL only)
 *   KF_API_KEY_ENV                                 NAME of the variable holding the key (default OPENAI_API_KEY)
 *   KF_BACKEND (openai|offline), KF_PROTOCOL (json|tools), KF_TIMEOUT_MS, KF_MAX_TOKENS,
 *   KF_TEMPERATURE, KF_CONCURRENCY, KF_MAX_ATTEMPTS, KF_BACKOFF_BASE_MS, KF_BACKOFF_MAX_MS,
 *   KF_MAX_REFUSALS, KF_EXTRA_BODY (a JSON object)
 * A base URL variable may list several replicas, separated by commas or spaces.
 * The API key itself is read from the environment only, at call time, from the
 * variable named by `apiKeyEnv`; configs can never hold a key (an `apiKey` field is
 * rejected with a message saying so).
 *
 * BUILTIN (level 7): apiKeyEnv OPENAI_API_KEY, protocol json, timeoutMs 120000,
 * concurrency 4, maxAttempts 4, backoffBaseMs 500, backoffMaxMs 30000, maxRefusals 32;
 * temperature and maxTokens stay unset, so the caller's
 * request value applies (agent loops: 0 and 2,048; synthesizer: 0.3). A temperature or
 * maxTokens set at any config/env level OVERRIDES the caller's value (the
 * experimenter's explicit choice is never silently shadowed).
 *
 * BACKEND: explicit `backend` wins; otherwise a stage with a base URL uses `openai`,
 * and a stage with no endpoint configured at any level uses the deterministic
 * `offline` backend (its results are labelled offline everywhere). The embedding
 * stage never inherits a CHAT model: it routes to an endpoint only when an
 * embedding model is named for it (stages.embedding.model or KF_EMBED_MODEL), and
 * takes no extraBody from the generic levels (chat template switches break /embeddings).
 */
import { KfError } from '../util/errors';
import { redactUrl } from '../model-api/redact';
import type { AgentProtocol } from '../model-api/types';

export interface EndpointConfig {
  backend?: 'openai' | 'offline';
  /** One base URL, or the replicas of one deployment (requests go to the least-busy healthy one). */
  baseUrl?: string | string[];
  model?: string;
  /** NAME of the environment variable holding the API key (never the key). */
  apiKeyEnv?: string;
  /** Extra fields merged into every request body, e.g. `{"chat_template_kwargs":{"enable_thinking":false}}`. */
  extraBody?: Record<string, unknown>;
  /** Hard limit for one HTTP attempt, in milliseconds. */
  timeoutMs?: number;
  maxTokens?: number;
  temperature?: number;
  /** Agent protocol for loop stages: the paper's JSON-object-per-round or native tool calls. */
  protocol?: AgentProtocol;
  /** Concurrent requests to this endpoint (base URL); the smallest value of the stages sharing it applies. */
  concurrency?: number;
  /** Attempts per call including the first (retries on 5xx/timeouts/resets; a 429 spends a refusal, not an attempt). */
  maxAttempts?: number;
  /** First backoff in ms; doubles per failure up to backoffMaxMs, each wait drawn uniformly below it (full jitter). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** 429 refusals one call accepts (the endpoint is paused while it refuses) before it fails. */
  maxRefusals?: number;
}

export interface ModelsConfig {
  defaults?: EndpointConfig;
  stages?: Record<string, EndpointConfig>;
  cache?: { mode?: CacheMode; file?: string };
  /** USD per 1M tokens, keyed by model id (as configured). */
  prices?: Record<string, { promptPer1M: number; completionPer1M: number }>;
}

export type CacheMode = 'off' | 'read-write' | 'replay-only';
export const CACHE_MODES: readonly CacheMode[] = ['off', 'read-write', 'replay-only'];

export type EndpointField = keyof EndpointConfig;
export const ENDPOINT_FIELDS: readonly EndpointField[] = [
  'backend',
  'baseUrl',
  'model',
  'apiKeyEnv',
  'extraBody',
  'timeoutMs',
  'maxTokens',
  'temperature',
  'protocol',
  'concurrency',
  'maxAttempts',
  'backoffBaseMs',
  'backoffMaxMs',
  'maxRefusals',
];

export interface ResolvedEndpoint {
  stage: string;
  backend: 'openai' | 'offline';
  /** The first replica, without a trailing slash; absent for offline stages. May hold credentials: print it through redactUrl. */
  baseUrl?: string;
  /** Every base URL of the stage (the first is baseUrl); one entry unless replicas are configured; empty offline. */
  replicas: string[];
  /** Model id sent to the endpoint; `offline` for the offline backend. */
  model: string;
  apiKeyEnv: string;
  extraBody: Record<string, unknown>;
  timeoutMs: number;
  /** Set only when configured at some level (then it overrides the request's value). */
  maxTokens?: number;
  temperature?: number;
  protocol: AgentProtocol;
  concurrency: number;
  maxAttempts: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxRefusals: number;
  /** Where each field came from: `stage`, `experiment.stages.judge`, `experiment.defaults`, `defaults.stages.judge`, `defaults.defaults`, `env:KF_MODEL`, `builtin`. */
  provenance: Partial<Record<EndpointField, string>>;
}

export const BUILTIN = {
  apiKeyEnv: 'OPENAI_API_KEY',
  protocol: 'json' as AgentProtocol,
  timeoutMs: 120_000,
  concurrency: 4,
  maxAttempts: 4,
  backoffBaseMs: 500,
  backoffMaxMs: 30_000,
  maxRefusals: 32,
  openaiBaseUrl: 'https://api.openai.com/v1',
};

/** snake_case spellings accepted in config files (TOML users write base_url); run/schema.ts types overrides through them too. */
export const ENDPOINT_ALIASES: Record<string, EndpointField> = {
  base_url: 'baseUrl',
  baseURL: 'baseUrl',
  api_key_env: 'apiKeyEnv',
  extra_body: 'extraBody',
  timeout_ms: 'timeoutMs',
  max_tokens: 'maxTokens',
  max_attempts: 'maxAttempts',
  backoff_base_ms: 'backoffBaseMs',
  backoff_max_ms: 'backoffMaxMs',
  max_refusals: 'maxRefusals',
};

/**
 * Validate and normalise one endpoint block (from a file or code). Unknown keys
 * fail (a typo must not silently fall back to a default), so do literal keys.
 */
export function normalizeEndpointConfig(raw: unknown, where: string): EndpointConfig {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badConfig(`${where} must be an object`, 'write it as a table/object of endpoint fields');
  const out: EndpointConfig = {};
  const o = out as Record<string, unknown>;
  for (const [k0, v] of Object.entries(raw as Record<string, unknown>)) {
    if (v === undefined) continue;
    const k = (ENDPOINT_ALIASES[k0] ?? k0) as EndpointField;
    if (/^api_?key$/i.test(k0) || k0 === 'key') {
      throw badConfig(
        `${where}.${k0}: API keys are never read from config files`,
        'put the key in an environment variable and name it with apiKeyEnv (default OPENAI_API_KEY)',
      );
    }
    if (!ENDPOINT_FIELDS.includes(k)) {
      const near = ENDPOINT_FIELDS.find((f) => f.toLowerCase() === k0.toLowerCase().replace(/_/g, ''));
      throw badConfig(`${where}: unknown field "${k0}"`, near ? `did you mean ${near}?` : `known fields: ${ENDPOINT_FIELDS.join(', ')}`);
    }
    const path = `${where}.${k}`;
    switch (k) {
      case 'backend':
        if (v !== 'openai' && v !== 'offline') throw badConfig(`${path} must be "openai" or "offline", got ${JSON.stringify(v)}`, 'fix the value');
        o[k] = v;
        break;
      case 'protocol':
        if (v !== 'json' && v !== 'tools') throw badConfig(`${path} must be "json" or "tools", got ${JSON.stringify(v)}`, 'fix the value');
        o[k] = v;
        break;
      case 'baseUrl':
        o[k] = normalizeBaseUrls(v, path);
        break;
      case 'model':
      case 'apiKeyEnv':
        if (typeof v !== 'string' || !v.trim()) throw badConfig(`${path} must be a non-empty string`, 'fix the value');
        if (k === 'apiKeyEnv' && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) {
          throw badConfig(
            `${path} must be the NAME of an environment variable (like OPENAI_API_KEY), not a key`,
            'set apiKeyEnv to a variable name and export the key in that variable',
          );
        }
        o[k] = v.trim();
        break;
      case 'extraBody':
        if (!v || typeof v !== 'object' || Array.isArray(v))
          throw badConfig(`${path} must be an object`, 'e.g. {"chat_template_kwargs": {"enable_thinking": false}}');
        // A plain JSON copy: TOML tables have null prototypes, and callers must not mutate our copy.
        o[k] = JSON.parse(JSON.stringify(v));
        break;
      case 'temperature':
        if (typeof v !== 'number' || !(v >= 0 && v <= 2)) throw badConfig(`${path} must be a number in [0, 2], got ${JSON.stringify(v)}`, 'fix the value');
        o[k] = v;
        break;
      default: // timeoutMs, maxTokens, concurrency, maxAttempts, backoffBaseMs, backoffMaxMs, maxRefusals
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
          throw badConfig(`${path} must be a positive integer, got ${JSON.stringify(v)}`, 'fix the value');
        o[k] = v;
    }
  }
  return out;
}

/** Several base URLs in one string: separated by commas or spaces before the next scheme. */
export function splitBaseUrls(text: string): string[] {
  return text
    .split(/[\s,]+(?=https?:\/\/)/)
    .map((u) => u.trim())
    .filter(Boolean);
}

function hasUserinfo(u: string): boolean {
  try {
    const parsed = new URL(u);
    return !!(parsed.username || parsed.password);
  } catch {
    return false;
  }
}

/** One URL (a string) or replicas (an array, or a list in one string), each an http(s) URL without a trailing slash. */
function normalizeBaseUrls(v: unknown, path: string): string | string[] {
  const urls = typeof v === 'string' ? splitBaseUrls(v) : Array.isArray(v) ? v : [v];
  if (!urls.length) throw badConfig(`${path} must be an http(s) URL or a list of them, got ${JSON.stringify(v)}`, 'e.g. http://localhost:8000/v1');
  const out = urls.map((u, i) => {
    if (typeof u !== 'string' || !/^https?:\/\/[^\s]+$/.test(u)) {
      // Never echo a URL: it may carry credentials.
      const what = typeof u === 'string' ? 'a text that is not an http(s) URL' : JSON.stringify(u);
      throw badConfig(`${path}${urls.length > 1 ? `[${i}]` : ''} must be an http(s) URL, got ${what}`, 'e.g. http://localhost:8000/v1');
    }
    if (hasUserinfo(u)) {
      throw badConfig(
        `${path}${urls.length > 1 ? `[${i}]` : ''} (${redactUrl(u)}) carries a user:password part, which HTTP clients (fetch) refuse to send`,
        'remove it from the URL and pass the credential as the key (the variable apiKeyEnv names; sent as a Bearer token)',
      );
    }
    return u.replace(/\/+$/, '');
  });
  if (new Set(out).size !== out.length) throw badConfig(`${path} lists the same replica twice`, 'name each base URL once');
  return out.length === 1 ? out[0] : out;
}

/** Validate a whole models config (from a file or code) and return a normalised copy. */
export function normalizeModelsConfig(raw: unknown, where = 'models'): ModelsConfig {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badConfig(`${where} must be an object`, 'see README "Using a real model"');
  const r = raw as Record<string, unknown>;
  const known = ['defaults', 'stages', 'cache', 'prices'];
  for (const k of Object.keys(r)) if (!known.includes(k)) throw badConfig(`${where}: unknown field "${k}"`, `known fields: ${known.join(', ')}`);
  const out: ModelsConfig = {};
  if (r.defaults !== undefined) out.defaults = normalizeEndpointConfig(r.defaults, `${where}.defaults`);
  if (r.stages !== undefined) {
    if (!r.stages || typeof r.stages !== 'object' || Array.isArray(r.stages))
      throw badConfig(`${where}.stages must be an object keyed by stage`, 'e.g. stages.judge = { model = "..." }');
    out.stages = {};
    for (const [s, e] of Object.entries(r.stages as Record<string, unknown>)) out.stages[s] = normalizeEndpointConfig(e, `${where}.stages.${s}`);
  }
  if (r.cache !== undefined) {
    const c = r.cache as Record<string, unknown>;
    if (!c || typeof c !== 'object') throw badConfig(`${where}.cache must be an object`, 'e.g. { mode = "read-write", file = ".kf-cache/models.sqlite" }');
    for (const k of Object.keys(c)) if (k !== 'mode' && k !== 'file') throw badConfig(`${where}.cache: unknown field "${k}"`, 'known fields: mode, file');
    if (c.mode !== undefined && !CACHE_MODES.includes(c.mode as CacheMode))
      throw badConfig(`${where}.cache.mode must be one of ${CACHE_MODES.join('|')}, got ${JSON.stringify(c.mode)}`, 'fix the value');
    if (c.file !== undefined && (typeof c.file !== 'string' || !c.file)) throw badConfig(`${where}.cache.file must be a path`, 'fix the value');
    out.cache = { mode: c.mode as CacheMode | undefined, file: c.file as string | undefined };
  }
  if (r.prices !== undefined) {
    out.prices = {};
    for (const [m, p] of Object.entries(r.prices as Record<string, unknown>)) {
      const pp = p as Record<string, unknown>;
      const prompt = pp?.promptPer1M ?? pp?.prompt_per_1m;
      const completion = pp?.completionPer1M ?? pp?.completion_per_1m;
      if (typeof prompt !== 'number' || typeof completion !== 'number' || prompt < 0 || completion < 0) {
        throw badConfig(`${where}.prices.${m} needs non-negative promptPer1M and completionPer1M (USD per 1M tokens)`, 'fix the price table');
      }
      out.prices[m] = { promptPer1M: prompt, completionPer1M: completion };
    }
  }
  return out;
}

function badConfig(message: string, hint: string): KfError {
  return new KfError('bad_models_config', message, hint, { concerns: 'models config' });
}

/** `judge` -> `JUDGE`, `my-stage` -> `MY_STAGE`: the stage part of KF_<STAGE>_MODEL. */
export function stageEnvName(stage: string): string {
  return stage.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
}

/** Names of the env variables consulted for one field of one stage, highest first. */
function envNames(stage: string, field: 'baseUrl' | 'model'): string[] {
  const S = stageEnvName(stage);
  if (field === 'baseUrl') {
    const names = [`KF_${S}_BASE_URL`];
    if (stage === 'embedding') names.push('KF_EMBED_BASE_URL');
    if (stage === 'caption') names.push('KF_VISION_BASE_URL');
    names.push('OPENAI_BASE_URL');
    return names;
  }
  const names = [`KF_${S}_MODEL`];
  if (stage === 'embedding') return [...names, 'KF_EMBED_MODEL'];
  if (stage === 'caption') names.push('KF_VISION_MODEL');
  names.push('KF_MODEL');
  return names;
}

/** The environment as one more layer (with the variable name as provenance per field). */
export function environmentLayer(stage: string, env: NodeJS.ProcessEnv): { config: EndpointConfig; provenance: Partial<Record<EndpointField, string>> } {
  const raw: Record<string, unknown> = {};
  const prov: Partial<Record<EndpointField, string>> = {};
  const first = (names: string[]) => names.find((n) => env[n] !== undefined && env[n] !== '');
  const put = (field: EndpointField, name: string | undefined, parse: (s: string) => unknown = (s) => s) => {
    if (!name) return;
    const value = env[name]!;
    try {
      raw[field] = parse(value);
    } catch {
      throw badConfig(
        `environment variable ${name} is not valid for ${field}`,
        field === 'extraBody' ? 'set it to a JSON object, e.g. {"chat_template_kwargs":{"enable_thinking":false}}' : 'fix or unset it',
      );
    }
    prov[field] = `env:${name}`;
  };
  const num = (s: string) => {
    const n = Number(s);
    if (!Number.isFinite(n)) throw new Error('not a number');
    return n;
  };
  put('baseUrl', first(envNames(stage, 'baseUrl')));
  put('model', first(envNames(stage, 'model')));
  put('apiKeyEnv', first(['KF_API_KEY_ENV']));
  put('backend', first(['KF_BACKEND']));
  put('protocol', first(['KF_PROTOCOL']));
  put('timeoutMs', first(['KF_TIMEOUT_MS']), num);
  put('maxTokens', first(['KF_MAX_TOKENS']), num);
  put('temperature', first(['KF_TEMPERATURE']), num);
  put('concurrency', first(['KF_CONCURRENCY']), num);
  put('maxAttempts', first(['KF_MAX_ATTEMPTS']), num);
  put('backoffBaseMs', first(['KF_BACKOFF_BASE_MS']), num);
  put('backoffMaxMs', first(['KF_BACKOFF_MAX_MS']), num);
  put('maxRefusals', first(['KF_MAX_REFUSALS']), num);
  put('extraBody', first(['KF_EXTRA_BODY']), (s) => JSON.parse(s));
  let config: EndpointConfig;
  try {
    config = normalizeEndpointConfig(raw, 'environment');
  } catch (e) {
    // Name the variable, not the internal field path.
    const field = Object.keys(raw).find((f) => (e as Error).message.includes(`environment.${f}`)) as EndpointField | undefined;
    if (field && e instanceof KfError)
      throw badConfig(`environment variable ${prov[field]!.slice(4)}: ${e.message.replace(`environment.${field} `, '')}`, e.hint);
    throw e;
  }
  return { config, provenance: prov };
}

type Level = { name: string; config: EndpointConfig; fieldNames?: Partial<Record<EndpointField, string>> };
type Provenance = Partial<Record<EndpointField, string>>;

/** The configuration levels of one stage, highest precedence first. */
function stageLevels(stage: string, layers: { stage?: EndpointConfig; experiment?: ModelsConfig; defaults?: ModelsConfig }, env: NodeJS.ProcessEnv): Level[] {
  const envLayer = environmentLayer(stage, env);
  return [
    { name: 'stage', config: normalizeEndpointConfig(layers.stage, `override for stage ${stage}`) },
    { name: `experiment.stages.${stage}`, config: layers.experiment?.stages?.[stage] ?? {} },
    { name: 'experiment.defaults', config: layers.experiment?.defaults ?? {} },
    { name: `defaults.stages.${stage}`, config: layers.defaults?.stages?.[stage] ?? {} },
    { name: 'defaults.defaults', config: layers.defaults?.defaults ?? {} },
    { name: 'env', config: envLayer.config, fieldNames: envLayer.provenance },
  ];
}

/** A generic (defaults-level) value applies to every stage; the embedding stage takes only some of them. */
const isGeneric = (level: Level) => level.name.endsWith('.defaults') || level.name === 'env';

/** The first level that sets a field wins; records where it came from. */
function fieldPicker(stage: string, levels: Level[], provenance: Provenance) {
  const isEmbedding = stage === 'embedding';
  // A generic model is a chat model: the embedding stage must not inherit it.
  // Likewise an inherited `backend: openai` does not force it onto an endpoint without an embedding model.
  const skip = (level: Level, field: EndpointField) =>
    isEmbedding && ((field === 'model' && level.name.endsWith('.defaults')) || (field === 'backend' && isGeneric(level) && level.config.backend === 'openai'));
  return <K extends EndpointField>(field: K): EndpointConfig[K] | undefined => {
    for (const level of levels) {
      const v = level.config[field];
      if (v === undefined || skip(level, field)) continue;
      provenance[field] = level.fieldNames?.[field] ?? level.name;
      return v;
    }
    return undefined;
  };
}

/** extraBody merged key by key across levels (a higher level wins per key). */
function mergedExtraBody(stage: string, levels: Level[], provenance: Provenance): Record<string, unknown> {
  const extraBody: Record<string, unknown> = {};
  const sources: string[] = [];
  for (const level of [...levels].reverse()) {
    const eb = level.config.extraBody;
    // Request extras of chat (chat_template_kwargs...) would break /embeddings: the embedding stage takes only its own.
    if (!eb || (stage === 'embedding' && isGeneric(level))) continue;
    Object.assign(extraBody, eb);
    sources.unshift(level.fieldNames?.extraBody ?? level.name);
  }
  if (sources.length) provenance.extraBody = sources.join(' + ');
  return extraBody;
}

/**
 * Resolve one stage's endpoint through the layers (see the file comment for the
 * precedence). `layers.stage` is an explicit per-stage override; `experiment` and
 * `defaults` are whole models configs (their `stages[stage]` and `defaults` apply).
 */
export function resolveStage(
  stage: string,
  layers: { stage?: EndpointConfig; experiment?: ModelsConfig; defaults?: ModelsConfig },
  env: NodeJS.ProcessEnv = process.env,
): ResolvedEndpoint {
  const levels = stageLevels(stage, layers, env);
  const provenance: Provenance = {};
  const pick = fieldPicker(stage, levels, provenance);
  const extraBody = mergedExtraBody(stage, levels, provenance);
  const isEmbedding = stage === 'embedding';
  const baseUrl = pick('baseUrl');
  const model = pick('model');
  let backend = pick('backend');
  if (!backend) {
    backend = baseUrl && (!isEmbedding || model) ? 'openai' : 'offline';
    provenance.backend =
      backend === 'openai'
        ? `builtin (base URL from ${provenance.baseUrl})`
        : isEmbedding && baseUrl
          ? 'builtin (no embedding model named)'
          : 'builtin (no endpoint configured)';
  }
  const num = (field: 'timeoutMs' | 'concurrency' | 'maxAttempts' | 'backoffBaseMs' | 'backoffMaxMs' | 'maxRefusals'): number => {
    const v = pick(field);
    if (v === undefined) provenance[field] = 'builtin';
    return v ?? BUILTIN[field];
  };
  const resolved: ResolvedEndpoint = {
    stage,
    backend,
    model: 'offline',
    replicas: [],
    apiKeyEnv: pick('apiKeyEnv') ?? ((provenance.apiKeyEnv = 'builtin'), BUILTIN.apiKeyEnv),
    extraBody,
    timeoutMs: num('timeoutMs'),
    maxTokens: pick('maxTokens'),
    temperature: pick('temperature'),
    protocol: pick('protocol') ?? ((provenance.protocol = 'builtin'), BUILTIN.protocol),
    concurrency: num('concurrency'),
    maxAttempts: num('maxAttempts'),
    backoffBaseMs: num('backoffBaseMs'),
    backoffMaxMs: num('backoffMaxMs'),
    maxRefusals: num('maxRefusals'),
    provenance,
  };
  if (backend === 'offline') {
    provenance.model = provenance.backend?.startsWith('builtin') ? 'builtin (offline backend)' : `offline backend (from ${provenance.backend})`;
    delete provenance.baseUrl;
    return resolved;
  }
  return withEndpoint(resolved, baseUrl, model);
}

/** Fill base URL(s) and model of a stage routed to an endpoint (the OpenAI API when no URL is named). */
function withEndpoint(resolved: ResolvedEndpoint, baseUrl: string | string[] | undefined, model: string | undefined): ResolvedEndpoint {
  const { stage, provenance } = resolved;
  if (!baseUrl) provenance.baseUrl = 'builtin (OpenAI API)';
  resolved.replicas = baseUrl === undefined ? [BUILTIN.openaiBaseUrl] : typeof baseUrl === 'string' ? [baseUrl] : [...baseUrl];
  resolved.baseUrl = resolved.replicas[0];
  if (!model) {
    throw new KfError(
      'no_model',
      `stage ${stage} routes to ${redactUrl(resolved.baseUrl)} but no model is named for it`,
      stage === 'embedding'
        ? 'set KF_EMBED_MODEL or models.stages.embedding.model (a chat model is never used for embeddings)'
        : `set KF_MODEL (or KF_${stageEnvName(stage)}_MODEL) or models.defaults.model / models.stages.${stage}.model`,
      { concerns: stage },
    );
  }
  resolved.model = model;
  return resolved;
}
