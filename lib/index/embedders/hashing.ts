/**
 * A tiny deterministic embedder for unit tests: signed feature hashing of the
 * index's tokens, (1 + ln tf) weights, unit length. Texts sharing words get
 * positive cosine; no files, no fitting, microseconds per text.
 */
import type { Embedder } from '../types';
import { Tokenizer, type TokenizerOptions } from '../tokenize';
import { fnv1a } from './feature-hash';
import { hashedVector, type HashScheme } from '../../util/hashed-vector';
import { KfError } from '../../util/errors';

export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private readonly tok: Tokenizer;
  private readonly scheme: HashScheme;

  constructor(dim = 64, tokenizer?: TokenizerOptions) {
    if (!Number.isInteger(dim) || dim < 2) throw new KfError('bad_option', `hashing embedder dimension must be an integer >= 2 (got ${dim})`, 'use e.g. 64');
    this.dim = dim;
    this.id = `hash-${dim}`;
    this.tok = new Tokenizer(tokenizer);
    // Seeded FNV-1a with the Murmur finaliser, sign from the top bit, sublinear 1 + ln tf.
    this.scheme = { dim, hash: (t) => fnv1a(t, 17), sign: (h) => (h & 0x80000000 ? -1 : 1), weight: (c) => 1 + Math.log(c) };
  }

  embedOne(text: string): Float32Array {
    return hashedVector(this.tok.tokenize(text), this.scheme);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}
