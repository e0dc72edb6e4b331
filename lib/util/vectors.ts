/** Vector arithmetic on Float32Array embeddings (one place, used by retrieval, graphs and metrics). */

/** Dot product (= cosine for unit vectors). */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/** Cosine similarity of any two vectors; 0 when either is all zeros (an out-of-vocabulary text). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? d / Math.sqrt(na * nb) : 0;
}

/** Normalise in place to unit length; returns the original norm (0 leaves the vector as is). The one implementation (embedders, the embeddings endpoint, DualG's query vectors). */
export function normalize(v: Float32Array): number {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] /= n;
  return n;
}
