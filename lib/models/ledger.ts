/**
 * The cost ledger: every model call (and cache hit) is counted per stage, per
 * question, per run and per model, with tokens, latency and a cost from an
 * optional price table. It keeps aggregates, not a list of calls, so a run of
 * thousands of questions stays small; `onRecord` lets a tracer see each call.
 * Everything is JSON-serialisable: the runner writes `toJSON()` into manifests.
 * Per endpoint (each replica of a stage), it counts attempts: answered,
 * refused (429/503) and failed. It never holds request contents or credentials.
 */
import type { Backend, Stage } from '../model-api/types';

export interface LedgerEntry {
  stage: Stage;
  model: string;
  backend: Backend;
  questionId?: string;
  runId?: string;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  cacheHit: boolean;
  /** HTTP attempts made (0 for cache hits and offline calls). */
  attempts: number;
  /** The endpoint's finish reason of the reply (`stop`, `length` = cut by the token limit, `tool_calls`); absent on failures. */
  finishReason?: string;
  /** Set when the call failed after all attempts (a short code, e.g. `model_call_failed`). */
  error?: string;
}

export interface LedgerTotals {
  /** Every call (hits, misses, offline, failures). */
  calls: number;
  cacheHits: number;
  /** Calls that failed after all attempts. */
  errors: number;
  /** HTTP attempts in total (retries show up as attempts > calls - hits). */
  attempts: number;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
  /** USD, from the price table; 0 for models without a price. */
  costUsd: number;
  /** Models without a price entry that had usage (so a cost of 0 is not mistaken for free). */
  unpricedModels: string[];
}

/** Attempts at one endpoint (base URL, printed without credentials): what each replica of a stage did. */
export interface EndpointTotals {
  /** HTTP attempts sent to it. */
  attempts: number;
  /** Attempts it answered (2xx with a usable reply). */
  answered: number;
  /** Attempts it refused with 429 or 503 (the circuit breaker paused it). */
  refused: number;
  /** Other failed attempts (5xx, timeouts, resets, garbled replies, 4xx). */
  failed: number;
  promptTokens: number;
  completionTokens: number;
}

export type AttemptOutcome = 'answered' | 'refused' | 'failed';

export type PriceTable = Record<string, { promptPer1M: number; completionPer1M: number }>;

export interface LedgerJson {
  runId?: string;
  totals: LedgerTotals;
  byStage: Record<string, LedgerTotals>;
  byModel: Record<string, LedgerTotals>;
  byBackend: Record<string, LedgerTotals>;
  byRun: Record<string, LedgerTotals>;
  byQuestion: Record<string, LedgerTotals>;
  /** Per endpoint (replica), by attempt; empty when every stage is offline. */
  byEndpoint: Record<string, EndpointTotals>;
  prices: PriceTable;
}

function emptyTotals(): LedgerTotals {
  return { calls: 0, cacheHits: 0, errors: 0, attempts: 0, promptTokens: 0, completionTokens: 0, latencyMs: 0, costUsd: 0, unpricedModels: [] };
}

function add(t: LedgerTotals, e: LedgerEntry, cost: number | undefined): void {
  t.calls++;
  if (e.cacheHit) t.cacheHits++;
  if (e.error) t.errors++;
  t.attempts += e.attempts;
  t.promptTokens += e.promptTokens;
  t.completionTokens += e.completionTokens;
  t.latencyMs += e.latencyMs;
  if (cost !== undefined) t.costUsd += cost;
  else if ((e.promptTokens || e.completionTokens) && !t.unpricedModels.includes(e.model)) t.unpricedModels.push(e.model);
}

function copy(t: LedgerTotals): LedgerTotals {
  return { ...t, costUsd: Math.round(t.costUsd * 1e8) / 1e8, unpricedModels: [...t.unpricedModels] };
}

export class Ledger {
  private readonly all = emptyTotals();
  private readonly stages = new Map<string, LedgerTotals>();
  private readonly models = new Map<string, LedgerTotals>();
  private readonly backends = new Map<string, LedgerTotals>();
  private readonly runs = new Map<string, LedgerTotals>();
  private readonly questions = new Map<string, LedgerTotals>();
  private readonly endpoints = new Map<string, EndpointTotals>();
  private readonly listeners: ((e: LedgerEntry & { costUsd?: number }) => void)[] = [];

  constructor(
    readonly prices: PriceTable = {},
    readonly runId?: string,
  ) {}

  /** USD for one call, or undefined when the model has no price (hits cost nothing). */
  cost(e: Pick<LedgerEntry, 'model' | 'promptTokens' | 'completionTokens'>): number | undefined {
    const p = this.prices[e.model];
    if (!p) return e.promptTokens || e.completionTokens ? undefined : 0;
    return (e.promptTokens * p.promptPer1M + e.completionTokens * p.completionPer1M) / 1e6;
  }

  record(entry: LedgerEntry): void {
    const e: LedgerEntry = { ...entry, runId: entry.runId ?? this.runId };
    if (e.cacheHit) {
      // A hit re-uses a stored reply: it costs nothing and adds no usage.
      e.promptTokens = 0;
      e.completionTokens = 0;
    }
    const cost = this.cost(e);
    const bucket = (m: Map<string, LedgerTotals>, k: string) => {
      let t = m.get(k);
      if (!t) m.set(k, (t = emptyTotals()));
      add(t, e, cost);
    };
    add(this.all, e, cost);
    bucket(this.stages, e.stage);
    bucket(this.models, e.model);
    bucket(this.backends, e.backend);
    if (e.runId) bucket(this.runs, e.runId);
    if (e.questionId) bucket(this.questions, e.questionId);
    for (const l of this.listeners) l({ ...e, costUsd: cost });
  }

  /** Count one HTTP attempt at an endpoint (`endpoint` is the printable base URL, never with credentials). */
  recordAttempt(endpoint: string, outcome: AttemptOutcome, usage?: { promptTokens: number; completionTokens: number }): void {
    let t = this.endpoints.get(endpoint);
    if (!t) this.endpoints.set(endpoint, (t = { attempts: 0, answered: 0, refused: 0, failed: 0, promptTokens: 0, completionTokens: 0 }));
    t.attempts++;
    t[outcome]++;
    t.promptTokens += usage?.promptTokens ?? 0;
    t.completionTokens += usage?.completionTokens ?? 0;
  }

  byEndpoint(): Record<string, EndpointTotals> {
    const out: Record<string, EndpointTotals> = {};
    for (const k of [...this.endpoints.keys()].sort()) out[k] = { ...this.endpoints.get(k)! };
    return out;
  }

  /** Subscribe to every recorded call (traces); returns an unsubscribe function. */
  onRecord(listener: (e: LedgerEntry & { costUsd?: number }) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  totals(): LedgerTotals {
    return copy(this.all);
  }

  byStage(): Record<string, LedgerTotals> {
    return mapToRecord(this.stages);
  }

  byModel(): Record<string, LedgerTotals> {
    return mapToRecord(this.models);
  }

  /** Totals of one question (zeros when it made no call). */
  byQuestion(questionId: string): LedgerTotals {
    return copy(this.questions.get(questionId) ?? emptyTotals());
  }

  /** Totals of one run (default: this ledger's run id; zeros when none). */
  forRun(runId: string | undefined = this.runId): LedgerTotals {
    return copy((runId !== undefined ? this.runs.get(runId) : undefined) ?? emptyTotals());
  }

  toJSON(): LedgerJson {
    return {
      runId: this.runId,
      totals: this.totals(),
      byStage: this.byStage(),
      byModel: this.byModel(),
      byBackend: mapToRecord(this.backends),
      byRun: mapToRecord(this.runs),
      byQuestion: mapToRecord(this.questions),
      byEndpoint: this.byEndpoint(),
      prices: { ...this.prices },
    };
  }
}

function mapToRecord(m: Map<string, LedgerTotals>): Record<string, LedgerTotals> {
  const out: Record<string, LedgerTotals> = {};
  for (const k of [...m.keys()].sort()) out[k] = copy(m.get(k)!);
  return out;
}
