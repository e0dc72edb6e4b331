/**
 * Offline macro extraction from one sentence (no model): the names it holds and
 * the triples between them. Names come from two sources that complement each
 * other: the corpus's own titles and their variants (title-mention links, the
 * strongest model-free signal on Wikipedia-style corpora) and capitalised
 * phrases (wink's lite NER has no PERSON/ORG, see environment.md; proper-noun
 * chunks stand in). Consecutive names give a triple whose relation is the words
 * between them (OpenIE-style); other pairs in the sentence are co-occurrences.
 */
import { entities, stem, STOPWORDS } from '../../util/text-rules';
import { nameKey, wordTokens, type WordToken } from './names';
import type { NameMatcher } from './name-matcher';

export interface SentenceName {
  key: string;
  surface: string;
  start: number;
  end: number;
  /** Matched against the title dictionary (true) or a capitalised phrase (false). */
  title: boolean;
  /**
   * Stemmed words leading up to the name since the previous one ("originally performed by" before
   * "Roger Miller"); a name in a list ("son of A and B") shares the lead of the list's first name.
   */
  lead?: string;
}

export interface SentenceTriple {
  head: string;
  relation: string;
  tail: string;
}

export interface SentenceExtraction {
  names: SentenceName[];
  triples: SentenceTriple[];
  /** Pairs of names (keys) that share the sentence but are not consecutive. */
  cooccurs: [string, string][];
  /** Stemmed content words of the sentence outside the names (the context of its edges). */
  context: string[];
}

/** Keys that are never names on their own: only stop words and numbers ("What is?", "1990"). */
export function skipKey(key: string): boolean {
  return !key || key.length < 2 || /^\d+$/.test(key) || key.split(' ').every((w) => STOPWORDS.has(w) || /^\d+$/.test(w));
}

const MAX_PAIR_NAMES = 8;
const VERB_FORM = /^[a-z]{3,}(?:ed|ing|en)$/;
const OPENING_WORDS = new Set(['born', 'written', 'starring', 'located', 'known', 'also', 'however', 'although', 'during', 'despite', 'later', 'formerly']);

function capitalisedNames(sentence: string, taken: SentenceName[]): SentenceName[] {
  const out: SentenceName[] = [];
  const from = 0;
  for (const e of entities(sentence)) {
    const start = sentence.indexOf(e, from);
    if (start < 0) continue;
    const end = start + e.length;
    const key = nameKey(e);
    if (skipKey(key)) continue;
    // "Directed by X", "Born in Y": a capitalised verb opening the sentence is not a name.
    if (start === 0 && !key.includes(' ') && (VERB_FORM.test(key) || OPENING_WORDS.has(key))) continue;
    // A title match covering exactly this span already names it.
    if (taken.some((t) => t.start <= start && t.end >= end)) continue;
    out.push({ key, surface: e, start, end, title: false });
  }
  return out;
}

function relationPhrase(words: WordToken[]): string {
  const content = words.map((w) => w.norm).filter((w) => !STOPWORDS.has(w) && !/^\d+$/.test(w));
  return content.slice(0, 4).map(stem).join(' ');
}

const CHILD_WORDS = new Set(['son', 'sons', 'daughter', 'daughters', 'child', 'children']);

/**
 * The lead words of a name; "his son X" (X is the child) becomes "offspring", unlike "son of X" (X is the
 * parent), so a question about a father does not follow the link to a son.
 */
function leadPhrase(words: WordToken[]): string {
  const phrase = relationPhrase(words);
  const last = words.length - 1;
  for (let i = last; i >= Math.max(0, last - 2); i--) {
    if (CHILD_WORDS.has(words[i].norm) && words[i + 1]?.norm !== 'of') {
      return `${relationPhrase(words.filter((w) => !CHILD_WORDS.has(w.norm)))} offspring`.trim();
    }
  }
  return phrase;
}

/** Names, triples and co-occurrences of one sentence. */
export function extractSentence(sentence: string, titles: NameMatcher): SentenceExtraction {
  const toks = wordTokens(sentence);
  const matched: SentenceName[] = titles
    .scan(sentence, { requireCapital: true, skip: skipKey }, toks)
    .map((m) => ({ key: m.key, surface: sentence.slice(m.start, m.end), start: m.start, end: m.end, title: true }));
  const names = [...matched, ...capitalisedNames(sentence, matched)].sort((a, b) => a.start - b.start);
  const inName = (t: WordToken) => names.some((n) => t.start >= n.start && t.end <= n.end);
  let prevEnd = 0;
  let prevLead = '';
  for (const n of names) {
    const lead = leadPhrase(toks.filter((t) => t.start >= prevEnd && t.end <= n.start));
    n.lead = lead || prevLead;
    prevLead = n.lead;
    prevEnd = n.end;
  }
  const context = [...new Set(toks.filter((t) => !inName(t) && !STOPWORDS.has(t.norm) && !/^\d+$/.test(t.norm)).map((t) => stem(t.norm)))];
  const triples: SentenceTriple[] = [];
  const cooccurs: [string, string][] = [];
  const capped = names.slice(0, MAX_PAIR_NAMES);
  for (let i = 0; i + 1 < capped.length; i++) {
    const a = capped[i];
    const b = capped[i + 1];
    if (a.key === b.key) continue;
    const between = toks.filter((t) => t.start >= a.end && t.end <= b.start);
    const rel = relationPhrase(between);
    if (rel) triples.push({ head: a.key, relation: rel, tail: b.key });
    else cooccurs.push([a.key, b.key]);
    for (let j = i + 2; j < capped.length; j++) if (capped[j].key !== a.key) cooccurs.push([a.key, capped[j].key]);
  }
  return { names, triples, cooccurs, context };
}
