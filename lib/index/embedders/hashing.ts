/**
 * A tiny deterministic embedder for unit tests: signed feature hashing of the
 * index's tokens, (1 + ln tf) weights, unit length. Texts sharing words get
 * positive cosine; no files, no fitting, microseconds per text.
 */
import type { Embedder } from '../types';
import { Tokenizer, type TokenizerOptions } from '../tokenize';
import { fnv1a, normalize } from './feature-hash';
import { KfError } from '../../util/errors';

export class HashingEmbedder implements Embedder {
  readonly id: string;
  readonly dim: number;
  private readonly tok: Tokenizer;

  constructor(dim = 64, tokenizer?: TokenizerOptions) {
    if (!Number.isInteger(dim) || dim < 2) throw new KfError('bad_option', `hashing embedder dimension must be an integer >= 2 (got ${dim})`, 'use e.g. 64');
    this.dim = dim;
    this.id = `hash-${dim}`;
    this.tok = new Tokenizer(tokenizer);
  }

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dim);
    const tf = new Map<string, number>();
    for (const t of this.tok.tokenize(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, c] of tf) {
      const h = fnv1a(t, 17);
      v[h % this.dim] += (h & 0x80000000 ? -1 : 1) * (1 + Math.log(c));
    }
    normalize(v);
    return v;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}
