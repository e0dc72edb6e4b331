/**
 * The query's active subgraph: the edges whose messages can reach a node within
 * L layers when only the seeds start non-zero (NBFNet boundary condition). Edges
 * leaving a node first reached at hop h < L are active; computation, memory and
 * path decoding are restricted to them (paper: O(L * |E_active| * d^2)).
 */
import type { GnnGraph } from '../types';

/** Out-edges by source node (CSR), built once per graph. */
export interface OutAdjacency {
  offsets: Int32Array;
  /** Edge ids sorted by source. */
  edges: Int32Array;
}

const adjacencyCache = new WeakMap<GnnGraph, OutAdjacency>();

export function outAdjacency(graph: GnnGraph): OutAdjacency {
  const hit = adjacencyCache.get(graph);
  if (hit) return hit;
  const offsets = new Int32Array(graph.numNodes + 1);
  for (let e = 0; e < graph.src.length; e++) offsets[graph.src[e] + 1]++;
  for (let v = 0; v < graph.numNodes; v++) offsets[v + 1] += offsets[v];
  const fill = offsets.slice(0, graph.numNodes);
  const edges = new Int32Array(graph.src.length);
  for (let e = 0; e < graph.src.length; e++) edges[fill[graph.src[e]]++] = e;
  const adj = { offsets, edges };
  adjacencyCache.set(graph, adj);
  return adj;
}

export interface ActiveSubgraph {
  /** Global node id of each local node; seeds first. */
  nodes: Int32Array;
  /** Hop at which each local node was first reached (0 for seeds). */
  hop: Int32Array;
  /** Local endpoints, relation id, weight and global edge id of each active edge. */
  src: Int32Array;
  dst: Int32Array;
  rel: Int32Array;
  weight: Float32Array;
  edgeIds: Int32Array;
  /** Seed weight per local node (0 for non-seeds). */
  seedWeight: Float32Array;
  /** True when maxEdges cut the expansion. */
  truncated: boolean;
}

export interface ActiveOptions {
  layers: number;
  maxEdges: number;
  /** Global edge ids to leave out (KG-completion training hides the edge being predicted). */
  exclude?: ReadonlySet<number>;
}

/** Breadth-first expansion from the seeds; within a hop, low out-degree nodes first so a hub cannot crowd out specific links. */
export function activeSubgraph(graph: GnnGraph, seeds: Int32Array, seedWeights: Float32Array, opts: ActiveOptions): ActiveSubgraph {
  const adj = outAdjacency(graph);
  const local = new Map<number, number>();
  const nodes: number[] = [];
  const hops: number[] = [];
  const seedW: number[] = [];
  for (let i = 0; i < seeds.length; i++) {
    const s = seeds[i];
    if (s < 0 || s >= graph.numNodes) continue;
    const w = seedWeights[i] ?? 1;
    const at = local.get(s);
    if (at !== undefined) {
      seedW[at] += w;
      continue;
    }
    local.set(s, nodes.length);
    nodes.push(s);
    hops.push(0);
    seedW.push(w);
  }
  const eSrc: number[] = [],
    eDst: number[] = [],
    eIds: number[] = [];
  let frontier = nodes.slice();
  let truncated = false;
  for (let hop = 1; hop <= opts.layers && frontier.length && !truncated; hop++) {
    frontier.sort((a, b) => adj.offsets[a + 1] - adj.offsets[a] - (adj.offsets[b + 1] - adj.offsets[b]) || a - b);
    const next: number[] = [];
    for (const u of frontier) {
      const deg = adj.offsets[u + 1] - adj.offsets[u];
      if (eIds.length + deg > opts.maxEdges) {
        truncated = true;
        continue;
      }
      for (let k = adj.offsets[u]; k < adj.offsets[u + 1]; k++) {
        const e = adj.edges[k];
        if (opts.exclude?.has(e)) continue;
        const v = graph.dst[e];
        let lv = local.get(v);
        if (lv === undefined) {
          lv = nodes.length;
          local.set(v, lv);
          nodes.push(v);
          hops.push(hop);
          seedW.push(0);
          next.push(v);
        }
        eSrc.push(local.get(u)!);
        eDst.push(lv);
        eIds.push(e);
      }
    }
    frontier = next;
  }
  const edgeIds = Int32Array.from(eIds);
  return {
    nodes: Int32Array.from(nodes),
    hop: Int32Array.from(hops),
    src: Int32Array.from(eSrc),
    dst: Int32Array.from(eDst),
    rel: edgeIds.map((e) => graph.rel[e]),
    weight: Float32Array.from(eIds, (e) => graph.weight?.[e] ?? 1),
    edgeIds,
    seedWeight: Float32Array.from(seedW),
    truncated,
  };
}
