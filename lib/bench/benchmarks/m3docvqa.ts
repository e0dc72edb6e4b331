/** M3DocVQA (KnowForge): the MMQA dev questions over Wikipedia PDFs; EM/F1 as the released scorer (emHarness/f1Harness: the harness's older list rule). */
import { benchDir } from '../../util/paths';
import { m3docvqaScores } from '../../eval/metrics/benchmark-scores';
import { loadM3docvqa, type M3docvqaPaths } from '../m3docvqa';
import type { BenchmarkSpec } from '../spec';
import { benchFile, existing } from './paths';

export const M3DOCVQA: BenchmarkSpec<M3docvqaPaths> = {
  name: 'm3docvqa',
  description: 'MMQA-dev questions over Wikipedia PDFs (KnowForge)',
  pathKeys: ['questions', 'pdfs'],
  questionsKey: 'questions',
  corpusKey: 'pdfs',
  // M3DocVQA's questions ARE the MMQA dev questions; the PDFs are not shipped here.
  defaultPaths: (split) => ({ questions: benchFile(split, 'mmqa', 'MMQA_dev.dev.jsonl.gz'), pdfs: existing(benchDir('m3docvqa', 'pdfs_dev')) }),
  load: (paths) => loadM3docvqa(paths),
  convention: 'm3docvqa',
  recallLevel: 'document',
  relationsScope: 'corpus',
  metrics: ['em', 'f1', 'emHarness', 'f1Harness'],
  score: (q, value, refused, opts) => m3docvqaScores(q, value, refused, opts.reply),
  paperSubsets: true,
  buckets: ['modality', 'hops'],
};
