/**
 * The one tokenizer/normaliser of the index. BM25, the flexsearch vocabulary
 * lookup and every offline encoder call `tokenize()` with the same options, so a
 * word means the same thing to the lexical and the dense side.
 *
 * Steps (each one exists for a measured reason on Wikipedia-style passages):
 * - Unicode folding: NFKD + strip combining marks, plus the few letters NFKD does
 *   not decompose (ß, æ, ø, ł, đ, þ...), so "Aldri annet enn bråk" matches "brak".
 * - Lowercase; tokens are runs of letters/digits. Apostrophes are dropped inside
 *   a word after removing a possessive "'s" ("Lothair II's" -> "lothair", "ii").
 * - Numbers are kept ("875", "1.355"; thousands commas removed: "2,441" -> "2441").
 * - Stopwords: a small English list by default, configurable (a Set, or none).
 * - Light stemming (optional, on by default): the Harman "S" stemmer (plural
 *   endings only). It joins film/films without the damage a full Porter stemmer
 *   does to names ("Harris" stays; only -ies/-es/-s rules with guards).
 */

export interface TokenizerOptions {
  /** Remove these words (after folding). `true` = the built-in English list; `false` = keep all. */
  stopwords?: boolean | string[];
  /** Plural-only "S" stemmer (default true). */
  stem?: boolean;
  /** Drop tokens shorter than this (default 1: single letters/digits are kept, e.g. "II" folds to "ii"). */
  minLength?: number;
  /** Cut tokens longer than this (default 40: URLs and base64 junk). */
  maxLength?: number;
}

/** The options in their resolved, serialisable form (stored in index manifests). */
export interface ResolvedTokenizerOptions {
  stopwords: string[];
  stem: boolean;
  minLength: number;
  maxLength: number;
}

/** Common English function words. Deliberately short: content words such as "first", "film", "born" stay. */
export const ENGLISH_STOPWORDS: readonly string[] = [
  'a',
  'about',
  'above',
  'after',
  'again',
  'against',
  'all',
  'am',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'because',
  'been',
  'before',
  'being',
  'below',
  'between',
  'both',
  'but',
  'by',
  'can',
  'could',
  'did',
  'do',
  'does',
  'doing',
  'down',
  'during',
  'each',
  'few',
  'for',
  'from',
  'further',
  'had',
  'has',
  'have',
  'having',
  'he',
  'her',
  'here',
  'hers',
  'herself',
  'him',
  'himself',
  'his',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'itself',
  'just',
  'me',
  'more',
  'most',
  'my',
  'myself',
  'no',
  'nor',
  'not',
  'now',
  'of',
  'off',
  'on',
  'once',
  'only',
  'or',
  'other',
  'our',
  'ours',
  'ourselves',
  'out',
  'over',
  'own',
  'same',
  'she',
  'should',
  'so',
  'some',
  'such',
  'than',
  'that',
  'the',
  'their',
  'theirs',
  'them',
  'themselves',
  'then',
  'there',
  'these',
  'they',
  'this',
  'those',
  'through',
  'to',
  'too',
  'under',
  'until',
  'up',
  'very',
  'was',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'while',
  'who',
  'whom',
  'why',
  'will',
  'with',
  'would',
  'you',
  'your',
  'yours',
  'yourself',
  'yourselves',
  's',
  't',
];

/** Letters that NFKD leaves whole; folded by hand. */
const EXTRA_FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŧ: 't',
  ŀ: 'l',
  ĸ: 'k',
};
const EXTRA_FOLD_RE = new RegExp(`[${Object.keys(EXTRA_FOLDS).join('')}]`, 'g');
const COMBINING_RE = /\p{M}+/gu;
const ASCII_RE = /^[\x00-\x7f]*$/;
/**
 * A token: a number with internal separators ("1.355", "2,441"), or a run of
 * letters/digits possibly joined by apostrophes ("o'brien", "lothair's").
 */
const TOKEN_RE = /\d+(?:[.,]\d+)+|[\p{L}\p{N}]+(?:['’][\p{L}\p{N}]+)*/gu;

/** Lowercase + Unicode folding (no tokenisation). Exported for encoders that work on characters. */
export function foldText(text: string): string {
  let s = text.toLowerCase();
  if (!ASCII_RE.test(s)) {
    s = s
      .normalize('NFKD')
      .replace(COMBINING_RE, '')
      .replace(EXTRA_FOLD_RE, (c) => EXTRA_FOLDS[c] ?? c);
  }
  return s;
}

/** Harman's S-stemmer with a guard for short words and -ss/-us/-is endings ("class", "status", "paris" stay). */
export function sStem(w: string): string {
  const n = w.length;
  if (n <= 3 || w.charCodeAt(n - 1) !== 115 /* s */) return w;
  if (w.endsWith('ies') && !w.endsWith('eies') && !w.endsWith('aies')) return w.slice(0, -3) + 'y';
  if (w.endsWith('es') && !w.endsWith('aes') && !w.endsWith('ees') && !w.endsWith('oes')) {
    // "boxes" -> "box", "churches" -> "church", but "names" -> "name"
    const stem = w.slice(0, -2);
    if (/(?:x|ch|sh|ss|zz)$/.test(stem)) return stem;
    return w.slice(0, -1);
  }
  if (w.endsWith('ss') || w.endsWith('us') || w.endsWith('is') || w.endsWith("'s")) return w;
  if (/\d/.test(w)) return w;
  return w.slice(0, -1);
}

export function resolveTokenizerOptions(opts: TokenizerOptions = {}): ResolvedTokenizerOptions {
  const sw = opts.stopwords ?? true;
  return {
    stopwords: sw === true ? [...ENGLISH_STOPWORDS] : sw === false ? [] : [...sw].map((w) => foldText(w)),
    stem: opts.stem ?? true,
    minLength: opts.minLength ?? 1,
    maxLength: opts.maxLength ?? 40,
  };
}

/**
 * A configured tokenizer. Cheap to call repeatedly: stemmed forms are memoised
 * (the vocabulary of a corpus is small compared with its token count).
 */
export class Tokenizer {
  readonly options: ResolvedTokenizerOptions;
  private readonly stop: Set<string>;
  private readonly stemCache = new Map<string, string>();

  constructor(opts: TokenizerOptions | ResolvedTokenizerOptions = {}) {
    this.options = resolveTokenizerOptions(opts);
    this.stop = new Set(this.options.stopwords);
  }

  /** Normalised terms of `text`, in order, stopwords removed. */
  tokenize(text: string): string[] {
    return this.collect(foldText(text), true);
  }

  /** Normalised words including stopwords (for encoders that weight function words themselves). */
  words(text: string): string[] {
    return this.collect(foldText(text), false);
  }

  private collect(folded: string, dropStop: boolean): string[] {
    const out: string[] = [];
    const { minLength, maxLength, stem } = this.options;
    TOKEN_RE.lastIndex = 0;
    for (let m = TOKEN_RE.exec(folded); m !== null; m = TOKEN_RE.exec(folded)) {
      let t = m[0];
      const c0 = t.charCodeAt(0);
      if (c0 >= 48 && c0 <= 57 && (t.includes(',') || t.includes('.'))) {
        // "2,441" -> "2441"; "1.355" stays a decimal
        t = t.replace(/,/g, '');
      } else if (t.includes("'") || t.includes('’')) {
        t = t.replace(/['’]s$/, '').replace(/['’]/g, '');
      }
      if (t.length < minLength) continue;
      if (t.length > maxLength) t = t.slice(0, maxLength);
      if (dropStop && this.stop.has(t)) continue;
      if (stem) {
        let s = this.stemCache.get(t);
        if (s === undefined) {
          s = sStem(t);
          if (this.stemCache.size < 500_000) this.stemCache.set(t, s);
        }
        t = s;
      }
      out.push(t);
    }
    return out;
  }
}

/** The default tokenizer (stopwords on, S-stemmer on). Shared so its stem cache is shared. */
let defaultTok: Tokenizer | undefined;
export function defaultTokenizer(): Tokenizer {
  return (defaultTok ??= new Tokenizer());
}

/** Convenience: tokenize with the default options. */
export function tokenize(text: string): string[] {
  return defaultTokenizer().tokenize(text);
}
