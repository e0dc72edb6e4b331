/**
 * Surface forms of entity names: one normalised key per name so that "Lothair Ii",
 * "Lothair II" and "lothair ii's" meet, and the variants a passage title also goes
 * by (the title without its parenthetical, without a leading article, without
 * the part after a comma, initials written together or apart).
 */

/** A word of a text with its position and whether it was written capitalised. */
export interface WordToken {
  /** Normalised form (lower case, no diacritics, no possessive, no inner dots). */
  norm: string;
  start: number;
  end: number;
  capitalised: boolean;
}

const WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*\.?/gu;

const ASCII = /^[ -~]*$/;

/** Lower case, diacritics removed, curly quotes straightened. */
export function fold(s: string): string {
  // Plain ASCII has no diacritics or curly quotes: lower case is all (most words; the graph build folds millions).
  if (ASCII.test(s)) return s.toLowerCase();
  return s
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[’‘]/g, "'");
}

function normWord(raw: string): string {
  let w = fold(raw).replace(/\.$/, '');
  w = w.replace(/'s$/, '').replace(/[.']/g, '');
  return w.replace(/-/g, ' ');
}

/** Words of a text with offsets (hyphenated words become several normalised words at one position). */
export function wordTokens(text: string): WordToken[] {
  const out: WordToken[] = [];
  for (const m of text.matchAll(WORD)) {
    const raw = m[0];
    const capitalised = /^[\p{Lu}\p{N}]/u.test(raw);
    for (const part of normWord(raw).split(' ')) {
      if (part) out.push({ norm: part, start: m.index!, end: m.index! + raw.length, capitalised });
    }
  }
  return out;
}

const ARTICLE = /^(the|a|an) /;

/** The normalised key of a name: its words joined by single spaces, without a leading article. */
export function nameKey(name: string): string {
  return wordTokens(name)
    .map((t) => t.norm)
    .join(' ')
    .replace(ARTICLE, '');
}

/**
 * Surface variants of a passage title (aliases): "Lilu (mythology)" -> "Lilu";
 * "John Ernest, Duke of Saxe-Eisenach" -> "John Ernest"; "The Beatles" -> "Beatles";
 * "J. R. R. Tolkien" -> "JRR Tolkien". Returns keys, the full key first.
 */
export function titleVariants(title: string): string[] {
  const keys = new Set<string>();
  const add = (s: string) => {
    const k = nameKey(s);
    if (k) keys.add(k);
  };
  add(title);
  const noParen = title.replace(/\s*\([^)]*\)\s*/g, ' ').trim();
  if (noParen !== title) add(noParen);
  // "X, Duke of Y" -> "X" only when X has two words or more: "Frederick, Count of Verdun" must not own every "Frederick".
  const comma = noParen.indexOf(',');
  if (comma > 0 && nameKey(noParen.slice(0, comma)).includes(' ')) add(noParen.slice(0, comma));
  // Initials written together: "J. R. R. Tolkien" -> "jrr tolkien".
  const words = nameKey(noParen).split(' ');
  let i = 0;
  const joined: string[] = [];
  while (i < words.length) {
    let j = i;
    while (j < words.length && words[j].length === 1) j++;
    if (j - i >= 2) {
      joined.push(words.slice(i, j).join(''));
      i = j;
    } else joined.push(words[i++]);
  }
  if (joined.length !== words.length) keys.add(joined.join(' '));
  return [...keys];
}
