/**
 * The words of a question that carry the relation it asks about ("mother",
 * "directed", "performer"), weighted by closeness to the linked names: in "the
 * child of the performer of song X" the hop out of X is "performer", so it
 * weighs more than "child". A type noun right before a name ("song X", "film X")
 * says what X is, not how to leave it, and is dropped. Each word may carry
 * alternatives from a small relation lexicon (kinship and credits: a passage
 * says "son of" where the question says "mother"); the lexicon is a setting so
 * its effect is measurable (off: `lexicon: false`).
 * With `idf`, each word's weight is also multiplied by its inverse document
 * frequency in the corpus (Sparck Jones: a word most passages hold, "born",
 * tells less about which passage answers than a rare one, "coronation").
 */
import { STOPWORDS, stem } from '../../util/text-rules';
import { wordTokens } from '../graph/names';

export interface RelationWord {
  /** The word's stem first, then lexicon alternatives. */
  stems: string[];
  weight: number;
  /** Rank of its distance to the nearest linked name among the question's relation words (0: the closest). */
  order?: number;
}

/**
 * The relation words of one hop of a compositional question ("the X of the Y of Z": the hop out of Z is Y, the next
 * X): the words of the (hop + 1)-th closest distance to the linked names, the farthest ones for any later hop, their
 * weights renormalised. Words without an order (built elsewhere) all count.
 */
export function hopWords(words: RelationWord[], hop: number): RelationWord[] {
  const orders = words.map((w) => w.order).filter((o): o is number => o !== undefined);
  if (orders.length < words.length || !words.length) return words;
  const pick = Math.min(hop, Math.max(...orders));
  const mine = words.filter((w) => w.order === pick);
  const total = mine.reduce((a, w) => a + w.weight, 0) || 1;
  return mine.map((w) => ({ ...w, weight: w.weight / total }));
}

const QUESTION_WORDS = new Set(['what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'did', 'does', 'do']);
const TYPE_NOUNS = new Set([
  'film',
  'movie',
  'song',
  'album',
  'book',
  'novel',
  'band',
  'series',
  'show',
  'company',
  'single',
  'play',
  'game',
  'magazine',
  'newspaper',
  'episode',
  'opera',
]);

/** Relation word -> words a passage uses for it (stems are taken after lookup). */
const LEXICON: Record<string, string[]> = {
  mother: ['son', 'daughter', 'child', 'born', 'parent'],
  father: ['son', 'daughter', 'child', 'born', 'parent'],
  parent: ['son', 'daughter', 'child', 'born', 'mother', 'father'],
  paternal: ['father', 'son', 'daughter', 'child', 'born', 'parent'],
  maternal: ['mother', 'son', 'daughter', 'child', 'born', 'parent'],
  grandfather: ['father', 'son', 'grandson'],
  stepmother: ['father', 'married', 'wife', 'son', 'daughter'],
  stepfather: ['mother', 'married', 'husband', 'son', 'daughter'],
  grandmother: ['mother', 'son', 'daughter', 'granddaughter'],
  child: ['son', 'daughter', 'father', 'mother', 'children', 'offspring'],
  son: ['father', 'mother', 'child', 'children', 'offspring'],
  daughter: ['father', 'mother', 'child', 'children', 'offspring'],
  husband: ['married', 'wife', 'marriage', 'consort', 'queen', 'spouse'],
  wife: ['married', 'husband', 'marriage', 'consort', 'king', 'spouse'],
  spouse: ['married', 'husband', 'wife', 'marriage'],
  director: ['directed', 'direct'],
  composer: ['music', 'score', 'composed'],
  performer: ['performed', 'sung', 'recorded', 'singer', 'artist', 'by'],
  producer: ['produced'],
  writer: ['written', 'wrote', 'author', 'screenplay'],
  author: ['written', 'wrote', 'writer'],
  founder: ['founded', 'established'],
};

/** Relation words of a question: content words outside the linked names (`covered` word positions). */
export function relationWords(question: string, covered: Set<number>, opts: { lexicon?: boolean; idf?: (stem: string) => number } = {}): RelationWord[] {
  const toks = wordTokens(question);
  const picked: { norm: string; distance: number; inLaw: boolean }[] = [];
  toks.forEach((t, i) => {
    if (covered.has(i) || STOPWORDS.has(t.norm) || QUESTION_WORDS.has(t.norm) || /^\d+$/.test(t.norm) || t.norm.length < 3) return;
    const next = toks[i + 1]?.norm === 'the' ? i + 2 : i + 1;
    if ((TYPE_NOUNS.has(t.norm) || TYPE_NOUNS.has(t.norm.replace(/s$/, ''))) && covered.has(next)) return;
    // "father-in-law": "in" and "law" qualify the kinship word, they are not relation words of their own.
    if (t.norm === 'law' && toks[i - 1]?.norm === 'in') return;
    let distance = toks.length;
    for (const c of covered) distance = Math.min(distance, Math.abs(c - i));
    picked.push({ norm: t.norm, distance, inLaw: toks[i + 1]?.norm === 'in' && toks[i + 2]?.norm === 'law' });
  });
  const raw = picked.map((p) => (opts.idf?.(stem(p.norm)) ?? 1) / (1 + 0.5 * Math.max(0, countContentBetween(p.distance))));
  const total = raw.reduce((a, b) => a + b, 0) || 1;
  const distances = [...new Set(picked.map((p) => p.distance))].sort((a, b) => a - b);
  return picked.map((p, i) => {
    const base = p.norm;
    let alts = opts.lexicon === false ? [] : (LEXICON[base] ?? LEXICON[base.replace(/s$/, '')] ?? []);
    // "father-in-law": the hop out of the named person is the marriage.
    if (opts.lexicon !== false && p.inLaw) alts = [...LEXICON.spouse, ...alts];
    return { stems: [...new Set([stem(p.norm), ...alts.map(stem)])], weight: raw[i] / total, order: distances.indexOf(p.distance) };
  });
}

function countContentBetween(distance: number): number {
  return distance - 1;
}

/** Weighted share of the relation words present in a set of stems. */
export function relationShare(words: RelationWord[], has: (stem: string) => boolean): number {
  let s = 0;
  for (const w of words) if (w.stems.some(has)) s += w.weight;
  return s;
}
