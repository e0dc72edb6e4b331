/** MMLongBench-Doc (KnowForge): single long PDFs, page-level gold, the official rule-based scorer and its judge step. */
import { benchDir } from '../../util/paths';
import { aggregateMmlongbench, mmlbScores } from '../../eval/metrics/benchmark-scores';
import { extractAnswerWithJudge } from '../../eval/metrics/mmlongbench-judge';
import { loadMmlongbench, NOT_ANSWERABLE, type MmlongbenchPaths } from '../mmlongbench';
import type { BenchmarkSpec } from '../spec';
import { benchFile, existing } from './paths';

export const MMLONGBENCH_DOC: BenchmarkSpec<MmlongbenchPaths> = {
  name: 'mmlongbench-doc',
  description: 'single-document long PDFs, page-level gold (KnowForge)',
  pathKeys: ['samples', 'documents'],
  questionsKey: 'samples',
  corpusKey: 'documents',
  defaultPaths: (split) => ({
    samples: benchFile(split, 'mmlongbench-doc', 'samples.dev.json'),
    documents: existing(benchDir('mmlongbench-doc', 'documents')),
  }),
  load: (paths) => loadMmlongbench(paths),
  convention: 'mmlongbench',
  recallLevel: 'page',
  relationsScope: 'document',
  metrics: ['acc', 'goldAnswerable', 'predAnswerable'],
  score(q, value, refused, opts) {
    const pred = refused && (opts.refusalAsNotAnswerable ?? true) ? NOT_ANSWERABLE : value;
    return mmlbScores(q, pred);
  },
  /** The official extraction step by a judge model, then the rule-based scorer on the extracted answer (a failed extraction scores 0). */
  async judgeScore(q, finalAnswer, base, opts) {
    if (!opts.judge) return undefined;
    const extraction = await extractAnswerWithJudge(opts.judge, q.question, opts.fullText ?? finalAnswer, {
      template: opts.template,
      benchmarkPrompt: opts.extractionPrompt,
      questionId: opts.questionId ?? q.id,
      runId: opts.runId,
      signal: opts.signal,
    });
    const judged = extraction.failed ? { ...mmlbScores(q, extraction.pred), acc: 0 } : mmlbScores(q, extraction.pred);
    // The rule-scored pair stays beside the judged one (not the paper's strict accuracy): the rule-based scorer on the FINAL ANSWER as written.
    const strict = { ruleAcc: base.acc ?? 0, rulePredAnswerable: base.predAnswerable ?? 1 };
    return { scores: { ...judged, ...strict, refused: base.refused, judgeFailed: extraction.failed ? 1 : 0 }, extraction };
  },
  aggregate: aggregateMmlongbench,
  buckets: ['format', 'source', 'page'],
};
