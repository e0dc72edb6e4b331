/**
 * Fragment-level relation edges as the engine expands along them: the edge list
 * kept as given (validated) and, per fragment, its edges strongest first, held
 * compactly (compressed rows of edge numbers in two Int32Arrays, not an object
 * per edge end: at 200K fragments and ~400K edges, objects cost ~240 bytes per
 * edge, the rows ~10). O(E log E) to build; expansion reads a fragment's edges
 * in O(its degree).
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

/**
 * Each fragment's edges, strongest first (ties: lower id first): row r holds
 * entries[offsets[r] .. offsets[r+1]); an entry k >= 0 is list[k] read from its
 * `from` end, ~k (negative) is list[k] read from its `to` end.
 */
export interface AdjacencyIndex {
  readonly rowOf: Map<string, number>;
  readonly offsets: Int32Array;
  readonly entries: Int32Array;
  readonly list: readonly RelationEdge[];
}

export const EMPTY_ADJACENCY: AdjacencyIndex = { rowOf: new Map(), offsets: new Int32Array(1), entries: new Int32Array(0), list: [] };

/** The edges of fragment `id`, strongest first (a new small array; [] when it has none). O(degree). */
export function adjacentOf(a: AdjacencyIndex, id: string): Adjacent[] {
  const r = a.rowOf.get(id);
  if (r === undefined) return [];
  const out: Adjacent[] = [];
  for (let j = a.offsets[r]; j < a.offsets[r + 1]; j++) out.push(entryAt(a.list, a.entries[j]));
  return out;
}

function entryAt(list: readonly RelationEdge[], k: number): Adjacent {
  const e = list[k >= 0 ? k : ~k];
  return { to: k >= 0 ? e.to : e.from, type: e.type, weight: e.weight };
}

/** Valid edges (self-loops and malformed ones dropped; missing weight 0, missing type 'related') and their adjacency. */
export function buildAdjacency(edges: readonly RelationEdge[], bidirectional: boolean): { list: RelationEdge[]; adjacency: AdjacencyIndex } {
  const list: RelationEdge[] = [];
  for (const e of edges) {
    if (!e || typeof e.from !== 'string' || typeof e.to !== 'string' || e.from === e.to) continue;
    const weight = Number.isFinite(e.weight) ? e.weight : 0;
    const type = typeof e.type === 'string' && e.type ? e.type : 'related';
    list.push({ from: e.from, to: e.to, type, weight });
  }
  // Rows in first-seen order; entries filled in edge order (from end, then to end), as the lists were pushed before.
  const rowOf = new Map<string, number>();
  const row = (id: string) => {
    let r = rowOf.get(id);
    if (r === undefined) rowOf.set(id, (r = rowOf.size));
    return r;
  };
  const deg: number[] = [];
  const count = (r: number) => (deg[r] = (deg[r] ?? 0) + 1);
  for (const e of list) {
    count(row(e.from));
    if (bidirectional) count(row(e.to));
  }
  const offsets = new Int32Array(rowOf.size + 1);
  for (let r = 0; r < rowOf.size; r++) offsets[r + 1] = offsets[r] + deg[r];
  const fill = offsets.slice(0, rowOf.size);
  const entries = new Int32Array(offsets[rowOf.size]);
  list.forEach((e, k) => {
    entries[fill[rowOf.get(e.from)!]++] = k;
    if (bidirectional) entries[fill[rowOf.get(e.to)!]++] = ~k;
  });
  sortRows(list, offsets, entries);
  return { list, adjacency: { rowOf, offsets, entries, list } };
}

/** Strongest first, ties by id (a stable sort: equal edges keep their order): expansion order is deterministic. */
function sortRows(list: readonly RelationEdge[], offsets: Int32Array, entries: Int32Array): void {
  for (let r = 0; r + 1 < offsets.length; r++) {
    const from = offsets[r];
    const to = offsets[r + 1];
    if (to - from < 2) continue;
    const seg = Array.from(entries.subarray(from, to), (k) => ({ k, a: entryAt(list, k) }));
    seg.sort((x, y) => y.a.weight - x.a.weight || (x.a.to < y.a.to ? -1 : x.a.to > y.a.to ? 1 : 0));
    seg.forEach((s, i) => (entries[from + i] = s.k));
  }
}
