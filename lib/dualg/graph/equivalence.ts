/**
 * Equivalence edges (entity resolution, T_eq): pairs of entities whose name
 * embeddings have cosine > tau (0.8 by default). Offline the embedding is a
 * character-trigram profile of the name: word vectors (GloVe) leave rare names
 * out of vocabulary (environment.md), while trigrams tell "St. Maurice's Abbey"
 * and "Saint Maurice Abbey" apart from "Maurice Abbey" at a useful scale. The
 * paper's way is a text encoder: graph setting `equivalence = "stage"` embeds the
 * names through the `embedding` stage (an endpoint behind /v1/embeddings; the
 * trigram profile is the labelled offline stand-in, recorded in the graph's settings). Candidate pairs share one of their two rarest
 * words (blocking), so the cost stays near-linear in the number of entities.
 */
import { cosine } from '../../util/vectors';

export type NameEmbedder = (names: string[]) => Promise<Float32Array[]> | Float32Array[];

const MAX_BLOCK = 64;

function trigramProfile(key: string): Map<string, number> {
  const s = ` ${key} `;
  const m = new Map<string, number>();
  for (let i = 0; i + 3 <= s.length; i++) {
    const g = s.slice(i, i + 3);
    m.set(g, (m.get(g) ?? 0) + 1);
  }
  return m;
}

function profileCosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [g, x] of a) {
    na += x * x;
    const y = b.get(g);
    if (y) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/** Candidate pairs: entities sharing one of their two rarest words (blocks larger than MAX_BLOCK are skipped as uninformative). */
export function candidatePairs(keys: string[]): [number, number][] {
  const df = new Map<string, number>();
  const words = keys.map((k) => [...new Set(k.split(' ').filter((w) => w.length > 1))]);
  for (const ws of words) for (const w of ws) df.set(w, (df.get(w) ?? 0) + 1);
  const blocks = new Map<string, number[]>();
  words.forEach((ws, i) => {
    // The two rarest words: a variant spelling of one word ("Maurices") still shares the other.
    for (const rare of [...ws].sort((a, b) => df.get(a)! - df.get(b)! || (a < b ? -1 : 1)).slice(0, 2)) {
      const b = blocks.get(rare);
      if (b) b.push(i);
      else blocks.set(rare, [i]);
    }
  });
  const seen = new Set<number>();
  const pairs: [number, number][] = [];
  for (const ids of blocks.values()) {
    if (ids.length < 2 || ids.length > MAX_BLOCK) continue;
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const key = ids[i] * keys.length + ids[j];
        if (seen.has(key)) continue;
        seen.add(key);
        pairs.push([ids[i], ids[j]]);
      }
    }
  }
  return pairs;
}

/** Pairs of entity ids with cosine > tau, with the cosine. */
export async function equivalencePairs(keys: string[], tau: number, embed?: NameEmbedder): Promise<{ a: number; b: number; cosine: number }[]> {
  const pairs = candidatePairs(keys);
  const out: { a: number; b: number; cosine: number }[] = [];
  if (embed) {
    // Only the names of candidate pairs are embedded (a model call per name would be most of the build).
    const ids = [...new Set(pairs.flat())].sort((x, y) => x - y);
    const at = new Map(ids.map((id, i) => [id, i]));
    const vecs = ids.length ? await embed(ids.map((i) => keys[i])) : [];
    for (const [a, b] of pairs) {
      const c = cosine(vecs[at.get(a)!], vecs[at.get(b)!]);
      if (c > tau) out.push({ a, b, cosine: c });
    }
    return out;
  }
  const profiles = new Map<number, Map<string, number>>();
  const prof = (i: number) => profiles.get(i) ?? profiles.set(i, trigramProfile(keys[i])).get(i)!;
  for (const [a, b] of pairs) {
    const c = profileCosine(prof(a), prof(b));
    if (c > tau) out.push({ a, b, cosine: c });
  }
  return out;
}

/** Trigram cosine of two names (exported for the micro-to-macro alignment and query gating). */
export function nameSimilarity(a: string, b: string): number {
  return profileCosine(trigramProfile(a), trigramProfile(b));
}
