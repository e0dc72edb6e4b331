/**
 * The OpenAI-compatible chat provider (vLLM, Ollama, llama.cpp server, OpenAI):
 * ONE attempt of one chat call over the official `openai` SDK. Retries, the
 * concurrency limit, the breaker, redaction, the cache and the ledger are
 * middleware around it (lib/models/middleware/), so the SDK's own retries are off.
 *
 * The key is read from the environment variable the config names, never from a
 * config file, and is scrubbed from every error message this file produces.
 * `fetch` is injectable (tests, proxies); the SDK never reads OPENAI_* variables
 * behind our back (base URL, key, organisation and project are passed explicitly).
 */
import OpenAI from 'openai';
import { AttemptError, displayUrl, parseRetryAfter, redactSecret } from './call-error';
import { effectiveParams, type EffectiveParams } from './cache-key';
import type { ResolvedEndpoint } from './config';
import { loadImage, toDataUrl } from '../model-api/images';
import { registerSecret, registerUrlSecrets } from '../model-api/redact';
import type { ChatMessage, ChatModel, ChatRequest, ChatResponse, ToolCall } from '../model-api/types';

export interface OpenAIProviderOptions {
  endpoint: ResolvedEndpoint;
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** Placeholder sent when the key variable is unset: local servers (vLLM without --api-key, Ollama) ignore it. */
export const NO_KEY_PLACEHOLDER = 'no-key-set';

/**
 * A base URL's query string (`.../v1?token=...`, how some gateways take their key) moved into the
 * SDK's `defaultQuery`: the SDK appends the API path to `baseURL`, which would land after the
 * query string and break every call.
 */
export function splitQuery(baseUrl: string | undefined): { baseURL: string | undefined; defaultQuery?: Record<string, string> } {
  if (!baseUrl) return { baseURL: baseUrl };
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return { baseURL: baseUrl }; // the config layer reports malformed URLs; pass it through unchanged
  }
  if (!u.search) return { baseURL: baseUrl };
  const defaultQuery = Object.fromEntries(u.searchParams.entries());
  u.search = '';
  return { baseURL: u.toString().replace(/\/$/, ''), defaultQuery };
}

/** Make one SDK client for an endpoint (shared by chat and embeddings). */
export function makeClient(ep: ResolvedEndpoint, env: NodeJS.ProcessEnv, fetchImpl?: typeof fetch): { client: OpenAI; key: string | undefined } {
  const key = env[ep.apiKeyEnv] || undefined;
  registerSecret(key);
  registerUrlSecrets(ep.baseUrl);
  const { baseURL, defaultQuery } = splitQuery(ep.baseUrl);
  const client = new OpenAI({
    apiKey: key ?? NO_KEY_PLACEHOLDER,
    baseURL,
    ...(defaultQuery ? { defaultQuery } : {}),
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: ep.timeoutMs,
    logLevel: 'off',
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
  return { client, key };
}

type OAMessage = Record<string, unknown>;

export function toOpenAIMessages(messages: ChatMessage[]): OAMessage[] {
  return messages.map((m) => {
    const content =
      typeof m.content === 'string'
        ? m.content
        : m.content.map((p) =>
            p.type === 'text'
              ? { type: 'text', text: p.text }
              : { type: 'image_url', image_url: { url: p.dataUrl && !p.path ? p.dataUrl : toDataUrl(loadImage(p)) } },
          );
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: typeof content === 'string' ? content : JSON.stringify(content) };
    const out: OAMessage = { role: m.role, content };
    if (m.name) out.name = m.name;
    if (m.role === 'assistant' && m.toolCalls?.length) {
      out.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
      if (content === '') out.content = null;
    }
    return out;
  });
}

/** The request body sent for a chat call (core fields win over extraBody's). */
export function buildChatBody(req: ChatRequest, params: EffectiveParams): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ...params.extraBody,
    model: params.model,
    messages: toOpenAIMessages(req.messages),
    temperature: params.temperature,
    max_tokens: params.maxTokens,
  };
  if (req.tools?.length) {
    body.tools = req.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
  }
  if (req.json) body.response_format = { type: 'json_object' };
  return body;
}

/**
 * Run `fn` with a hard timeout and the caller's cancellation merged into one
 * signal, and classify any failure as an AttemptError (key scrubbed).
 */
export async function guardedAttempt<T>(
  ep: ResolvedEndpoint,
  key: string | undefined,
  signal: AbortSignal | undefined,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ctrl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctrl.abort(new Error(`timeout after ${ep.timeoutMs} ms`));
  }, ep.timeoutMs);
  const onAbort = () => ctrl.abort(signal?.reason);
  if (signal?.aborted) ctrl.abort(signal.reason);
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn(ctrl.signal);
  } catch (e) {
    throw classify(e, ep, key, timedOut, signal?.aborted === true);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function classify(e: unknown, ep: ResolvedEndpoint, key: string | undefined, timedOut: boolean, cancelled: boolean): AttemptError {
  const scrub = (s: string) => redactSecret(s, key).slice(0, 500);
  if (e instanceof AttemptError) return e;
  if (cancelled) return new AttemptError('aborted', 'cancelled by the caller');
  if (timedOut || e instanceof OpenAI.APIConnectionTimeoutError) return new AttemptError('timeout', `no complete reply within ${ep.timeoutMs} ms`);
  if (e instanceof OpenAI.APIUserAbortError) return new AttemptError('aborted', 'request aborted');
  if (e instanceof OpenAI.APIConnectionError) {
    const cause = (e as { cause?: { code?: string; message?: string; cause?: { code?: string; message?: string } } }).cause;
    const code = cause?.code ?? cause?.cause?.code;
    const detail = [e.message, cause?.message, cause?.cause?.message].filter(Boolean).join(': ');
    return new AttemptError('connection', scrub(`${code ? `${code} ` : ''}${detail} (${displayUrl(ep.baseUrl)})`));
  }
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    return new AttemptError(
      'http',
      scrub(e.message.replace(/^\d{3}\s*/, '') || 'no body'),
      e.status,
      parseRetryAfter(e.headers as { get(n: string): string | null } | undefined),
    );
  }
  const name = (e as Error)?.name;
  if (name === 'AbortError') return new AttemptError('timeout', `no complete reply within ${ep.timeoutMs} ms`);
  if (e instanceof SyntaxError) return new AttemptError('bad_response', scrub(`reply is not valid JSON: ${e.message}`));
  // Body-read failures after the headers (a reset mid-body) surface as TypeErrors from undici.
  if (e instanceof TypeError)
    return new AttemptError('connection', scrub(`${e.message}${(e as { cause?: Error }).cause ? `: ${(e as { cause?: Error }).cause!.message}` : ''}`));
  return new AttemptError('bad_response', scrub(String((e as Error)?.message ?? e)));
}

interface OAChoice {
  message?: { content?: string | null; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[] };
  finish_reason?: string | null;
}

/** One chat attempt against an OpenAI-compatible endpoint. */
export class OpenAIChatProvider implements ChatModel {
  readonly backend = 'openai' as const;
  private readonly client: OpenAI;
  private readonly key: string | undefined;

  constructor(
    readonly endpoint: ResolvedEndpoint,
    opts: { env?: NodeJS.ProcessEnv; fetch?: typeof fetch } = {},
  ) {
    const { client, key } = makeClient(endpoint, opts.env ?? process.env, opts.fetch);
    this.client = client;
    this.key = key;
  }

  get id(): string {
    return this.endpoint.model;
  }

  /** Scrub the key from any text (used by callers that log request/response material). */
  redact(text: string): string {
    return redactSecret(text, this.key);
  }

  /** ONE attempt as a ChatModel call: failures are AttemptErrors for the retry layer above. */
  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    return { ...(await this.attempt(req, effectiveParams(req, this.endpoint), signal)), cacheHit: false, attempts: 1 };
  }

  async attempt(req: ChatRequest, params: EffectiveParams, signal?: AbortSignal): Promise<Omit<ChatResponse, 'cacheHit' | 'attempts'>> {
    const body = buildChatBody(req, params);
    const started = Date.now();
    const res = await guardedAttempt(this.endpoint, this.key, signal, (s) =>
      this.client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, {
        signal: s,
        timeout: this.endpoint.timeoutMs,
        maxRetries: 0,
      }),
    );
    const r = res as unknown as { choices?: OAChoice[]; usage?: { prompt_tokens?: number; completion_tokens?: number }; model?: string };
    const choice = Array.isArray(r?.choices) ? r.choices[0] : undefined;
    if (!choice || typeof choice !== 'object') {
      throw new AttemptError('bad_response', `reply has no choices (got ${redactSecret(JSON.stringify(res) ?? String(res), this.key).slice(0, 200)})`);
    }
    const toolCalls: ToolCall[] = (choice.message?.tool_calls ?? []).map((c, i) => ({
      id: c.id ?? `call_${i}`,
      name: c.function?.name ?? '',
      arguments: c.function?.arguments ?? '',
    }));
    return {
      text: choice.message?.content ?? '',
      toolCalls,
      usage: { promptTokens: r.usage?.prompt_tokens ?? 0, completionTokens: r.usage?.completion_tokens ?? 0 },
      // The configured id (what prices, cache keys and manifests use), not the server's alias.
      model: params.model,
      backend: 'openai',
      finishReason: choice.finish_reason ?? 'stop',
      latencyMs: Date.now() - started,
    };
  }
}
