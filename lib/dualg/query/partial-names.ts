/**
 * Partial-name candidates, entity linking's standard candidate generation beyond exact dictionary matches (name
 * dictionaries with partial matches, e.g. Shen, Wang & Han 2015, "Entity linking with a knowledge base"): a name may
 * stand for a title of which it is the leading or the trailing token span -- a surname for the full name, a place
 * for "Rochester, New York" or "History of Scotland", a first name part for "Jiménez Municipality, Lara". Spans
 * that begin or end with a stop word ("History of", "of Scotland") or hold only stop words and numbers are not
 * names. A span shared by many titles says little about which one is meant: like a seed whose idf is below
 * minSeedShare x the largest possible idf (the linker's guard, searcher.ts minSeedIdf), it yields no candidate,
 * with the span's idf = log(1 + documents / titles sharing it).
 */
import { skipKey } from '../graph/extract-offline';
import { wordTokens } from '../graph/names';
import type { DualGraph } from '../graph/types';
import { STOPWORDS } from '../../util/text-rules';

/** The linker's guard (searcher.ts SEARCHER_DEFAULTS.minSeedIdf): a seed steers the ranking from half the largest idf. */
export const PARTIAL_MIN_IDF_SHARE = 0.5;

/** The spans of one title that may stand for it: proper leading and trailing token spans. */
export function partialSpans(title: string): string[] {
  const words = wordTokens(title.replace(/\s*\([^)]*\)\s*/g, ' ').trim()).map((t) => t.norm);
  if (words[0] === 'the' || words[0] === 'a' || words[0] === 'an') words.shift();
  const out = new Set<string>();
  for (let i = 1; i < words.length; i++) {
    for (const span of [words.slice(0, i), words.slice(i)]) {
      const key = span.join(' ');
      if (skipKey(key) || STOPWORDS.has(span[0]) || STOPWORDS.has(span[span.length - 1])) continue;
      out.add(key);
    }
  }
  return [...out];
}

/** Span key -> the documents whose title it partly names (built once per graph, on first use). */
export class PartialNames {
  private spans?: Map<string, number[]>;
  private readonly maxTitles: number;

  constructor(
    private readonly g: DualGraph,
    minSeedShare: number,
  ) {
    // idf(span) >= share x log(1 + n)  <=>  titles <= n / ((1 + n)^share - 1)
    const n = Math.max(1, g.docs.length);
    this.maxTitles = n / Math.max(1e-9, (1 + n) ** minSeedShare - 1);
  }

  /** The documents whose title has `key` as a proper leading or trailing span; none when the span is too common. */
  docs(key: string): readonly number[] {
    if (!this.spans) {
      this.spans = new Map();
      this.g.docs.forEach((d, i) => {
        for (const k of partialSpans(d.title)) (this.spans!.get(k) ?? this.spans!.set(k, []).get(k)!).push(i);
      });
    }
    const docs = this.spans.get(key) ?? [];
    return docs.length > this.maxTitles ? [] : docs;
  }
}
