/**
 * Filler prose: paragraphs that talk about an entity without stating any fact a
 * question asks for. They make documents long (the corpus-scale experiment needs
 * ~60 fragments per document) and add near-miss numbers (other years) that a
 * careless reader could take for the answer.
 *
 * Word list discipline: no filler sentence uses the words that state facts
 * (founded, born, chief executive, headquarters, manufactured, director, ...) or
 * the attributes unanswerable questions ask for (mayor, ticker, warranty, budget,
 * children, motto): tests check the latter never appear anywhere.
 */
import type { Rng } from '../util/rng';
import type { EntityType } from './types';

const ADJECTIVES = [
  'quiet',
  'ambitious',
  'methodical',
  'unusual',
  'well-documented',
  'modest',
  'energetic',
  'careful',
  'inventive',
  'steady',
  'curious',
  'patient',
];

const TOPICS: Record<EntityType | 'digest', string[]> = {
  company: ['supply contracts', 'training programmes', 'warehouse layout', 'quality audits', 'customer service', 'delivery routes'],
  product: ['packaging', 'user manual', 'repair guides', 'accessories', 'retail displays', 'spare parts'],
  person: ['lectures', 'correspondence', 'early notebooks', 'travels', 'public talks', 'essays'],
  city: ['markets', 'bridges', 'festivals', 'old quarter', 'tram lines', 'parks'],
  institute: ['seminars', 'library', 'visiting fellows', 'field stations', 'summer schools', 'archives'],
  digest: ['exhibition halls', 'panel discussions', 'stands', 'visitor numbers', 'catering', 'press briefings'],
};

const SENTENCES = [
  '{N} is often mentioned in regional guides and trade newsletters.',
  'Local archives hold several reports on {N}, most of them written in a dry, technical style.',
  'In {Y}, {N} was the subject of a short documentary that was broadcast twice.',
  'Observers describe {N} as {A} and {B}.',
  'Visitors frequently remark on the {A} character of {N}.',
  'A {A} review published in {Y} discussed {N} at some length.',
  'Much of what is written about {N} concerns its {T}.',
  'Commentators have compared the {T} of {N} with those of its neighbours.',
  'A survey carried out in {Y} asked readers what they associated with {N}; the most common answer mentioned its {T}.',
  'The {T} attracted particular attention during {Y}.',
  'Several photographs from {Y} show {N} in a {A} light.',
  'Nothing in the surviving records suggests that {N} changed its {T} quickly.',
  'Critics and admirers agree that {N} has a {A} reputation.',
  'The {T} were reorganised in {Y} after a {A} consultation.',
  'Students of the region still cite {N} when they write about {T}.',
];

/** "a" or "an" before a word (by its first letter; good enough for our vocabulary). */
export function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

function fill(tpl: string, rng: Rng, name: string, type: EntityType | 'digest', minYear: number): string {
  const a = rng.pick(ADJECTIVES);
  let b = rng.pick(ADJECTIVES);
  if (b === a) b = ADJECTIVES[(ADJECTIVES.indexOf(a) + 1) % ADJECTIVES.length];
  return tpl
    .replace(/\{N\}/g, name)
    .replace(/\{A\}/g, a)
    .replace(/\{B\}/g, b)
    .replace(/\{T\}/g, rng.pick(TOPICS[type]))
    .replace(/\{Y\}/g, () => String(rng.int(Math.min(2023, Math.max(1961, minYear)), 2023)))
    .replace(/\b(a|A) (\w)/g, (m, a: string, w: string) => (/[aeiou]/i.test(w) ? `${a}n ${w}` : m));
}

/** One filler paragraph of 3-5 sentences about `name`; years mentioned are >= minYear (no documentary before a company existed). */
export function fillerParagraph(rng: Rng, name: string, type: EntityType | 'digest', minYear = 1961): string {
  const n = rng.int(3, 5);
  const picked = rng.sample(SENTENCES, n);
  const out = picked.map((t) => fill(t, rng, name, type, minYear));
  // Capitalise a sentence that starts with a lower-case name placeholder result ("the ...").
  return out.map((s) => s.charAt(0).toUpperCase() + s.slice(1)).join(' ');
}

const FILLER_HEADINGS = ['History', 'Activities', 'Reception', 'Archives', 'Notes', 'Further reading', 'Context', 'Commentary'];

/** Heading of the k-th filler section (0-based): unique within a document. */
export function fillerHeading(k: number): string {
  const base = FILLER_HEADINGS[k % FILLER_HEADINGS.length];
  const round = Math.floor(k / FILLER_HEADINGS.length);
  return round === 0 ? base : `${base} (part ${round + 1})`;
}

/** Words that must never appear in the corpus (unanswerable questions ask for them). */
export const NEVER_STATED = ['mayor', 'ticker', 'warranty', 'budget', 'motto', 'spouse'];
