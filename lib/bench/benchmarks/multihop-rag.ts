/** MultiHop-RAG (KnowForge): news articles; inference/comparison/temporal/null questions; the official accuracy rule plus the runner's F1/EM. */
import { benchDir } from '../../util/paths';
import { multihopRagQuestionScores } from '../../eval/metrics/benchmark-scores';
import { loadMultihopRag, type MultihopRagPaths } from '../multihop-rag';
import type { BenchmarkSpec } from '../spec';
import { existing } from './paths';

export const MULTIHOP_RAG: BenchmarkSpec<MultihopRagPaths> = {
  name: 'multihop-rag',
  description: 'news articles; inference/comparison/temporal/null (KnowForge)',
  pathKeys: ['queries', 'groundTruth', 'corpus', 'mdIndex'],
  questionsKey: 'queries',
  corpusKey: 'corpus',
  defaultPaths: (split) => ({
    queries: benchDir('multihop-rag', split === 'holdout' ? 'queries.holdout.json' : 'queries500.json'),
    groundTruth: benchDir('multihop-rag', split === 'holdout' ? 'ground_truth.holdout.json' : 'ground_truth500.json'),
    corpus: existing(benchDir('multihop-rag', 'corpus.json')),
    mdIndex: existing(benchDir('knowforge-subsets', 'mhr_md_index.json')),
  }),
  load: (paths) => loadMultihopRag(paths),
  convention: 'multihoprag',
  recallLevel: 'document',
  relationsScope: 'corpus',
  metrics: ['acc', 'f1', 'em'],
  // Null questions need "insufficient information"-style answers.
  score: (q, value, _refused, opts) => multihopRagQuestionScores(q, value, opts.reply),
  paperSubsets: true,
  buckets: ['type'],
};
