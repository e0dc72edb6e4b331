/**
 * Dense text embeddings from an OpenAI-compatible `/embeddings` endpoint, as the
 * index's `Embedder`: batched, unit-normalised, cached per (model, text) in the
 * model cache, with the same retries, concurrency limit and ledger as chat.
 *
 * The endpoint decides the dimension: `dim` is known after the first `embed()`
 * or after `init()` (one probe call, cached like any other text).
 */
import { redactError, redactUrl } from '../model-api/redact';
import { normalize } from '../util/vectors';
import type OpenAI from 'openai';
import { KfError, isKfError } from '../util/errors';
import { sha256 } from '../util/hash';
import type { ModelCache } from './cache';
import type { Backoff } from './backoff';
import { AttemptError, ModelCallError } from './call-error';
import type { CacheMode, ResolvedEndpoint } from './config';
import type { Ledger } from './ledger';
import { guardedAttempt, makeClient } from './openai-provider';
import type { EndpointState } from './endpoint-state';
import { retryCall } from './retry';
import { acquireSlot } from './middleware/concurrency';
import type { Embedder } from '../model-api/types';

export interface EmbedderDeps {
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
  cache?: ModelCache;
  cacheMode?: CacheMode;
  ledger?: Ledger;
  runId?: string;
  backoff: Backoff;
  /** The endpoint's shared state: its breaker gate and concurrency slots (embeddings use the first replica). */
  state: EndpointState;
  /** Texts per HTTP request (default 64). */
  batchSize?: number;
}

/** The vector made unit length in place (the endpoint's vectors are compared by dot product). */
function unitVector(v: Float32Array): Float32Array {
  normalize(v);
  return v;
}

export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  private dimValue = 0;
  private readonly client: OpenAI;
  private readonly key: string | undefined;
  private readonly batchSize: number;

  constructor(
    readonly endpoint: ResolvedEndpoint,
    private readonly deps: EmbedderDeps,
  ) {
    this.id = `openai:${endpoint.model}`;
    const { client, key } = makeClient(endpoint, deps.env ?? process.env, deps.fetch);
    this.client = client;
    this.key = key;
    this.batchSize = Math.max(1, deps.batchSize ?? 64);
  }

  get dim(): number {
    if (!this.dimValue) {
      throw new KfError(
        'embedder_dim_unknown',
        `the dimension of embedding model ${this.endpoint.model} is not known yet`,
        'call `await embedder.init()` (or embed something) before reading dim',
      );
    }
    return this.dimValue;
  }

  /** Learn the dimension with one probe call (cached). */
  async init(): Promise<number> {
    if (!this.dimValue) await this.embed(['dimension probe']);
    return this.dimValue;
  }

  private keyOf(text: string): string {
    return sha256(`emb/1\u0000${this.endpoint.model}\u0000${text}`);
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: (Float32Array | undefined)[] = new Array(texts.length);
    const mode = this.deps.cache ? (this.deps.cacheMode ?? 'read-write') : 'off';
    const keys = texts.map((t) => this.keyOf(t));
    if (mode !== 'off') {
      const found = this.deps.cache!.getEmbeddings([...new Set(keys)]);
      keys.forEach((k, i) => (out[i] = found.get(k)));
    }
    const missing = [...new Set(texts.filter((_, i) => !out[i]))];
    if (mode !== 'off' && texts.length && missing.length === 0) {
      this.record(0, 0, true, 0);
      this.setDim(out[0]!.length);
    }
    if (missing.length && mode === 'replay-only') {
      throw new KfError(
        'cache_miss',
        `replay-only: the cache has no embedding of ${missing.length} text(s) for model ${this.endpoint.model} (first: "${missing[0].slice(0, 60)}")`,
        'rerun with cache mode read-write (calls the endpoint) or restore the recorded cache',
      );
    }
    const fresh = new Map<string, Float32Array>();
    for (let b = 0; b < missing.length; b += this.batchSize) {
      const batch = missing.slice(b, b + this.batchSize);
      const vecs = await this.embedBatch(batch, signal);
      batch.forEach((t, i) => fresh.set(t, vecs[i]));
      if (mode === 'read-write')
        this.deps.cache!.putEmbeddings(
          this.endpoint.model,
          batch.map((t, i) => [this.keyOf(t), vecs[i]]),
        );
    }
    return texts.map((t, i) => out[i] ?? fresh.get(t)!);
  }

  private setDim(d: number): void {
    if (this.dimValue && d !== this.dimValue) {
      throw new KfError(
        'embedder_dim_changed',
        `embedding model ${this.endpoint.model} returned ${d}-d vectors after ${this.dimValue}-d ones`,
        'the endpoint changed models: clear the embedding cache (kf cache clear --everything) and rebuild the index',
      );
    }
    this.dimValue = d;
  }

  private record(promptTokens: number, latencyMs: number, cacheHit: boolean, attempts: number, error?: string): void {
    this.deps.ledger?.record({
      stage: 'embedding',
      model: this.endpoint.model,
      backend: 'openai',
      runId: this.deps.runId,
      promptTokens,
      completionTokens: 0,
      latencyMs,
      cacheHit,
      attempts,
      error,
    });
  }

  /** One HTTP attempt through the endpoint's breaker gate and one of its connection slots. */
  private async attemptBatch(batch: string[], signal?: AbortSignal): Promise<OpenAI.CreateEmbeddingResponse> {
    const ep = this.endpoint;
    const { breaker, semaphore, label } = this.deps.state;
    await breaker.gate(signal);
    const release = await acquireSlot(semaphore, signal);
    try {
      const res = await guardedAttempt(ep, this.key, signal, (s) =>
        this.client.embeddings.create(
          { ...ep.extraBody, model: ep.model, input: batch.map((t) => (t === '' ? ' ' : t)), encoding_format: 'float' } as OpenAI.EmbeddingCreateParams,
          { signal: s, timeout: ep.timeoutMs, maxRetries: 0 },
        ),
      );
      breaker.succeeded();
      this.deps.ledger?.recordAttempt(label, 'answered', { promptTokens: res.usage?.prompt_tokens ?? 0, completionTokens: 0 });
      return res;
    } catch (e) {
      if (e instanceof AttemptError && e.kind !== 'aborted') {
        breaker.observe(e);
        this.deps.ledger?.recordAttempt(label, e.endpointRefusing ? 'refused' : 'failed');
      }
      throw e;
    } finally {
      release();
    }
  }

  private async embedBatch(batch: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const ep = this.endpoint;
    const started = Date.now();
    try {
      const { value, attempts } = await retryCall(
        () => this.attemptBatch(batch, signal),
        { maxAttempts: ep.maxAttempts, maxRefusals: ep.maxRefusals, backoff: this.deps.backoff },
        { stage: 'embedding', baseUrl: ep.baseUrl, model: ep.model, apiKeyEnv: ep.apiKeyEnv },
        signal,
      );
      const data = (value as unknown as { data?: { index?: number; embedding?: number[] }[] }).data;
      if (!Array.isArray(data) || data.length !== batch.length || data.some((d) => !Array.isArray(d.embedding))) {
        throw new KfError(
          'bad_embeddings',
          `embedding endpoint ${redactUrl(ep.baseUrl)} returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${batch.length} texts (model ${ep.model})`,
          'check that the model is an embedding model and the server supports /embeddings',
        );
      }
      const sorted = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      const vecs = sorted.map((d) => unitVector(Float32Array.from(d.embedding!)));
      this.setDim(vecs[0].length);
      this.record((value as unknown as { usage?: { prompt_tokens?: number } }).usage?.prompt_tokens ?? 0, Date.now() - started, false, attempts);
      return vecs;
    } catch (e) {
      if (!(isKfError(e) && (e.code === 'bad_embeddings' || e.code === 'embedder_dim_changed'))) {
        this.record(0, Date.now() - started, false, e instanceof ModelCallError ? e.attempts : 0, isKfError(e) ? e.code : 'error');
      }
      throw redactError(e); // an error body may echo the key or the URL's credentials
    }
  }
}
