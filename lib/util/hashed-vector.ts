/**
 * The hashing trick, the one implementation (issue 16): tokens -> a fixed-size vector where
 * each distinct token adds sign(h) * weight(count) to bucket h mod dim, then unit length.
 * Its two users keep their own tokenizer, hash, sign bit and weighting (the hashing embedder:
 * seeded FNV-1a + Murmur finaliser, 1 + ln tf; DualG's query vector: plain FNV-1a, raw tf),
 * because checkpoints and indexes built with them must keep reading the same vectors.
 */
import { normalize } from './vectors';

export interface HashScheme {
  dim: number;
  /** Unsigned 32-bit hash of a token; its bucket is hash % dim. */
  hash(token: string): number;
  /** +1 or -1 from a bit of the hash, so that colliding tokens cancel on average instead of adding up. */
  sign(hash: number): number;
  /** Weight of a token occurring `count` times in the text. */
  weight(count: number): number;
}

/** The unit-length hashed vector of a token sequence (all zeros when there is no token). */
export function hashedVector(tokens: Iterable<string>, scheme: HashScheme): Float32Array {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  const v = new Float32Array(scheme.dim);
  // Map order = first occurrence: the float sums happen in the same order on every run.
  for (const [t, c] of counts) {
    const h = scheme.hash(t);
    v[h % scheme.dim] += scheme.sign(h) * scheme.weight(c);
  }
  normalize(v);
  return v;
}
