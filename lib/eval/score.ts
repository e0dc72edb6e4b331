/**
 * One entry point for answer scoring: the benchmark's own metrics for one
 * question and one final answer (the value of the last `FINAL ANSWER:` line).
 *
 * | benchmark | metrics (0..1) |
 * |---|---|
 * | m3docvqa, mmqa, musique, hotpotqa, 2wiki*, demo, other | em, f1 (list-aware, refusal = empty) |
 * | multihop-rag | acc (official token-overlap rule; null questions need "insufficient information...") |
 * | mmlongbench-doc | acc (official rule-based scorer by answer format), goldAnswerable, predAnswerable (for the official F1, see aggregateMmlongbench) |
 * | webqa | rougeL (+ bertscore with an Embedder, async) |
 * | scienceqa | acc |
 * Every result also has `refused` (1 when the final answer is a refusal).
 * Questions without a gold answer (2Wiki here) get only `refused`.
 * Unanswerable questions outside MMLongBench-Doc/MultiHop-RAG (the demo world)
 * score em = f1 = 1 exactly when the answer is a refusal.
 */
import type { Question } from '../bench/types';
import type { ChatModel } from '../models/types';
import type { Embedder } from '../index/types';
import { NOT_ANSWERABLE } from '../bench/mmlongbench';
import { isRefusal } from './metrics/final-answer';
import { emF1 } from './metrics/em-f1';
import { multihopRagCorrect } from './metrics/multihop-rag';
import { mmlongbenchAccF1, mmlongbenchScore, type MmlbAnswerFormat } from './metrics/mmlongbench';
import { extractAnswerWithJudge, type JudgeExtraction } from './metrics/mmlongbench-judge';
import { rougeLMax } from './metrics/rouge';
import { embeddingF1 } from './metrics/bertscore';
import { scienceqaCorrect } from './metrics/scienceqa';
import { goldList } from './metrics/normalize';

export interface ScoreOptions {
  /**
   * MMLongBench-Doc without a judge: a refusal is graded as "Not answerable"
   * (what the official extraction step writes for such answers). Default true.
   */
  refusalAsNotAnswerable?: boolean;
}

/** MMLongBench-Doc's gold answer as the official file spells it (List answers keep their Python repr). */
function mmlbGold(q: Question): { gt: string; format: MmlbAnswerFormat } {
  const format = (q.meta.answerFormat as MmlbAnswerFormat | undefined) ?? (q.format === 'unanswerable' ? 'None' : q.format === 'list' ? 'List' : q.format === 'number' ? 'Float' : 'Str');
  const raw = q.meta.answerRaw;
  if (typeof raw === 'string') return { gt: raw, format };
  if (Array.isArray(q.answer)) return { gt: `[${q.answer.map((a) => `'${a.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`, format };
  return { gt: q.answer ?? NOT_ANSWERABLE, format };
}

function mmlbScores(q: Question, pred: string): Record<string, number> {
  const { gt, format } = mmlbGold(q);
  return {
    acc: mmlongbenchScore(gt, pred, format),
    goldAnswerable: gt.trim() === NOT_ANSWERABLE ? 0 : 1,
    predAnswerable: pred === NOT_ANSWERABLE ? 0 : 1,
  };
}

/** Rule-based, synchronous scores of one final answer. */
export function scoreAnswer(q: Question, finalAnswer: string, opts: ScoreOptions = {}): Record<string, number> {
  const value = (finalAnswer ?? '').trim();
  const refused = isRefusal(value) ? 1 : 0;
  switch (q.benchmark) {
    case 'multihop-rag':
      return { acc: multihopRagCorrect(value, String(q.answer ?? ''), { nullQuestion: q.type === 'null' || undefined }), refused };
    case 'mmlongbench-doc': {
      const pred = refused && (opts.refusalAsNotAnswerable ?? true) ? NOT_ANSWERABLE : value;
      return { ...mmlbScores(q, pred), refused };
    }
    case 'webqa':
      if (q.answer === null) return { refused };
      return { rougeL: rougeLMax(refused ? '' : value, [...goldList(q.answer), ...(q.altAnswers ?? [])]), refused };
    case 'scienceqa':
      return { acc: scienceqaCorrect(q, value), refused };
    default: {
      if (q.format === 'unanswerable') return { em: refused, f1: refused, refused };
      if (q.answer === null) return { refused };
      return { ...emF1(value, q.answer, q.altAnswers), refused };
    }
  }
}

export interface JudgeScoreOptions extends ScoreOptions {
  /** The scorer model (stage 'scorer'); without it MMLongBench-Doc falls back to the rule-based path. */
  judge?: ChatModel;
  /** Embedder for WebQA's BERTScore-style F1. */
  embedder?: Embedder;
  /** The full answer text the judge reads (default: the final answer). */
  fullText?: string;
  template?: string;
  questionId?: string;
  runId?: string;
  signal?: AbortSignal;
}

export interface JudgedScores {
  scores: Record<string, number>;
  /** MMLongBench-Doc: what the judge extracted (absent without a judge). */
  extraction?: JudgeExtraction;
}

/**
 * Scores with the model-judge protocols: MMLongBench-Doc's extraction step
 * (then the official rule-based scorer on the extracted answer; a failed
 * extraction scores 0 as upstream), and WebQA's embedding F1. Other benchmarks
 * are rule-based: same as scoreAnswer.
 */
export async function scoreAnswerWithJudge(q: Question, finalAnswer: string, opts: JudgeScoreOptions = {}): Promise<JudgedScores> {
  const base = scoreAnswer(q, finalAnswer, opts);
  if (q.benchmark === 'mmlongbench-doc' && opts.judge) {
    const extraction = await extractAnswerWithJudge(opts.judge, q.question, opts.fullText ?? finalAnswer, {
      template: opts.template, questionId: opts.questionId ?? q.id, runId: opts.runId, signal: opts.signal,
    });
    const judged = extraction.failed ? { ...mmlbScores(q, extraction.pred), acc: 0 } : mmlbScores(q, extraction.pred);
    return { scores: { ...judged, refused: base.refused, judgeFailed: extraction.failed ? 1 : 0 }, extraction };
  }
  if (q.benchmark === 'webqa' && opts.embedder && q.answer !== null) {
    const refs = [...goldList(q.answer), ...(q.altAnswers ?? [])];
    let best = 0;
    for (const r of refs) best = Math.max(best, (await embeddingF1(base.refused ? '' : finalAnswer, r, opts.embedder)).f);
    return { scores: { ...base, bertscore: best } };
  }
  return { scores: base };
}

/** MMLongBench-Doc's official accuracy and F1 from per-question scoreAnswer results. */
export function aggregateMmlongbench(results: readonly Record<string, number>[]): { acc: number; f1: number; n: number } {
  return mmlongbenchAccF1(results.map((r) => ({
    answer: r.goldAnswerable ? 'answerable' : NOT_ANSWERABLE,
    pred: r.predAnswerable ? 'answered' : NOT_ANSWERABLE,
    score: r.acc ?? 0,
  })));
}
