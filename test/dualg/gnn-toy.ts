/**
 * A synthetic graph where the right answer is known: in each of `groups` groups a
 * seed s has chains s -A-> a1 -A-> a2, s -B-> b1 -B-> b2 and a distractor s -C-> c.
 * Query "A" (query vector = unit vector 0) should find a2, query "B" (vector 1) b2:
 * the GNN must learn to follow the relation the query names. Every node is its own
 * document. Inverse relations are ids 3..5, as in the GnnGraph contract.
 */
import type { GnnGraph, GnnQuery } from '../../lib/dualg/types';
import type { TrainExample } from '../../lib/dualg/train/examples';

export const TOY_DIM = 8;
const NAMES = ['s', 'a1', 'a2', 'b1', 'b2', 'c'];

export function toyGraph(groups = 6): GnnGraph {
  const src: number[] = [],
    dst: number[] = [],
    rel: number[] = [];
  const add = (u: number, r: number, v: number) => {
    src.push(u, v);
    dst.push(v, u);
    rel.push(r, r + 3);
  };
  for (let g = 0; g < groups; g++) {
    const o = g * 6;
    add(o, 0, o + 1);
    add(o + 1, 0, o + 2);
    add(o, 1, o + 3);
    add(o + 3, 1, o + 4);
    add(o, 2, o + 5);
    if (g > 0) add(o + 5, 2, o - 6 + 5); // distractors connect groups
  }
  const n = groups * 6;
  const ids = Int32Array.from({ length: n }, (_, i) => i);
  return {
    numNodes: n,
    numRelations: 6,
    src: Int32Array.from(src),
    dst: Int32Array.from(dst),
    rel: Int32Array.from(rel),
    nodeDoc: { node: ids, doc: ids.slice(), weight: new Float32Array(n).fill(1) },
    numDocs: n,
    docIds: Array.from({ length: n }, (_, i) => `doc-${Math.floor(i / 6)}-${NAMES[i % 6]}`),
    nodeText: Array.from({ length: n }, (_, i) => `${NAMES[i % 6]}${Math.floor(i / 6)}`),
    relationText: ['A', 'B', 'C', 'inverse of A', 'inverse of B', 'inverse of C'],
  };
}

export function toyQuery(group: number, which: 'A' | 'B'): GnnQuery {
  const q = new Float32Array(TOY_DIM);
  q[which === 'A' ? 0 : 1] = 1;
  return { seeds: Int32Array.of(group * 6), seedWeights: Float32Array.of(1), queryVector: q };
}

export function toyExamples(groups = 6): TrainExample[] {
  const out: TrainExample[] = [];
  for (let g = 0; g < groups; g++) {
    for (const w of ['A', 'B'] as const) out.push({ id: `${w}${g}`, query: toyQuery(g, w), targetDocs: Int32Array.of(g * 6 + (w === 'A' ? 2 : 4)) });
  }
  return out;
}
