/**
 * The per-question scorers benchmarks declare (lib/bench/benchmarks/*): each
 * combines the metric primitives of this folder the way its benchmark's
 * official protocol does.
 */
import type { Question } from '../../bench/types';
import { NOT_ANSWERABLE } from '../../bench/mmlongbench';
import { emF1 } from './em-f1';
import { m3docvqaEmF1, m3dPredictionFromReply, m3dPredictionFromValue } from './m3docvqa-official';
import { mhrPrediction, multihopRagScores } from './multihop-rag';
import { mmlongbenchAccF1, mmlongbenchScore, type MmlbAnswerFormat } from './mmlongbench';
import { goldList } from './normalize';

/** EM and list-aware token F1; unanswerable questions score 1 exactly when refused; no gold: nothing to score. */
export function emF1Scores(q: Question, value: string, refused: 0 | 1): Record<string, number> {
  if (q.format === 'unanswerable') return { em: refused, f1: refused };
  if (q.answer === null) return {};
  return emF1(value, q.answer, q.altAnswers);
}

/**
 * M3DocVQA as the paper scored it (m3docvqa-official.ts): em/f1 from the reply's
 * final line (the value alone when no reply is given); the harness's own list
 * rule stays beside them as emHarness/f1Harness.
 */
export function m3docvqaScores(q: Question, value: string, refused: 0 | 1, reply?: string): Record<string, number> {
  const preds = reply === undefined ? m3dPredictionFromValue(value) : m3dPredictionFromReply(reply);
  const harness = emF1Scores(q, value, refused);
  const official = q.answer === null ? {} : m3docvqaEmF1(preds, goldList(q.answer));
  return { ...official, ...(harness.em === undefined ? {} : { emHarness: harness.em, f1Harness: harness.f1 }) };
}

/** MultiHop-RAG as the paper scored it: official acc, the runner's f1 and em (null questions: all three by the refusal prefix). */
export function multihopRagQuestionScores(q: Question, value: string, reply?: string): Record<string, number> {
  const pred = reply === undefined ? value : mhrPrediction(reply);
  return multihopRagScores(pred, String(q.answer ?? ''), { nullQuestion: q.type === 'null' || undefined });
}

/** MMLongBench-Doc's gold answer as the official file spells it (List answers keep their Python repr). */
function mmlbGold(q: Question): { gt: string; format: MmlbAnswerFormat } {
  const format =
    (q.meta.answerFormat as MmlbAnswerFormat | undefined) ??
    (q.format === 'unanswerable' ? 'None' : q.format === 'list' ? 'List' : q.format === 'number' ? 'Float' : 'Str');
  const raw = q.meta.answerRaw;
  if (typeof raw === 'string') return { gt: raw, format };
  if (Array.isArray(q.answer)) return { gt: `[${q.answer.map((a) => `'${a.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`).join(', ')}]`, format };
  return { gt: q.answer ?? NOT_ANSWERABLE, format };
}

/** MMLongBench-Doc's official rule-based accuracy of a prediction, with what its F1 needs. */
export function mmlbScores(q: Question, pred: string): Record<string, number> {
  const { gt, format } = mmlbGold(q);
  return {
    acc: mmlongbenchScore(gt, pred, format),
    goldAnswerable: gt.trim() === NOT_ANSWERABLE ? 0 : 1,
    predAnswerable: pred === NOT_ANSWERABLE ? 0 : 1,
  };
}

/**
 * MMLongBench-Doc's official accuracy and F1 from per-question mmlbScores results; with a judge, also the
 * rule-scored pair (ruleAcc, ruleF1: the rule-based scorer on the FINAL ANSWER, no extraction step; not the paper's strict accuracy, which counts questions whose judge score equals 1).
 */
export function aggregateMmlongbench(results: readonly Record<string, number>[]): {
  acc: number;
  f1: number;
  n: number;
  ruleAcc?: number;
  ruleF1?: number;
} {
  const accF1 = (score: string, answered: string) =>
    mmlongbenchAccF1(
      results.map((r) => ({
        answer: r.goldAnswerable ? 'answerable' : NOT_ANSWERABLE,
        pred: r[answered] ? 'answered' : NOT_ANSWERABLE,
        score: r[score] ?? 0,
      })),
    );
  const official = accF1('acc', 'predAnswerable');
  if (!results.length || !results.every((r) => typeof r.ruleAcc === 'number')) return official;
  const strict = accF1('ruleAcc', 'rulePredAnswerable');
  return { ...official, ruleAcc: strict.acc, ruleF1: strict.f1 };
}

export { goldList };
