/**
 * Mention-to-entity linking through the `embedding` stage (retriever setting `linking = "stage"`): the paper
 * links the question's entity mentions to graph entities with a dense retriever. Here the mentions that no
 * exact graph name matched are embedded by the configured endpoint together with the graph's entity names,
 * and each links to its nearest names by cosine >= DENSE_LINK_MIN.
 *
 * DENSE_LINK_MIN = 0.8 is fixed a priori, not tuned: it is the paper's equivalence threshold tau, the
 * cosine at which the paper treats two names as one entity, so a mention links to a name exactly when the
 * equivalence step would have merged the two.
 *
 * The entity-name vectors are computed once per graph and embedding model, on the first query that needs
 * them, and kept for the life of the process (`nameVectors`); each query then costs one embedding call for
 * its unmatched mentions and one pass over the name matrix. The offline stand-in (`linking = "trigrams"`,
 * the default) is the character-trigram nearest-name index (graph/align.ts), labelled as such.
 */
import type { Embedder } from '../../model-api/types';
import { nameKey } from '../graph/names';
import { skipKey } from '../graph/extract-offline';
import type { GraphView } from './graph-view';

export const DENSE_LINK_MIN = 0.8;
/** Names per embedding request while the name matrix is built (the endpoint's own limits still apply). */
const NAME_BATCH = 256;

export type LinkingName = 'trigrams' | 'stage';

export interface Neighbour {
  entity: number;
  similarity: number;
}

/** How unmatched mentions find their entities (the dense linker; without one, link.ts's trigram index): `label` goes into the system identity. */
export interface MentionLinker {
  readonly label: string;
  nearestOf(view: GraphView, mentions: string[], k: number): Promise<Map<string, Neighbour[]>>;
}

export const TRIGRAM_LINKING_LABEL = 'trigram name index (offline stand-in for the dense linker)';

/** Unit-length rows of one matrix (n x dim), so a cosine is a dot product. */
interface NameMatrix {
  dim: number;
  rows: Float32Array;
}

const matrices = new Map<string, Promise<NameMatrix>>();

function unitRows(vecs: Float32Array[], dim: number): Float32Array {
  const rows = new Float32Array(vecs.length * dim);
  vecs.forEach((v, i) => {
    let n = 0;
    for (let j = 0; j < dim; j++) n += v[j] * v[j];
    const s = n > 0 ? 1 / Math.sqrt(n) : 0;
    for (let j = 0; j < dim; j++) rows[i * dim + j] = v[j] * s;
  });
  return rows;
}

async function embedNames(names: string[], embedder: Embedder, log?: (line: string) => void): Promise<NameMatrix> {
  const vecs: Float32Array[] = [];
  for (let i = 0; i < names.length; i += NAME_BATCH) {
    vecs.push(...(await embedder.embed(names.slice(i, i + NAME_BATCH))));
    if (log && (i / NAME_BATCH) % 20 === 19) log(`dualg linking: embedded ${vecs.length}/${names.length} entity names`);
  }
  const dim = vecs[0]?.length ?? 0;
  return { dim, rows: unitRows(vecs, dim) };
}

/** The graph's entity-name vectors under `embedder`, built on first use and shared by every searcher of the process. */
export function nameVectors(view: GraphView, embedder: Embedder, log?: (line: string) => void): Promise<NameMatrix> {
  const key = `${view.g.meta.source.fingerprint}|${view.g.entityNames.length}|${embedder.id}`;
  let m = matrices.get(key);
  if (!m) {
    m = embedNames(view.g.entityNames, embedder, log);
    // A failed build (endpoint down) is not cached: the next query tries again.
    m.catch(() => matrices.delete(key));
    matrices.set(key, m);
  }
  return m;
}

/** Row `o` of `rows` dotted with `q`, four lanes at a time (about 1.5x a plain loop in V8: the adds no longer chain). */
function dotAt(rows: Float32Array, o: number, q: Float32Array, dim: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let j = 0;
  for (; j + 3 < dim; j += 4) {
    a += rows[o + j] * q[j];
    b += rows[o + j + 1] * q[j + 1];
    c += rows[o + j + 2] * q[j + 2];
    d += rows[o + j + 3] * q[j + 3];
  }
  for (; j < dim; j++) a += rows[o + j] * q[j];
  return a + b + c + d;
}

/** Keeps `out` the best `k` by similarity (ties: lower entity first). */
function keepTop(out: Neighbour[], entity: number, similarity: number, k: number): void {
  if (out.length >= k && similarity <= out[out.length - 1].similarity) return;
  out.push({ entity, similarity });
  out.sort((a, b) => b.similarity - a.similarity || a.entity - b.entity);
  if (out.length > k) out.pop();
}

/**
 * For each query vector, the top `k` rows of `m` by cosine, at or above `min`. One pass over the matrix serves
 * every mention of a query: reading 37K x 384 floats is the whole per-query cost.
 */
export function nearestRows(m: NameMatrix, qs: Float32Array[], k: number, min: number): Neighbour[][] {
  const { dim, rows } = m;
  const n = dim ? rows.length / dim : 0;
  const units = qs.map((q) => unitRows([q], dim));
  const out: Neighbour[][] = qs.map(() => []);
  for (let i = 0, o = 0; i < n; i++, o += dim) {
    for (let x = 0; x < units.length; x++) {
      const s = dotAt(rows, o, units[x], dim);
      if (s >= min) keepTop(out[x], i, s, k);
    }
  }
  return out;
}

/** The mentions linking must resolve by similarity: not an exact graph name, not a skipped word. */
export function unmatchedMentions(view: GraphView, mentions: string[]): string[] {
  return [...new Set(mentions)].filter((e) => {
    const key = nameKey(e);
    return key && !skipKey(key) && !view.g.aliases.has(key);
  });
}

/** The dense linker over the `embedding` stage's vectors (DENSE_LINK_MIN). */
export function denseLinker(embedder: Embedder, log?: (line: string) => void): MentionLinker {
  return {
    label: `embedding stage (${embedder.id}), cosine >= ${DENSE_LINK_MIN}`,
    async nearestOf(view, mentions, k) {
      const todo = unmatchedMentions(view, mentions);
      if (!todo.length) return new Map();
      const [m, qs] = await Promise.all([nameVectors(view, embedder, log), embedder.embed(todo)]);
      const near = nearestRows(m, qs, k, DENSE_LINK_MIN);
      return new Map(todo.map((e, i) => [e, near[i]]));
    },
  };
}
