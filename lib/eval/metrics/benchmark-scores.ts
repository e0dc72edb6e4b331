/**
 * The per-question scorers benchmarks declare (lib/bench/benchmarks/*): each
 * combines the metric primitives of this folder the way its benchmark's
 * official protocol does.
 */
import type { Question } from '../../bench/types';
import { NOT_ANSWERABLE } from '../../bench/mmlongbench';
import { emF1 } from './em-f1';
import { mmlongbenchAccF1, mmlongbenchScore, type MmlbAnswerFormat } from './mmlongbench';
import { goldList } from './normalize';

/** EM and list-aware token F1; unanswerable questions score 1 exactly when refused; no gold: nothing to score. */
export function emF1Scores(q: Question, value: string, refused: 0 | 1): Record<string, number> {
  if (q.format === 'unanswerable') return { em: refused, f1: refused };
  if (q.answer === null) return {};
  return emF1(value, q.answer, q.altAnswers);
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

/** MMLongBench-Doc's official accuracy and F1 from per-question mmlbScores results. */
export function aggregateMmlongbench(results: readonly Record<string, number>[]): { acc: number; f1: number; n: number } {
  return mmlongbenchAccF1(
    results.map((r) => ({
      answer: r.goldAnswerable ? 'answerable' : NOT_ANSWERABLE,
      pred: r.predAnswerable ? 'answered' : NOT_ANSWERABLE,
      score: r.acc ?? 0,
    })),
  );
}

export { goldList };
