/**
 * Fragment-level relation edges as the engine expands along them: the edge list
 * kept as given (validated) and an adjacency map per fragment, strongest edge
 * first. O(E log E) to build; expansion reads a fragment's list in O(its degree).
 */

export interface RelationEdge {
  from: string;
  to: string;
  type: string;
  weight: number;
}

export interface Adjacent {
  to: string;
  type: string;
  weight: number;
}

/** Valid edges (self-loops and malformed ones dropped; missing weight 0, missing type 'related') and their adjacency. */
export function buildAdjacency(edges: readonly RelationEdge[], bidirectional: boolean): { list: RelationEdge[]; adjacency: Map<string, Adjacent[]> } {
  const list: RelationEdge[] = [];
  const adjacency = new Map<string, Adjacent[]>();
  const push = (from: string, a: Adjacent) => {
    const l = adjacency.get(from);
    if (l) l.push(a);
    else adjacency.set(from, [a]);
  };
  for (const e of edges) {
    if (!e || typeof e.from !== 'string' || typeof e.to !== 'string' || e.from === e.to) continue;
    const weight = Number.isFinite(e.weight) ? e.weight : 0;
    const type = typeof e.type === 'string' && e.type ? e.type : 'related';
    list.push({ from: e.from, to: e.to, type, weight });
    push(e.from, { to: e.to, type, weight });
    if (bidirectional) push(e.to, { to: e.from, type, weight });
  }
  // Strongest first, ties by id: expansion order is deterministic.
  for (const l of adjacency.values()) l.sort((a, b) => b.weight - a.weight || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  return { list, adjacency };
}
