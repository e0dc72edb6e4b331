/** The text multi-hop sets (HippoRAG subsets): 2WikiMultiHopQA, MuSiQue, HotpotQA; passages as documents, EM/F1. */
import { emF1Scores } from '../../eval/metrics/benchmark-scores';
import { benchDir } from '../../util/paths';
import type { BenchmarkName } from '../names';
import type { BenchmarkSpec } from '../spec';
import { load2Wiki, loadHotpotqa, loadMusique, type TextMultihopPaths } from '../text-multihop';
import { benchFile } from './paths';

function textMultihop(
  name: BenchmarkName,
  prefix: string,
  description: string,
  load: BenchmarkSpec<TextMultihopPaths>['load'],
): BenchmarkSpec<TextMultihopPaths> {
  return {
    name,
    description,
    pathKeys: ['questions', 'corpus'],
    questionsKey: 'questions',
    corpusKey: 'corpus',
    defaultPaths: (split) => ({
      questions: benchFile(split, 'text-multihop', `${prefix}_questions.dev.json`),
      corpus: benchDir('text-multihop', `${prefix}_corpus.json`),
    }),
    load,
    convention: 'generic',
    recallLevel: 'document',
    relationsScope: 'corpus',
    metrics: ['em', 'f1'],
    score: emF1Scores,
    buckets: ['hops', 'type'],
  };
}

export const TWO_WIKI = textMultihop('2wiki', '2wiki', '2WikiMultiHopQA (HippoRAG subset), no gold answers here', (p, o) => load2Wiki(p, o));
export const MUSIQUE = textMultihop('musique', 'musique', 'MuSiQue (HippoRAG subset)', (p, o) => loadMusique(p, o));
export const HOTPOTQA = textMultihop('hotpotqa', 'hotpotqa', 'HotpotQA (HippoRAG subset)', (p, o) => loadHotpotqa(p, o));
