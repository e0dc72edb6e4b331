/**
 * The in-process chat model: a ChatModel with backend 'offline' that answers a
 * request by calling a handler registered for its role, so the harness runs end
 * to end with no endpoint. The model layer knows nothing about what the handlers
 * imitate: each policy lives beside the stage it stands in for
 * (lib/knowforge/offline, lib/index/offline, lib/corpus/offline, lib/dualg/offline)
 * and one composition root, the plug-in manifests (lib/pipeline/plugins.ts), registers them all.
 *
 * A request names its role in `ChatRequest.task.role`; without one, the stage
 * name picks the role (a handler may claim extra stage names, e.g. judge also
 * serves 'bridge'). Handlers read the structured task, not the prompt, and reply
 * in the same textual format a real model is asked for, so the callers' parsing
 * paths run unchanged. Their numbers are never model results: every response
 * says backend 'offline' and model 'offline'.
 */
import { KfError } from '../util/errors';
import type { ModelCache } from './cache';
import type { Closable, HandlerResources, OfflineHandler } from '../model-api/handler';
export type { Closable, InProcessContext, InProcessReply, OfflineHandler } from '../model-api/handler';
import { cancelledError } from './retry';
import type { ChatModel, ChatRequest, ChatResponse, Stage } from '../model-api/types';

export const OFFLINE_MODEL_ID = 'offline';

/**
 * Services shared by the in-process handlers of one model router: created on
 * first use, closed by `close()` (the router's close). Services handed in from
 * outside (tests) are used but never closed here.
 */
export class InProcessResources implements HandlerResources {
  private readonly owned = new Map<string, Closable>();

  constructor(
    readonly cache?: ModelCache,
    private readonly given: Record<string, Closable> = {},
  ) {}

  get<T extends Closable>(key: string, create: (cache: ModelCache | undefined) => T): T {
    const have = (this.given[key] ?? this.owned.get(key)) as T | undefined;
    if (have) return have;
    const made = create(this.cache);
    this.owned.set(key, made);
    return made;
  }

  async close(): Promise<void> {
    const all = [...this.owned.values()];
    this.owned.clear();
    for (const r of all) await r.close?.();
  }
}

const handlers = new Map<string, OfflineHandler>();
const roleOfStage = new Map<string, string>();

/** Register (or replace) the offline policy of a role. */
export function registerOfflineHandler<T>(role: string, handler: OfflineHandler<T>): void {
  handlers.set(role, handler as unknown as OfflineHandler);
  roleOfStage.set(role, role);
  for (const s of handler.stages ?? []) roleOfStage.set(s, role);
}

/** Roles that have an offline policy, in registration order. */
export function offlineRoles(): string[] {
  return [...handlers.keys()];
}

function roleFor(req: ChatRequest): string {
  if (!handlers.size) {
    throw new KfError(
      'offline_no_handlers',
      `offline backend: stage ${req.stage} was routed to the in-process model, but no offline handler is registered`,
      'call registerOfflineHandlers() from the plug-in manifests (lib/pipeline/plugins.ts) once at start-up (the CLI and runner do), or route the stage to a real endpoint',
      { concerns: req.stage },
    );
  }
  const named = req.task?.role;
  if (typeof named === 'string') {
    if (!handlers.has(named)) {
      throw new KfError(
        'offline_unknown_role',
        `offline backend: stage ${req.stage} sent task role "${named}"`,
        `use one of ${offlineRoles().join(', ')}, or register a handler for it (the plug-in manifests (lib/pipeline/plugins.ts))`,
        { concerns: req.stage },
      );
    }
    return named;
  }
  const byStage = roleOfStage.get(req.stage);
  if (!byStage) {
    throw new KfError(
      'offline_no_task',
      `offline backend: stage ${req.stage} sent no task and is not a known role`,
      'attach ChatRequest.task with a role (see the plug-in manifests (lib/pipeline/plugins.ts) for the roles), or route the stage to a real endpoint',
      { concerns: req.stage },
    );
  }
  return byStage;
}

export class InProcessModel implements ChatModel {
  readonly id = OFFLINE_MODEL_ID;
  readonly backend = 'offline' as const;

  constructor(
    readonly stage: Stage,
    private readonly resources?: InProcessResources,
  ) {}

  roleFor(req: ChatRequest): string {
    return roleFor(req);
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const started = Date.now();
    throwIfAborted(signal, req.stage, this.id, req.questionId);
    const role = roleFor(req);
    const handler = handlers.get(role)!;
    const task: Record<string, unknown> = { ...(req.task ?? {}), role };
    for (const field of handler.needs ?? []) {
      if (task[field] === undefined) {
        throw new KfError(
          'offline_task_incomplete',
          `offline backend: the ${role} task of stage ${req.stage}${req.questionId ? ` (question ${req.questionId})` : ''} has no "${field}"`,
          `attach ChatRequest.task.${field} (see ${role} in ${handler.taskFile ?? 'its task type'})`,
          { concerns: req.questionId ?? req.stage },
        );
      }
    }
    const out = await handler.reply(task, { req, stage: req.stage, resources: this.resources });
    const { text, toolCalls = [] } = typeof out === 'string' ? { text: out } : out;
    throwIfAborted(signal, req.stage, this.id, req.questionId);
    return {
      text,
      toolCalls,
      // No tokens were spent: offline calls add calls, not usage, to the ledger.
      usage: { promptTokens: 0, completionTokens: 0 },
      model: this.id,
      backend: 'offline',
      finishReason: toolCalls.length ? 'tool_calls' : 'stop',
      cacheHit: false,
      latencyMs: Date.now() - started,
      attempts: 0,
    };
  }
}

/** Cancellation check for non-HTTP models (offline): the same error shape as HTTP calls. */
export function throwIfAborted(signal: AbortSignal | undefined, stage: string, model: string, questionId?: string): void {
  if (signal?.aborted) throw cancelledError({ stage, model, questionId }, signal.reason);
}
