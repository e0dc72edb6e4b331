/**
 * Relation-word paraphrase for generated training questions (generated-queries.ts, issue 18). Principle: a
 * real question names a relation in its asker's words, seldom in the passage's own ("who made the film",
 * the passage says "directed by"), so a question written from the passage's relation words is one the
 * heuristic's word matching solves by itself and teaches the GNN nothing beyond it. A paraphrased hop swaps
 * each of its relation words for a word of similar meaning that the passage does not contain: a GloVe
 * neighbour, so the GNN's query encoder (hashed + GloVe) can still relate it, while the word match cannot.
 *
 * Rule, fixed a priori (not looked up on any dev figure): a share of hops (PARAPHRASE_SHARE by default) is
 * paraphrased, drawn by the seeded RNG; each relation word of such a hop is replaced by one of its
 * PARAPHRASE_TOP nearest neighbours by cosine, at least PARAPHRASE_MIN_COSINE, among the PARAPHRASE_VOCAB most
 * frequent GloVe words (everyday words), alphabetic, not a stop word, and whose stem is neither the word's nor
 * any passage word's. A word with no such neighbour is kept.
 */
import type { GloveTable } from '../../index/embedders/glove-table';
import type { Rng } from '../../util/rng';
import { stem, STOPWORDS, tokens } from '../../util/text-rules';

/** Half the hops: questions keep some passage wording, as real ones sometimes do. */
export const PARAPHRASE_SHARE = 0.5;
/** Neighbours a replacement is drawn from. */
export const PARAPHRASE_TOP = 3;
/** Cosine floor of a neighbour (GloVe 100-d: above ~0.6 neighbours are near-synonyms or close relatives). */
export const PARAPHRASE_MIN_COSINE = 0.6;
/** Neighbours searched among the most frequent words only (rare neighbours are misspellings and names). */
export const PARAPHRASE_VOCAB = 50_000;

/** The rule in words (checkpoint label and report). */
export function paraphraseLabel(share: number): string {
  return `relation words paraphrased on ${Math.round(share * 100)}% of hops: GloVe top-${PARAPHRASE_TOP} neighbours, cosine >= ${PARAPHRASE_MIN_COSINE}, not in the passage`;
}

/** Rewrites one hop's relation words given its passage's text; the Rng draws whether and how. */
export type Paraphrase = (words: string, passage: string | undefined, rng: Rng) => string;

export interface ParaphraseOptions {
  share?: number;
  top?: number;
  minCosine?: number;
  vocab?: number;
}

/** A paraphraser over a GloVe table (neighbour lists are computed once per word). */
export function relationParaphraser(table: GloveTable, o: ParaphraseOptions = {}): Paraphrase {
  const share = o.share ?? PARAPHRASE_SHARE;
  const neighbours = neighbourFinder(table, o.top ?? PARAPHRASE_TOP, o.minCosine ?? PARAPHRASE_MIN_COSINE, o.vocab ?? PARAPHRASE_VOCAB);
  return (words, passage, rng) => {
    if (!(rng.next() < share)) return words;
    const passageStems = new Set(tokens(passage ?? '').map(stem));
    return words
      .split(/\s+/)
      .map((w) => {
        const options = neighbours(w.toLowerCase()).filter((n) => !passageStems.has(stem(n)));
        return options.length ? rng.pick(options) : w;
      })
      .join(' ');
  };
}

/** Up to `top` neighbours of a word by cosine (>= minCosine) among the `vocab` most frequent rows, memoised. */
function neighbourFinder(table: GloveTable, top: number, minCosine: number, vocab: number): (word: string) => string[] {
  const words: string[] = [];
  const rows: number[] = [];
  for (const [w, row] of table.index) {
    if (table.rank[row] < vocab && /^[a-z]{3,}$/.test(w) && !STOPWORDS.has(w)) {
      words.push(w);
      rows.push(row);
    }
  }
  const norms = rows.map((r) => Math.hypot(...table.vectors.subarray(r * table.dim, (r + 1) * table.dim)));
  const memo = new Map<string, string[]>();
  return (word) => {
    let found = memo.get(word);
    if (found) return found;
    const row = table.index.get(word);
    found = row === undefined ? [] : nearest(table, row, words, rows, norms, top, minCosine, stem(word));
    memo.set(word, found);
    return found;
  };
}

function nearest(table: GloveTable, row: number, words: string[], rows: number[], norms: number[], top: number, minCosine: number, ownStem: string): string[] {
  const d = table.dim;
  const q = table.vectors.subarray(row * d, (row + 1) * d);
  const qn = Math.hypot(...q);
  if (!qn) return [];
  const scored: { w: string; c: number }[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (!norms[i]) continue;
    const off = rows[i] * d;
    let dot = 0;
    for (let k = 0; k < d; k++) dot += q[k] * table.vectors[off + k];
    const c = dot / (qn * norms[i]);
    if (c >= minCosine && stem(words[i]) !== ownStem) scored.push({ w: words[i], c });
  }
  // Ties broken by word so the list does not depend on the table's iteration order.
  scored.sort((a, b) => b.c - a.c || (a.w < b.w ? -1 : 1));
  return scored.slice(0, top).map((s) => s.w);
}
