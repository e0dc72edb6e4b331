/**
 * The offline stand-in for the judge's drop decision (configuration M5JD,
 * setting judgeDrops): a pool block the judge saw is dropped when it shares no
 * content word with the question, the way an obviously off-topic block looks
 * to a reader. A rule, not a model: records of offline runs say so.
 */
import { contentWords, stem } from '../../util/text-rules';
import { numberedBlocks } from '../../answer/block-format';

/** The numbers of the pool blocks ([N] / [fig N]) that share no content word with the question. */
export function offTopicBlocks(question: string, pool: string): number[] {
  const want = new Set(contentWords(question).map((w) => stem(w.toLowerCase())));
  if (!want.size) return [];
  const out: number[] = [];
  for (const b of numberedBlocks(pool)) {
    const words = contentWords(b.text).map((w) => stem(w.toLowerCase()));
    if (!words.some((w) => want.has(w))) out.push(b.n);
  }
  return out;
}
