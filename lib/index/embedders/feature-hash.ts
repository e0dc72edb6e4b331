/**
 * Deterministic string and integer hashing for the hashing-trick encoders
 * (no randomness, no tables: the same feature lands in the same bucket in every
 * process, so vectors are reproducible and nothing but options must be saved).
 */

/** 32-bit FNV-1a of a string (UTF-16 code units), with a seed mixed into the offset basis. */
export function fnv1a(s: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/** Murmur3 finaliser: spreads the bits of an integer (bucket -> projection dimension and sign). */
export function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

// Unit length: the shared implementation (lib/util/vectors.ts).
export { normalize } from '../../util/vectors';
