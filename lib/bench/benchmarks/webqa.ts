/** WebQA (DualG-MRAG): ROUGE-L against the gold answers; BERTScore-style F1 when an embedder is given. */
import { embeddingF1 } from '../../eval/metrics/bertscore';
import { goldList } from '../../eval/metrics/normalize';
import { rougeLMax } from '../../eval/metrics/rouge';
import { benchDir } from '../../util/paths';
import type { BenchmarkSpec } from '../spec';
import { loadWebqa, type WebqaOptions, type WebqaPaths } from '../webqa';

export const WEBQA: BenchmarkSpec<WebqaPaths> = {
  name: 'webqa',
  description: 'WebQA (DualG-MRAG)',
  pathKeys: ['data'],
  questionsKey: 'data',
  defaultPaths: () => ({ data: benchDir('webqa', 'WebQA_train_val.json') }),
  load: (paths, opts) => loadWebqa(paths, { split: opts.split as WebqaOptions['split'] }),
  convention: 'generic',
  recallLevel: 'document',
  relationsScope: 'corpus',
  metrics: ['rougeL', 'tokenEmbF1'],
  score(q, value, refused): Record<string, number> {
    if (q.answer === null) return {};
    return { rougeL: rougeLMax(refused ? '' : value, [...goldList(q.answer), ...(q.altAnswers ?? [])]) };
  },
  async judgeScore(q, finalAnswer, base, opts) {
    if (!opts.embedder || q.answer === null) return undefined;
    const refs = [...goldList(q.answer), ...(q.altAnswers ?? [])];
    let best = 0;
    for (const r of refs) best = Math.max(best, (await embeddingF1(base.refused ? '' : finalAnswer, r, opts.embedder)).f);
    // Named for what it is: an F1 over token embeddings, not BERTScore (never drawn beside the paper's BERTScore).
    return { scores: { ...base, tokenEmbF1: best } };
  },
  buckets: ['modality'],
};
