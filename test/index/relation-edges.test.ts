/**
 * The compact adjacency (relation-edges.ts: rows of edge numbers) lists every
 * fragment's relations exactly as the object-per-edge-end map did: same
 * entries, strongest first, ties by id, equal edges in their given order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adjacentOf, buildAdjacency, type Adjacent, type RelationEdge } from '../../lib/index/relation-edges';
import { makeRng } from '../../lib/util/rng';

/** The former construction, kept here as the reference. */
function referenceAdjacency(edges: readonly RelationEdge[], bidirectional: boolean): Map<string, Adjacent[]> {
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
    push(e.from, { to: e.to, type, weight });
    if (bidirectional) push(e.to, { to: e.from, type, weight });
  }
  for (const l of adjacency.values()) l.sort((a, b) => b.weight - a.weight || (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  return adjacency;
}

function randomEdges(n: number, seed: string): RelationEdge[] {
  const rng = makeRng(seed);
  const ids = Array.from({ length: 60 }, (_, i) => `d${i % 7}#${i}`);
  const pick = () => ids[rng.int(0, ids.length - 1)];
  const out: RelationEdge[] = [];
  for (let i = 0; i < n; i++) {
    // Coarse weights and repeated pairs with other types: plenty of ties.
    out.push({ from: pick(), to: pick(), type: ['similar', 'supports', ''][rng.int(0, 2)], weight: rng.int(0, 4) / 4 });
  }
  out.push({ from: 'x#0', to: 'x#1', type: 'similar', weight: NaN } as RelationEdge);
  out.push({ from: 'x#0', to: 'x#0', type: 'similar', weight: 1 });
  return out;
}

test('every fragment lists the same relations in the same order as the object map did, both directions or one', () => {
  for (const bidirectional of [true, false]) {
    const edges = randomEdges(800, `adj-${bidirectional}`);
    const { list, adjacency } = buildAdjacency(edges, bidirectional);
    const want = referenceAdjacency(edges, bidirectional);
    assert.equal(adjacency.rowOf.size, want.size);
    let entries = 0;
    for (const [id, l] of want) {
      assert.deepEqual(adjacentOf(adjacency, id), l, id);
      entries += l.length;
    }
    assert.equal(entries, bidirectional ? 2 * list.length : list.length);
    assert.deepEqual(adjacentOf(adjacency, 'nobody'), []);
    assert.ok(list.every((e) => e.from !== e.to && Number.isFinite(e.weight) && e.type));
  }
});
