/** How the runner scores one answer: the Scorer seam and the default (rule-based metrics, or the model-judge protocols). */
import type { Question } from '../bench/types';
import type { Embedder } from '../index/types';
import { scoreAnswer, scoreAnswerWithJudge } from '../eval/score';
import type { ChatModel, Stage } from '../model-api/types';
import type { ExperimentConfig } from './config';
import type { RunRecord } from './records';
import type { PipelineResult } from '../pipeline/types';

export interface ScoreContext {
  model(stage: Stage): ChatModel;
  embedder?: Embedder;
  signal: AbortSignal;
  config: ExperimentConfig;
  runId: string;
}

export type Scorer = (
  q: Question,
  result: PipelineResult,
  ctx: ScoreContext,
) => Promise<{ scores: Record<string, number>; extraction?: RunRecord['extraction'] }>;

/** The default scorer: the benchmark's rule-based metrics, or the model-judge protocols with scoring.judge. */
export const defaultScorer: Scorer = async (q, result, ctx) => {
  const s = ctx.config.scoring;
  if (s.judge) {
    const judged = await scoreAnswerWithJudge(q, result.finalAnswer, {
      judge: ctx.model('scorer'),
      embedder: ctx.embedder,
      fullText: result.prediction,
      reply: result.prediction,
      refusalAsNotAnswerable: s.refusalAsNotAnswerable,
      questionId: q.id,
      runId: ctx.runId,
      signal: ctx.signal,
    });
    return { scores: judged.scores, extraction: judged.extraction as RunRecord['extraction'] };
  }
  return { scores: scoreAnswer(q, result.finalAnswer, { refusalAsNotAnswerable: s.refusalAsNotAnswerable, reply: result.prediction }) };
};
