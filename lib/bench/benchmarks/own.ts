/**
 * Your own data (lib/bench/own.ts): a folder of documents and a questions file
 * with `question` and `answer`; results carry the name you give
 * (`benchmark.options.name`, `kf run --name`). EM / token F1 like the demo
 * world; document-level retrieval recall where gold documents are given.
 */
import { emF1Scores } from '../../eval/metrics/benchmark-scores';
import { loadOwn, type OwnPaths } from '../own';
import type { BenchmarkSpec } from '../spec';
import { KfError } from '../../util/errors';

export const OWN: BenchmarkSpec<OwnPaths> = {
  name: 'own',
  description: 'your own documents folder and questions file (question + answer; optional gold docs/pages)',
  pathKeys: ['questions', 'corpus'],
  questionsKey: 'questions',
  corpusKey: 'corpus',
  defaultPaths: () => ({ questions: '' }),
  load: (paths, opts) => {
    if (!paths.questions) throw new KfError('bench_file_missing', 'own data needs a questions file', 'pass --questions <file> (benchmark.paths.questions)');
    return loadOwn(paths, { name: opts.name });
  },
  convention: 'generic',
  recallLevel: 'document',
  relationsScope: 'corpus',
  metrics: ['em', 'f1'],
  score: emF1Scores,
  buckets: ['format'],
};
