/**
 * The runner's per-question set-up (issue 30), shared by the runner (answer-question.ts) and
 * `kf ask`: every model call of the question attributed to it and to the run (the ledger's
 * per-question usage and the trace's model-call events depend on it), and its pipeline context.
 */
import type { Question } from '../bench/types';
import type { ChatModel, Stage } from '../model-api/types';
import { questionContext, type QuestionContextInput } from '../pipeline/question-context';
import type { PipelineContext, TraceEvent } from '../pipeline/types';
import type { RunnerRouter } from './runner-types';

/** Model calls of a question in flight (the ledger listener attributes calls by question id). */
export interface QuestionCalls {
  backends: Set<string>;
  models: Set<string>;
  trace: (e: TraceEvent) => void;
}

/** Model calls are attributed to the question in flight (its backends, models and trace). */
export function attributeCalls(models: RunnerRouter, inFlight: Map<string, QuestionCalls>): () => void {
  return models.ledger.onRecord((e) => {
    const c = e.questionId !== undefined ? inFlight.get(e.questionId) : undefined;
    if (!c) return;
    c.backends.add(e.backend);
    c.models.add(e.model);
    c.trace({
      kind: 'model-call',
      stage: e.stage,
      model: e.model,
      backend: e.backend,
      promptTokens: e.promptTokens,
      completionTokens: e.completionTokens,
      latencyMs: e.latencyMs,
      cacheHit: e.cacheHit,
      ...(e.finishReason ? { finishReason: e.finishReason } : {}),
      ...(e.error ? { error: e.error } : {}),
    });
  });
}

/** Every model call of the question attributed to it and to the run (the ledger's per-question usage depends on it). */
function attributedModel(models: RunnerRouter, q: Question, runId: string, signal: AbortSignal | undefined): (stage: Stage) => ChatModel {
  return (stage) => {
    const m = models.forStage(stage);
    return {
      id: m.id,
      backend: m.backend,
      // The endpoint's agent protocol (models.stages.<stage>.protocol, KF_PROTOCOL) travels with the model for the agent roles.
      protocol: models.endpoint?.(stage).protocol,
      chat: (req, s) => m.chat({ ...req, questionId: req.questionId ?? q.id, runId: req.runId ?? runId }, s ?? signal),
    };
  };
}

/** A question's pipeline context with its attributed models; `view` is its index view (absent: closed book). */
export function questionSetup(i: {
  question: Question;
  models: RunnerRouter;
  runId: string;
  view?: QuestionContextInput['view'];
  benchmark?: string;
  settings: Record<string, unknown>;
  rngKey: string;
  signal?: AbortSignal;
  trace: (e: TraceEvent) => void;
}): { ctx: PipelineContext; model: (stage: Stage) => ChatModel } {
  const model = attributedModel(i.models, i.question, i.runId, i.signal);
  const ctx = questionContext({
    question: i.question,
    model,
    view: i.view,
    benchmark: i.benchmark,
    settings: i.settings,
    rngKey: i.rngKey,
    signal: i.signal,
    trace: i.trace,
  });
  return { ctx, model };
}
