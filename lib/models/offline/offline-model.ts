/**
 * The offline backend: a ChatModel with backend 'offline' that stands in for
 * every model role with deterministic rules, so the harness runs end to end
 * with no endpoint. It reads the structured `ChatRequest.task` (lib/models/
 * offline/tasks.ts) and answers in the same textual format a real model would,
 * so the callers' parsing paths run unchanged. Its numbers are never model
 * results: every response says backend 'offline' and model 'offline'.
 */
import { KfError } from '../../util/errors';
import { throwIfAborted } from '../middleware';
import type { ChatModel, ChatRequest, ChatResponse, Stage } from '../types';
import { agentStep, locatorPlan, readerPlan } from './agent-policies';
import { checkerReply, scorerReply } from './checker';
import { extractPoints, openIE, parsePattern, typeRelations } from './index-roles';
import { judge } from './judge';
import type { OcrService } from './ocr';
import { synthReply } from './synth';
import { OFFLINE_ROLES, ROLE_OF_STAGE, type OfflineRole, type OfflineTask } from './tasks';
import { captionReply, visionReply } from './vision';

export const OFFLINE_MODEL_ID = 'offline';

export class OfflineModel implements ChatModel {
  readonly id = OFFLINE_MODEL_ID;
  readonly backend = 'offline' as const;

  constructor(readonly stage: Stage, private readonly deps: { ocr?: OcrService } = {}) {}

  roleFor(req: ChatRequest): OfflineRole {
    const named = req.task?.role;
    if (typeof named === 'string') {
      if (!(OFFLINE_ROLES as readonly string[]).includes(named)) {
        throw new KfError('offline_unknown_role', `offline backend: stage ${req.stage} sent task role "${named}"`, `use one of ${OFFLINE_ROLES.join(', ')} (lib/models/offline/tasks.ts)`, { concerns: req.stage });
      }
      return named as OfflineRole;
    }
    const byStage = ROLE_OF_STAGE[req.stage];
    if (!byStage) {
      throw new KfError('offline_no_task', `offline backend: stage ${req.stage} sent no task and is not a known role`, 'attach ChatRequest.task with a role (lib/models/offline/tasks.ts), or route the stage to a real endpoint', { concerns: req.stage });
    }
    return byStage;
  }

  async chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResponse> {
    const started = Date.now();
    throwIfAborted(signal, req.stage, this.id, req.questionId);
    const role = this.roleFor(req);
    const task = { ...(req.task ?? {}), role } as OfflineTask;
    const need = (field: string) => {
      if ((task as unknown as Record<string, unknown>)[field] === undefined) {
        throw new KfError('offline_task_incomplete', `offline backend: the ${role} task of stage ${req.stage}${req.questionId ? ` (question ${req.questionId})` : ''} has no "${field}"`, `attach ChatRequest.task.${field} (see ${role} in lib/models/offline/tasks.ts)`, { concerns: req.questionId ?? req.stage });
      }
    };
    let text = '';
    let toolCalls: ChatResponse['toolCalls'] = [];
    switch (task.role) {
      case 'locator':
        need('question');
        ({ text, toolCalls } = agentStep(req, locatorPlan(task)));
        break;
      case 'reader':
        need('question');
        ({ text, toolCalls } = agentStep(req, readerPlan(task)));
        break;
      case 'agent':
        need('question');
        ({ text, toolCalls } = agentStep(req, [...locatorPlan(task), ...readerPlan(task)]));
        break;
      case 'judge':
        need('question');
        text = JSON.stringify(judge(task));
        break;
      case 'vision':
        need('question');
        text = await visionReply(task, this.deps.ocr);
        break;
      case 'caption':
        text = await captionReply(task, this.deps.ocr);
        break;
      case 'synth':
        need('question');
        need('materials');
        text = synthReply(task);
        break;
      case 'checker':
        need('question');
        need('answer');
        text = checkerReply(task);
        break;
      case 'scorer':
        need('response');
        text = scorerReply(task);
        break;
      case 'extraction':
        need('fragments');
        text = JSON.stringify(extractPoints(task));
        break;
      case 'relations':
        need('pairs');
        text = JSON.stringify(typeRelations(task));
        break;
      case 'openie':
        need('text');
        text = JSON.stringify(openIE(task));
        break;
      case 'pattern':
        need('question');
        text = JSON.stringify(parsePattern(task));
        break;
    }
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
