/**
 * Offline dense encoder (a): SIF-weighted mean of GloVe word vectors
 * (Arora et al. 2017, "A simple but tough-to-beat baseline for sentence
 * embeddings"): v(s) = mean over words w of a / (a + p(w)) * v_w, optionally
 * minus its projection on the corpus' common component, unit length.
 *
 * p(w) comes from the GloVe file's frequency order by Zipf's law,
 * p(rank r) = 1 / ((r + 1) * H_V), because the package ships ranks, not counts.
 *
 * Known weakness (measured on 2Wiki): rare entity names are out of vocabulary
 * (zero vectors), so on entity-centric questions it is a weak retriever on its
 * own; see corpus-fitted.ts for the encoder that fixes this.
 */
import type { Embedder } from '../types';
import { Tokenizer } from '../tokenize';
import { loadGlove, type GloveTable } from './glove-table';
import { normalize } from './feature-hash';

export interface GloveSifOptions {
  /** SIF smoothing constant a (default 1e-3). */
  a?: number;
  /** Common component (unit vector) to remove, fitted on a corpus (see fitCommonComponent). */
  commonComponent?: Float32Array;
}

/** Words as GloVe knows them: folded, lowercased, stopwords kept (SIF down-weights them), no stemming. */
const gloveTokenizer = new Tokenizer({ stopwords: false, stem: false });

export class SifWeights {
  private readonly w: Float32Array;
  constructor(table: GloveTable, a: number) {
    // Harmonic number H_V normalises Zipf's law into probabilities.
    let H = 0;
    for (let r = 1; r <= table.size; r++) H += 1 / r;
    this.w = new Float32Array(table.size);
    for (let row = 0; row < table.size; row++) {
      const p = 1 / ((table.rank[row] + 1) * H);
      this.w[row] = a / (a + p);
    }
  }
  weight(row: number): number {
    return this.w[row];
  }
}

const weightCache = new WeakMap<GloveTable, Map<number, SifWeights>>();
export function sifWeights(table: GloveTable, a: number): SifWeights {
  let m = weightCache.get(table);
  if (!m) weightCache.set(table, (m = new Map()));
  let w = m.get(a);
  if (!w) m.set(a, (w = new SifWeights(table, a)));
  return w;
}

/** SIF mean of the known words of `text` (not normalised, no component removal); zero when no word is known. */
export function sifVector(text: string, table: GloveTable, weights: SifWeights, out?: Float32Array): Float32Array {
  const D = table.dim;
  const v = out ?? new Float32Array(D);
  v.fill(0);
  const words = gloveTokenizer.words(text);
  let n = 0;
  for (const w of words) {
    const row = table.index.get(w);
    if (row === undefined) continue;
    const wt = weights.weight(row);
    const off = row * D;
    for (let d = 0; d < D; d++) v[d] += wt * table.vectors[off + d];
    n++;
  }
  if (n > 0) for (let d = 0; d < D; d++) v[d] /= n;
  return v;
}

/** Remove the projection on unit vector u (in place). */
export function removeComponent(v: Float32Array, u: Float32Array): void {
  let dot = 0;
  for (let d = 0; d < v.length; d++) dot += v[d] * u[d];
  for (let d = 0; d < v.length; d++) v[d] -= dot * u[d];
}

/**
 * First singular vector of the stacked (uncentred) sentence vectors, by power
 * iteration on X^T X: the "common component" SIF removes. Deterministic start.
 */
export function firstSingularVector(rows: Float32Array[], dim: number, iters = 30): Float32Array {
  let u = new Float32Array(dim).fill(1 / Math.sqrt(dim));
  for (let it = 0; it < iters; it++) {
    const next = new Float32Array(dim);
    for (const r of rows) {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += r[d] * u[d];
      for (let d = 0; d < dim; d++) next[d] += dot * r[d];
    }
    if (normalize(next) === 0) return next;
    u = next;
  }
  return u;
}

export class GloveSifEmbedder implements Embedder {
  readonly id: string;
  readonly dim = 100;
  readonly a: number;
  readonly commonComponent?: Float32Array;

  constructor(opts: GloveSifOptions = {}) {
    this.a = opts.a ?? 1e-3;
    this.commonComponent = opts.commonComponent;
    this.id = `glove-sif-100d${this.a !== 1e-3 ? `-a${this.a}` : ''}${this.commonComponent ? '-pc' : ''}`;
  }

  /** Fit the common component on a corpus (a sample of up to 20K texts is plenty) and return a new embedder. */
  static async fit(texts: string[], opts: Omit<GloveSifOptions, 'commonComponent'> = {}): Promise<GloveSifEmbedder> {
    const table = await loadGlove();
    const w = sifWeights(table, opts.a ?? 1e-3);
    const step = Math.max(1, Math.floor(texts.length / 20000));
    const rows: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += step) rows.push(sifVector(texts[i], table, w));
    return new GloveSifEmbedder({ ...opts, commonComponent: firstSingularVector(rows, table.dim) });
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const table = await loadGlove();
    const w = sifWeights(table, this.a);
    return texts.map((t) => {
      const v = sifVector(t, table, w);
      if (this.commonComponent) removeComponent(v, this.commonComponent);
      normalize(v);
      return v;
    });
  }
}
