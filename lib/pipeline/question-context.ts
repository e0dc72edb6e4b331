/**
 * The one factory of a question's PipelineContext (issue 16): `kf run` (lib/run/answer-question.ts),
 * `kf ask` and the retrieval-only mode of `kf eval retrieval --config` build the context a
 * pipeline sees here, so the convention, the seeded rng and the knowledge-base fields are set
 * the same way everywhere. Callers differ only in what they inject (models, view, seed key, trace).
 */
import { conventionOf } from '../bench/registry';
import type { Question } from '../bench/types';
import type { ChatModel, Stage } from '../model-api/types';
import { makeRng } from '../util/rng';
import type { PipelineContext, TraceEvent } from './types';

/** What a question's corpus offers the pipeline (all absent for closed-book S0). */
export type QuestionView = Partial<Pick<PipelineContext, 'kb' | 'retriever' | 'fragment' | 'docTitle'>>;

export interface QuestionContextInput {
  question: Question;
  model(stage: Stage): ChatModel;
  view?: QuestionView;
  settings: Record<string, unknown>;
  /** The rng seed string: the runner uses `${seed}/${question.id}`. */
  rngKey: string;
  /** The benchmark whose answer convention applies (default: the question's). */
  benchmark?: string;
  signal?: AbortSignal;
  trace?(event: TraceEvent): void;
}

/** The answer convention a benchmark is scored under (declared by its registry entry). */
export function conventionFor(benchmark: string): PipelineContext['convention'] {
  return conventionOf(benchmark.toLowerCase());
}

export function questionContext(i: QuestionContextInput): PipelineContext {
  const view = i.view ?? {};
  return {
    question: i.question,
    model: i.model,
    kb: view.kb,
    retriever: view.retriever,
    fragment: view.fragment,
    docTitle: view.docTitle,
    convention: conventionFor(i.benchmark ?? i.question.benchmark),
    settings: i.settings,
    rng: makeRng(i.rngKey),
    signal: i.signal ?? new AbortController().signal,
    trace: i.trace ?? (() => {}),
  };
}
