/**
 * Longest-match dictionary lookup of names in text: the title-mention links of
 * the macro graph (a passage mentioning another passage's title or alias) and
 * query entity linking both use it. Keys are `nameKey` forms; a scan walks the
 * words once, trying the longest key that starts at each word (a prefix set
 * stops the walk early), and keeps non-overlapping matches, leftmost-longest.
 */
import { wordTokens, type WordToken } from './names';

export interface NameMatch {
  key: string;
  /** Word positions [from, to) in the scanned token list. */
  from: number;
  to: number;
  /** Character offsets in the scanned text. */
  start: number;
  end: number;
}

export interface MatchOptions {
  /**
   * A one-word name must be written capitalised to count ("Adolescence" the
   * title, not "adolescence" the word). Longer names need one capitalised word.
   */
  requireCapital?: boolean;
  /** Keys never matched (stop words, bare numbers). */
  skip?: (key: string) => boolean;
}

export class NameMatcher {
  private readonly keys = new Set<string>();
  private readonly prefixes = new Set<string>();
  private maxWords = 1;

  add(key: string): void {
    if (!key || this.keys.has(key)) return;
    this.keys.add(key);
    const words = key.split(' ');
    this.maxWords = Math.max(this.maxWords, words.length);
    for (let i = 1; i < words.length; i++) this.prefixes.add(words.slice(0, i).join(' '));
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  get size(): number {
    return this.keys.size;
  }

  /** Non-overlapping longest matches in `text` (or in already computed tokens). */
  scan(text: string, opts: MatchOptions = {}, toks: WordToken[] = wordTokens(text)): NameMatch[] {
    const out: NameMatch[] = [];
    let i = 0;
    while (i < toks.length) {
      let best = -1;
      let key = '';
      let bestKey = '';
      for (let j = i; j < toks.length && j - i < this.maxWords; j++) {
        key = j === i ? toks[j].norm : `${key} ${toks[j].norm}`;
        if (this.keys.has(key) && this.accept(toks, i, j + 1, key, opts)) {
          best = j + 1;
          bestKey = key;
        }
        if (!this.prefixes.has(key)) break;
      }
      if (best > 0) {
        out.push({ key: bestKey, from: i, to: best, start: toks[i].start, end: toks[best - 1].end });
        i = best;
      } else i++;
    }
    return out;
  }

  private accept(toks: WordToken[], from: number, to: number, key: string, opts: MatchOptions): boolean {
    if (opts.skip?.(key)) return false;
    if (!opts.requireCapital) return true;
    for (let k = from; k < to; k++) if (toks[k].capitalised) return true;
    return false;
  }
}
