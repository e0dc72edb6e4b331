/**
 * A scripted OpenAI-compatible HTTP server for tests and demos (127.0.0.1, a
 * free port): `/v1/chat/completions`, `/v1/embeddings`, `/v1/models`.
 *
 * Replies are scripted per role (rules matched by model name, by endpoint, or by
 * any predicate on the request) or taken from a FIFO queue; every request is
 * recorded (method, path, headers, parsed body) with the usage the server
 * reported, so tests can assert on both sides and compare ledgers with
 * `usageTotals()`. Faults: any HTTP status with headers (429 + Retry-After),
 * slow replies (before headers or mid-body), connection resets (before or mid-body), raw bodies
 * (malformed JSON), and any content (fenced/truncated JSON, wrong tool names,
 * native tool_calls).
 *
 *   const server = await ScriptedServer.start();
 *   server.on({ model: 'judge-model', reply: { text: '{"need_more": false, ...}' } });
 *   server.enqueue({ status: 429, headers: { 'retry-after': '1' } }, { text: 'ok' });
 *   ... createModelRouter({ defaults: { baseUrl: server.url, model: 'm' } }) ...
 *   await server.close();
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256 } from '../../util/hash';

export interface RecordedRequest {
  /** 0-based order of arrival. */
  seq: number;
  method: string;
  path: string;
  /** The query string after '?', '' when none (a gateway token in the base URL arrives here). */
  query: string;
  kind: 'chat' | 'embeddings' | 'models' | 'other';
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body (undefined when absent or not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  rawBody: string;
  model?: string;
  /** What the server answered (status, and the usage it reported for 200s). */
  response?: { status: number; usage?: { prompt_tokens: number; completion_tokens: number }; reset?: boolean; text?: string };
}

export interface ScriptedToolCall {
  id?: string;
  name: string;
  /** JSON text (sent verbatim, so it may be malformed on purpose) or an object (serialised). */
  arguments: string | Record<string, unknown>;
}

export interface ScriptedReply {
  /** Assistant content (chat). */
  text?: string;
  toolCalls?: ScriptedToolCall[];
  finishReason?: string;
  /** Override the usage reported; `false` omits the usage field. */
  usage?: { prompt_tokens: number; completion_tokens: number } | false;
  /** Non-2xx status: an OpenAI-style error body is sent. */
  status?: number;
  /** Error message for non-2xx replies. */
  error?: string;
  /** Extra response headers (e.g. `retry-after`). */
  headers?: Record<string, string>;
  /** Wait this long before sending anything (a slow server; past the client's timeout it is a timeout). */
  delayMs?: number;
  /** Send the headers and half the body, then wait this long before the rest. */
  bodyDelayMs?: number;
  /** Send the headers and half the body, then destroy the connection (a stream broken mid-reply). */
  cutBody?: boolean;
  /** Destroy the connection without answering (ECONNRESET / "other side closed"). */
  reset?: boolean;
  /** Send this body verbatim with status 200 (or `status`): malformed JSON, HTML pages... */
  rawBody?: string;
  /** Include the request's Authorization header in the error message (tests that keys are scrubbed). */
  echoAuth?: boolean;
  /** Embedding vectors to return instead of the deterministic ones. */
  embeddings?: number[][];
}

export type ReplySource = ScriptedReply | ((req: RecordedRequest) => ScriptedReply);

export interface ScriptRule {
  name?: string;
  /** Match the request's model (exact string or pattern). */
  model?: string | RegExp;
  /** Match the endpoint (default: chat). */
  kind?: 'chat' | 'embeddings';
  /** Any further condition on the request. */
  match?: (req: RecordedRequest) => boolean;
  /** One reply, or a sequence consumed one per matching request (the last one repeats). */
  reply: ReplySource | ReplySource[];
  /** Stop matching after this many requests. */
  times?: number;
}

export interface ScriptedServerOptions {
  /** Dimension of the deterministic embedding vectors (default 8). */
  embeddingDim?: number;
  /** Model ids listed by /v1/models (default: the rules' string models, or ["scripted-model"]). */
  models?: string[];
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
}

interface LiveRule extends ScriptRule {
  used: number;
}

/** Rough token count the server reports (chars/4), so usage numbers are non-trivial and checkable. */
export function approxTokens(s: string): number {
  return Math.max(1, Math.ceil(s.length / 4));
}

export class ScriptedServer {
  readonly requests: RecordedRequest[] = [];
  private readonly rules: LiveRule[] = [];
  private readonly queue: ReplySource[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private callSeq = 0;
  private inFlight = 0;
  /** Most chat/embedding requests the server was handling at once (checks client concurrency limits). */
  maxInFlight = 0;

  private constructor(
    private readonly server: http.Server,
    readonly opts: ScriptedServerOptions,
  ) {}

  static async start(opts: ScriptedServerOptions = {}): Promise<ScriptedServer> {
    // The handler refers to the server object made from it (created right after).
    const ref: { self?: ScriptedServer } = {};
    const server = http.createServer((req, res) => ref.self!.handle(req, res));
    const self = (ref.self = new ScriptedServer(server, opts));
    server.on('connection', (s) => {
      self.sockets.add(s);
      s.on('close', () => self.sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Base URL to configure (ends with /v1). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Add a rule (matched in the order added, after the queue). */
  on(rule: ScriptRule): this {
    this.rules.push({ ...rule, used: 0 });
    return this;
  }

  /** Replies for the next chat requests, in order, before any rule. */
  enqueue(...replies: ReplySource[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Forget rules, queue and recorded requests. */
  reset(): void {
    this.rules.length = 0;
    this.queue.length = 0;
    this.requests.length = 0;
  }

  chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'chat');
  }

  /** Usage reported in successful replies (what a correct ledger must add up to). */
  usageTotals(filter: (r: RecordedRequest) => boolean = () => true): { promptTokens: number; completionTokens: number; calls: number } {
    let promptTokens = 0;
    let completionTokens = 0;
    let calls = 0;
    for (const r of this.requests) {
      if (!filter(r) || !r.response?.usage) continue;
      promptTokens += r.response.usage.prompt_tokens;
      completionTokens += r.response.usage.completion_tokens;
      calls++;
    }
    return { promptTokens, completionTokens, calls };
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private later(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private pick(rec: RecordedRequest): ScriptedReply | undefined {
    if (rec.kind === 'chat' && this.queue.length) return resolveSource(this.queue.shift()!, rec);
    for (const r of this.rules) {
      if ((r.kind ?? 'chat') !== rec.kind) continue;
      if (r.model !== undefined && !(typeof r.model === 'string' ? r.model === rec.model : r.model.test(rec.model ?? ''))) continue;
      if (r.match && !r.match(rec)) continue;
      if (r.times !== undefined && r.used >= r.times) continue;
      const seq = Array.isArray(r.reply) ? r.reply : [r.reply];
      const src = seq[Math.min(r.used, seq.length - 1)];
      r.used++;
      return resolveSource(src, rec);
    }
    return undefined;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void this.respond(req, res, Buffer.concat(chunks).toString('utf8')).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  }

  private async respond(req: http.IncomingMessage, res: http.ServerResponse, raw: string): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
    const kind: RecordedRequest['kind'] = path.endsWith('/chat/completions')
      ? 'chat'
      : path.endsWith('/embeddings')
        ? 'embeddings'
        : path.endsWith('/models')
          ? 'models'
          : 'other';
    const query = (req.url ?? '').split('?').slice(1).join('?');
    const rec: RecordedRequest = { seq: this.requests.length, method: req.method ?? 'GET', path, query, kind, headers, body, rawBody: raw, model: body?.model };
    this.requests.push(rec);

    if (kind === 'models') {
      const ids = this.opts.models ?? [...new Set(this.rules.map((r) => r.model).filter((m): m is string => typeof m === 'string'))];
      return this.send(res, rec, 200, {
        object: 'list',
        data: (ids.length ? ids : ['scripted-model']).map((id) => ({ id, object: 'model', owned_by: 'scripted' })),
      });
    }
    if (kind === 'other') return this.send(res, rec, 404, { error: { message: `no route ${path}`, type: 'not_found' } });
    if (!body) return this.send(res, rec, 400, { error: { message: 'request body is not JSON', type: 'invalid_request_error' } });

    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    let done = false;
    const leave = () => {
      if (!done) this.inFlight--;
      done = true;
    };
    res.on('close', leave); // fires when the reply ends or the connection drops
    const reply = this.pick(rec) ?? {};
    if (reply.delayMs) await this.later(reply.delayMs);
    if (reply.reset) {
      rec.response = { status: 0, reset: true };
      req.socket.destroy();
      return;
    }
    if (reply.rawBody !== undefined) {
      rec.response = { status: reply.status ?? 200 };
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(reply.rawBody);
      return;
    }
    if (reply.status && reply.status >= 400) {
      const auth = reply.echoAuth ? ` (you sent Authorization: ${headers.authorization ?? '(none)'})` : '';
      return this.send(
        res,
        rec,
        reply.status,
        { error: { message: `${reply.error ?? http.STATUS_CODES[reply.status] ?? 'error'}${auth}`, type: 'scripted_error', code: reply.status } },
        reply.headers,
      );
    }
    if (kind === 'embeddings') return this.sendEmbeddings(res, rec, reply);
    return this.sendChat(res, rec, reply);
  }

  private async sendChat(res: http.ServerResponse, rec: RecordedRequest, reply: ScriptedReply): Promise<void> {
    const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${this.callSeq++}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
    }));
    const text = reply.text ?? (toolCalls.length ? '' : 'ok');
    const usage =
      reply.usage === false
        ? undefined
        : (reply.usage ?? {
            prompt_tokens: approxTokens(JSON.stringify(rec.body.messages ?? '')),
            completion_tokens: approxTokens(text + toolCalls.map((c) => c.function.arguments).join('')),
          });
    const payload = {
      id: `chatcmpl-${rec.seq}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: rec.model ?? 'scripted-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: toolCalls.length && !reply.text ? null : text, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
          finish_reason: reply.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
        },
      ],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    };
    rec.response = { status: 200, usage: usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens } : undefined, text };
    await this.sendJson(res, 200, payload, reply);
  }

  private async sendEmbeddings(res: http.ServerResponse, rec: RecordedRequest, reply: ScriptedReply): Promise<void> {
    const inputs: string[] = Array.isArray(rec.body.input) ? rec.body.input.map(String) : [String(rec.body.input ?? '')];
    const dim = this.opts.embeddingDim ?? 8;
    const data = inputs.map((t, index) => ({ object: 'embedding', index, embedding: reply.embeddings?.[index] ?? deterministicVector(t, dim) }));
    const usage = reply.usage === false ? undefined : (reply.usage ?? { prompt_tokens: inputs.reduce((a, t) => a + approxTokens(t), 0), completion_tokens: 0 });
    rec.response = { status: 200, usage: usage ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens } : undefined };
    // Reverse the order on the wire: clients must sort by index.
    await this.sendJson(
      res,
      200,
      {
        object: 'list',
        model: rec.model,
        data: [...data].reverse(),
        ...(usage ? { usage: { prompt_tokens: usage.prompt_tokens, total_tokens: usage.prompt_tokens } } : {}),
      },
      reply,
    );
  }

  private async sendJson(res: http.ServerResponse, status: number, payload: unknown, reply: ScriptedReply): Promise<void> {
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
    if (reply.cutBody) {
      await new Promise<void>((resolve) => res.write(text.slice(0, Math.floor(text.length / 2)), () => resolve()));
      res.socket?.destroy();
      return;
    }
    if (reply.bodyDelayMs) {
      res.write(text.slice(0, Math.floor(text.length / 2)));
      await this.later(reply.bodyDelayMs);
      if (res.destroyed) return;
      res.end(text.slice(Math.floor(text.length / 2)));
      return;
    }
    res.end(text);
  }

  private send(res: http.ServerResponse, rec: RecordedRequest, status: number, payload: unknown, headers?: Record<string, string>): void {
    rec.response = { status };
    res.writeHead(status, { 'content-type': 'application/json', ...(headers ?? {}) });
    res.end(JSON.stringify(payload));
  }
}

function resolveSource(src: ReplySource, rec: RecordedRequest): ScriptedReply {
  return typeof src === 'function' ? src(rec) : src;
}

/** A fixed vector per text (from its hash), so tests can predict embeddings. */
export function deterministicVector(text: string, dim: number): number[] {
  const out: number[] = [];
  let h = sha256(text);
  while (out.length < dim) {
    for (let i = 0; i + 4 <= h.length && out.length < dim; i += 4) out.push(parseInt(h.slice(i, i + 4), 16) / 32768 - 1);
    h = sha256(h);
  }
  return out;
}

/** Helpers for scripting model-like damage. */
export const damage = {
  /** Wrap JSON in a Markdown code fence with prose around it. */
  fenced: (obj: unknown, prose = 'Here is my next step:') => `${prose}\n\`\`\`json\n${JSON.stringify(obj, null, 2)}\n\`\`\`\n`,
  /** Cut a JSON text (e.g. mid-string, as a max_tokens stop would). */
  truncated: (obj: unknown, keep = 0.8) => {
    const s = JSON.stringify(obj);
    return s.slice(0, Math.max(1, Math.floor(s.length * keep)));
  },
  /** JSON with trailing commas. */
  trailingCommas: (obj: Record<string, unknown>) => JSON.stringify(obj).replace(/}$/, ',}').replace(/]/g, ',]'),
};
