/**
 * The pipeline context the KnowForge HTTP tests hand an agent pipeline: one question, each stage's model
 * from the router, the toy knowledge base, and every trace event collected in `events`.
 */
import type { ModelRouter } from '../../lib/models/router';
import type { PipelineContext, TraceEvent } from '../../lib/pipeline/types';
import { makeRng } from '../../lib/util/rng';
import { toyKb } from './toy-kb';

export interface AgentQuestion {
  benchmark: string;
  question: string;
  answer: string;
}

export function agentContext(router: ModelRouter, q: AgentQuestion, convention: string): { ctx: PipelineContext; events: TraceEvent[] } {
  const events: TraceEvent[] = [];
  const ctx = {
    question: { id: 'q1', ...q, goldDocs: [], evidence: [] },
    model: (stage: string) => router.forStage(stage as never),
    kb: toyKb(),
    convention,
    settings: {},
    rng: makeRng('t'),
    signal: new AbortController().signal,
    trace: (e: TraceEvent) => events.push(e),
  } as unknown as PipelineContext;
  return { ctx, events };
}
