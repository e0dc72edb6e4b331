/**
 * The GnnGraph view of a DualGraph (lib/dualg/types.ts): entities are nodes;
 * relation ids are the built-in kinds plus the most frequent extracted relation
 * phrases (the rest share 'other relation'), and every relation r has an inverse
 * r + R as its own id, with the reversed edge listed; entity -> document
 * incidence as COO. Edge e and edge e + m (m = number of triples) both come from triple e,
 * which lets query-time edge features (lib/dualg/query/prior.ts) read the triple's words.
 */
import type { GnnGraph } from '../types';
import { BUILTIN_RELATIONS, REL_EQUIVALENT, type DualGraph } from './types';

export const MAX_GNN_RELATIONS = 256;

/** Relation ids of the GNN vocabulary: old id -> compact id. */
function compactRelations(g: DualGraph): { map: Int32Array; names: string[] } {
  const counts = new Map<number, number>();
  for (const t of g.triples) counts.set(t.rel, (counts.get(t.rel) ?? 0) + 1);
  const phrases = [...counts.entries()].filter(([r]) => r >= BUILTIN_RELATIONS.length).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const keep = phrases.slice(0, MAX_GNN_RELATIONS - BUILTIN_RELATIONS.length - 1).map(([r]) => r);
  const names = [...BUILTIN_RELATIONS, ...keep.map((r) => g.relations[r]), 'other relation'];
  const map = new Int32Array(g.relations.length).fill(names.length - 1);
  BUILTIN_RELATIONS.forEach((_, i) => (map[i] = i));
  keep.forEach((r, i) => (map[r] = BUILTIN_RELATIONS.length + i));
  return { map, names };
}

export function toGnnGraph(g: DualGraph): GnnGraph {
  const { map, names } = compactRelations(g);
  const R = names.length;
  const m = g.triples.length;
  const src = new Int32Array(2 * m);
  const dst = new Int32Array(2 * m);
  const rel = new Int32Array(2 * m);
  const weight = new Float32Array(2 * m);
  g.triples.forEach((t, i) => {
    const r = map[t.rel];
    const w = t.rel === REL_EQUIVALENT ? t.weight : 1;
    src[i] = t.head;
    dst[i] = t.tail;
    rel[i] = r;
    weight[i] = w;
    src[m + i] = t.tail;
    dst[m + i] = t.head;
    rel[m + i] = r + R;
    weight[m + i] = w;
  });
  const node: number[] = [];
  const doc: number[] = [];
  const w: number[] = [];
  g.entityDocs.forEach((docs, e) => {
    for (const x of docs) {
      node.push(e);
      doc.push(x.doc);
      w.push(x.weight);
    }
  });
  return {
    numNodes: g.entityNames.length,
    numRelations: 2 * R,
    src,
    dst,
    rel,
    weight,
    nodeDoc: { node: Int32Array.from(node), doc: Int32Array.from(doc), weight: Float32Array.from(w) },
    numDocs: g.docs.length,
    docIds: g.docs.map((d) => d.id),
    nodeText: g.entityNames.slice(),
    relationText: [...names, ...names.map((n) => `inverse of ${n}`)],
    docTitleNode: Int32Array.from(g.docs, (d) => d.titleEntity),
  };
}
