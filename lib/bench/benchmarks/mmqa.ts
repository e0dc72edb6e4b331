/** MMQA dev, image side (DualG-MRAG): gold only in images, images as captions; EM/F1 under the M3DocVQA convention. */
import { benchDir } from '../../util/paths';
import { emF1Scores } from '../../eval/metrics/benchmark-scores';
import { loadMmqa, type MmqaPaths } from '../mmqa';
import type { BenchmarkSpec } from '../spec';
import { benchFile } from './paths';

export const MMQA: BenchmarkSpec<MmqaPaths> = {
  name: 'mmqa',
  description: 'MMQA dev, image side: gold only in images, images as captions (DualG-MRAG)',
  pathKeys: ['questions', 'images', 'captions'],
  questionsKey: 'questions',
  defaultPaths: (split) => ({
    questions: benchFile(split, 'mmqa', 'MMQA_dev.dev.jsonl.gz'),
    images: benchDir('mmqa', 'MMQA_images.jsonl.gz'),
    captions: benchDir('mmqa', 'image_captions_llava.json'),
  }),
  load: (paths, opts) => loadMmqa(paths, opts),
  convention: 'm3docvqa',
  recallLevel: 'document',
  relationsScope: 'corpus',
  metrics: ['em', 'f1'],
  score: emF1Scores,
  buckets: ['modality', 'hops'],
};
