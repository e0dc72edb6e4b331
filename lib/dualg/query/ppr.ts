/**
 * Personalized PageRank on the same macro graph ('ppr', the HippoRAG-style
 * baseline): restart at the seed entities (weights normalised), walk along
 * edges (undirected, edge weights), damping 0.5 as in HippoRAG, a fixed number
 * of power iterations; a document's score is the sum of its entities' scores
 * times their incidence weight.
 */
import type { GraphView } from './graph-view';
import type { SeedInput } from './heuristic-scorer';

export const PPR_DAMPING = 0.5;
export const PPR_ITERATIONS = 20;

const weightCache = new WeakMap<GraphView, { adjWeight: Float32Array; outWeight: Float32Array }>();

/** Edge weights in adjacency order and weighted out-degrees, once per graph (reading triples per query cost most of the time). */
function weightsOf(view: GraphView): { adjWeight: Float32Array; outWeight: Float32Array } {
  let w = weightCache.get(view);
  if (!w) {
    const n = view.g.entityNames.length;
    const adjWeight = new Float32Array(view.adjNode.length);
    for (let k = 0; k < adjWeight.length; k++) adjWeight[k] = view.g.triples[view.adjTriple[k]].weight;
    const outWeight = new Float32Array(n);
    for (let v = 0; v < n; v++) for (let k = view.adjOffset[v]; k < view.adjOffset[v + 1]; k++) outWeight[v] += adjWeight[k];
    w = { adjWeight, outWeight };
    weightCache.set(view, w);
  }
  return w;
}

export function pprScores(
  view: GraphView,
  seeds: SeedInput[],
  iterations = PPR_ITERATIONS,
  damping = PPR_DAMPING,
): { docScores: Map<number, number>; nodeScores: Float32Array } {
  const n = view.g.entityNames.length;
  const restart = new Float32Array(n);
  const total = seeds.reduce((a, s) => a + s.weight, 0) || 1;
  for (const s of seeds) restart[s.entity] += s.weight / total;
  const { adjWeight, outWeight } = weightsOf(view);
  let p = Float32Array.from(restart);
  let next = new Float32Array(n);
  for (let it = 0; it < iterations; it++) {
    next.fill(0);
    for (let v = 0; v < n; v++) {
      if (!p[v] || !outWeight[v]) continue;
      const share = (damping * p[v]) / outWeight[v];
      for (let k = view.adjOffset[v]; k < view.adjOffset[v + 1]; k++) next[view.adjNode[k]] += share * adjWeight[k];
    }
    for (let v = 0; v < n; v++) next[v] += (1 - damping) * restart[v];
    [p, next] = [next, p];
  }
  const docScores = new Map<number, number>();
  p.forEach((x, e) => {
    if (!x) return;
    for (const d of view.g.entityDocs[e]) docScores.set(d.doc, (docScores.get(d.doc) ?? 0) + x * d.weight);
  });
  return { docScores, nodeScores: p };
}
