/** ScienceQA (DualG-MRAG): multiple choice accuracy; the paper breaks it down by subject, context and grade. */
import { scienceqaCorrect } from '../../eval/metrics/scienceqa';
import { benchDir } from '../../util/paths';
import { loadScienceqa, type ScienceqaPaths } from '../scienceqa';
import type { BenchmarkSpec } from '../spec';
import { existing } from './paths';

export const SCIENCEQA: BenchmarkSpec<ScienceqaPaths> = {
  name: 'scienceqa',
  description: 'ScienceQA (DualG-MRAG)',
  pathKeys: ['problems', 'splits', 'images'],
  questionsKey: 'problems',
  defaultPaths: () => ({
    problems: benchDir('scienceqa', 'problems.json'),
    splits: existing(benchDir('scienceqa', 'pid_splits.json')),
    images: existing(benchDir('scienceqa', 'images')),
  }),
  load: (paths, opts) => loadScienceqa(paths, { split: opts.split }),
  convention: 'generic',
  recallLevel: 'document',
  relationsScope: 'corpus',
  metrics: ['acc'],
  score: (q, value) => ({ acc: scienceqaCorrect(q, value) }),
  buckets: ['subject', 'context', 'grade'],
};
