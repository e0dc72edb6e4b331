/**
 * Invented names built from syllables. Every word must contain one of the rare
 * letters z/x/q/k/v/y and is unique in the world (as a whole word), so no model can
 * know the entity and no name hides inside another name's words.
 */
import type { Rng } from '../util/rng';

// Weighted by repetition: plain consonants common, rare letters (which make names look foreign) less so.
const ONSETS = [
  'b',
  'd',
  'f',
  'g',
  'k',
  'k',
  'l',
  'l',
  'm',
  'm',
  'n',
  'n',
  'p',
  'r',
  'r',
  's',
  's',
  't',
  't',
  'v',
  'v',
  'z',
  'z',
  'th',
  'kr',
  'br',
  'dr',
  'tr',
  'x',
  'qu',
  'y',
];
const VOWELS = ['a', 'a', 'e', 'e', 'i', 'o', 'o', 'u', 'ae', 'ou', 'y'];
const CODAS = ['', '', '', '', '', 'n', 'n', 'r', 'r', 'l', 'k', 'x', 's', 'm', 'v', 'z', 'th'];
const RARE = /[zxqkvy]/;

function capital(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

export class NameGenerator {
  private used = new Set<string>();
  constructor(private rng: Rng) {}

  private syllable(): string {
    const r = this.rng;
    return r.pick(ONSETS) + r.pick(VOWELS) + r.pick(CODAS);
  }

  /** One fresh invented word (capitalised), never produced before by this generator. */
  word(minSyl = 2, maxSyl = 3): string {
    for (let attempt = 0; attempt < 10000; attempt++) {
      // Mostly two syllables: short names read like names; three now and then for variety and room.
      const n = minSyl === maxSyl ? minSyl : this.rng.bool(0.8) ? minSyl : this.rng.int(minSyl + 1, maxSyl);
      let w = '';
      for (let i = 0; i < n; i++) w += this.syllable();
      if (w.length < 4 || w.length > 10) continue;
      if (!RARE.test(w)) continue;
      // Pronounceable: no triple letters, no clusters of three consonants (th counts as one).
      if (/(.)\1\1/.test(w) || /[^aeiouy]{3,}/.test(w.replace(/th|qu/g, 'c'))) continue;
      if (this.used.has(w)) continue;
      this.used.add(w);
      return capital(w);
    }
    throw new Error('name generator exhausted (world too large for the syllable set)');
  }

  /** Reserve a word made elsewhere (e.g. a sibling's stem) so it is never produced again. */
  reserve(w: string): void {
    this.used.add(w.toLowerCase());
  }
}

export const COMPANY_SUFFIXES = ['Industries', 'Works', 'Holdings', 'Dynamics', 'Foundry', 'Systems', 'Collective', 'Instruments', 'Mills', 'Group'];
export const INSTITUTE_FORMS = ['{} Institute', '{} Research Institute', 'Institute {}', '{} Academy of Sciences', '{} Laboratory'];
export const CITY_FORMS_SIBLING = ['{} Heights', 'New {}', '{} Harbour', 'Upper {}'];

/** URL/file-safe slug: lower case, ascii letters/digits, hyphens. */
export function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
