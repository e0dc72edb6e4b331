/**
 * One entry point for answer scoring: the benchmark's own metrics for one
 * question and one final answer (the value of the last `FINAL ANSWER:` line).
 * Each benchmark declares its scorer in its registry entry (lib/bench/benchmarks/);
 * this file only dispatches. Questions of an unknown benchmark get EM/F1.
 *
 * | benchmark | metrics (0..1) |
 * |---|---|
 * | m3docvqa | em, f1 as the released runner's scorer (reads `opts.reply`: no FINAL ANSWER line = empty); emHarness, f1Harness (the harness's list rule) |
 * | mmqa, musique, hotpotqa, 2wiki*, demo, other | em, f1 (list-aware, refusal = empty) |
 * | multihop-rag | acc (official token-overlap rule; null questions need "insufficient information..."), f1, em (the runner's) |
 * | mmlongbench-doc | acc (official rule-based scorer by answer format), goldAnswerable, predAnswerable (for the official F1, see aggregateMmlongbench) |
 * | webqa | rougeL (+ tokenEmbF1 with an Embedder, async: an F1 over token embeddings, not BERTScore) |
 * | scienceqa | acc |
 * Every result also has `refused` (1 when the final answer is a refusal).
 * Questions without a gold answer (2Wiki here) get only `refused`.
 * Unanswerable questions outside MMLongBench-Doc/MultiHop-RAG (the demo world)
 * score em = f1 = 1 exactly when the answer is a refusal.
 */
import { benchmarkSpec } from '../bench/registry';
import type { JudgedScores, JudgeScoreOptions, ScoreOptions } from '../bench/spec';
import type { Question } from '../bench/types';
import { emF1Scores } from './metrics/benchmark-scores';
import { isRefusal } from './metrics/final-answer';

export type { JudgedScores, JudgeScoreOptions, ScoreOptions } from '../bench/spec';
export { aggregateMmlongbench } from './metrics/benchmark-scores';

/** Rule-based, synchronous scores of one final answer. */
export function scoreAnswer(q: Question, finalAnswer: string, opts: ScoreOptions = {}): Record<string, number> {
  const value = (finalAnswer ?? '').trim();
  const refused = isRefusal(value) ? 1 : 0;
  const score = benchmarkSpec(q.benchmark)?.score ?? emF1Scores;
  return { ...score(q, value, refused, opts), refused };
}

/**
 * Scores with the model-judge protocols a benchmark declares (MMLongBench-Doc's
 * extraction step, then the official rule-based scorer on the extracted answer,
 * a failed extraction scoring 0 as upstream; WebQA's embedding F1). Other
 * benchmarks are rule-based: same as scoreAnswer.
 */
export async function scoreAnswerWithJudge(q: Question, finalAnswer: string, opts: JudgeScoreOptions = {}): Promise<JudgedScores> {
  const base = scoreAnswer(q, finalAnswer, opts);
  const judged = await benchmarkSpec(q.benchmark)?.judgeScore?.(q, finalAnswer, base, opts);
  return judged ?? { scores: base };
}
