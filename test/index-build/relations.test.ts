/**
 * Relations: kNN recall (threshold, cap per node, scopes, exact vs HNSW),
 * offline untyped edges, LLM typing of ONLY the recalled pairs (fake model and
 * the scripted server), the pair cache, and the projection to fragment edges.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KnowledgePoint } from '../../lib/index/types';
import { buildRelations, parseRelationsReply, projectToFragments, recallPairs, typeRelations, type RelationTypeCache } from '../../lib/index/relations';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { makeRng } from '../../lib/util/rng';
import { fakeModel } from '../_shared/fake-model';
import { nonEmpty } from '../_shared/non-empty';

function unit(xs: number[]): Float32Array {
  const n = Math.hypot(...xs) || 1;
  return Float32Array.from(xs.map((x) => x / n));
}

function pt(id: string, fragmentId: string, docId: string, summary = `summary of ${id}`): KnowledgePoint {
  return { id, fragmentId, docId, title: id, summary, by: 'offline' };
}

// Four points: p0/p1 nearly identical (different fragments), p2 same fragment as p0, p3 orthogonal.
const POINTS = [pt('p0', 'A#0', 'A'), pt('p1', 'B#0', 'B'), pt('p2', 'A#0', 'A'), pt('p3', 'C#0', 'C')];
const VECS = [unit([1, 0.05, 0]), unit([1, 0, 0.05]), unit([1, 0.1, 0.1]), unit([0, 0, 1])];

test('recallPairs: above the threshold, never within one fragment, undirected, sorted', () => {
  const pairs = recallPairs(POINTS, VECS, { k: 3, minCosine: 0.5 });
  assert.deepEqual(
    pairs.map((p) => [p.a, p.b]),
    [
      [0, 1],
      [1, 2],
    ],
  );
  assert.ok(nonEmpty(pairs).every((p) => p.similarity >= 0.5 && p.similarity <= 1.0000001));
  assert.deepEqual(recallPairs(POINTS, VECS, { k: 3, minCosine: 0.9999 }), []);
  // Scopes.
  assert.deepEqual(recallPairs(POINTS, VECS, { k: 3, minCosine: 0.5, scope: 'document' }), []);
  assert.deepEqual(
    recallPairs(POINTS, VECS, { k: 3, minCosine: 0.5, scope: 'cross-document' }).map((p) => [p.a, p.b]),
    [
      [0, 1],
      [1, 2],
    ],
  );
});

test('recallPairs: the cap per node keeps the strongest edges; HNSW recall matches exact recall', () => {
  const rng = makeRng('relations-test');
  const n = 300;
  const centres = Array.from({ length: 10 }, () => Array.from({ length: 16 }, () => rng.next() - 0.5));
  const pts: KnowledgePoint[] = [];
  const vecs: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const c = centres[i % 10];
    vecs.push(unit(c.map((x) => x + (rng.next() - 0.5) * 0.2)));
    pts.push(pt(`p${i}`, `D${i}#0`, `D${i}`));
  }
  const exact = recallPairs(pts, vecs, { k: 5, minCosine: 0.3, maxPerNode: 3 });
  const degree = new Map<number, number>();
  for (const p of exact) for (const x of [p.a, p.b]) degree.set(x, (degree.get(x) ?? 0) + 1);
  assert.ok(Math.max(...degree.values()) <= 3);
  const approx = recallPairs(pts, vecs, { k: 5, minCosine: 0.3, maxPerNode: 3, exactBelow: 0 });
  const key = (p: { a: number; b: number }) => `${p.a},${p.b}`;
  const e = new Set(exact.map(key));
  const overlap = approx.filter((p) => e.has(key(p))).length / Math.max(1, exact.length);
  assert.ok(overlap > 0.95, `HNSW recall of exact pairs ${overlap}`);
  // Deterministic.
  assert.deepEqual(recallPairs(pts, vecs, { k: 5, minCosine: 0.3, maxPerNode: 3, exactBelow: 0 }), approx);
  // The older method (one graph query per point) recalls the exact pairs too, and the two methods agree.
  const searched = recallPairs(pts, vecs, { k: 5, minCosine: 0.3, maxPerNode: 3, exactBelow: 0, recall: 'search' });
  const viaSearch = searched.filter((p) => e.has(key(p))).length / Math.max(1, exact.length);
  assert.ok(viaSearch > 0.95, `HNSW search recall of exact pairs ${viaSearch}`);
  const g = new Set(approx.map(key));
  assert.ok(searched.filter((p) => g.has(key(p))).length / Math.max(1, searched.length) > 0.95);
});

test('offline: recalled pairs become untyped similar edges; projection gives one fragment edge per fragment pair', async () => {
  const r = await buildRelations(POINTS, VECS, { k: 3, minCosine: 0.5 });
  assert.equal(r.by, 'offline');
  assert.equal(r.typed, 0);
  assert.deepEqual(
    r.relations.map((x) => [x.from, x.to, x.type, x.by]),
    [
      ['p0', 'p1', 'similar', 'offline'],
      ['p1', 'p2', 'similar', 'offline'],
    ],
  );
  // p0 and p2 share fragment A#0: both edges map to A#0-B#0, the stronger one wins.
  assert.equal(r.fragmentEdges.length, 1);
  const best = Math.max(...r.relations.map((x) => x.weight));
  assert.deepEqual(r.fragmentEdges[0], { from: 'A#0', to: 'B#0', type: 'similar', weight: best, by: 'offline' });
});

test('projectToFragments prefers a typed edge over a stronger similar one and drops same-fragment edges', () => {
  const pts = [pt('a', 'F#0', 'F'), pt('b', 'G#0', 'G'), pt('c', 'F#0', 'F'), pt('d', 'G#0', 'G')];
  const edges = projectToFragments(
    [
      { from: 'a', to: 'b', type: 'similar', weight: 0.9, by: 'offline' },
      { from: 'd', to: 'c', type: 'extends', weight: 0.7, by: 'llm' },
      { from: 'a', to: 'c', type: 'similar', weight: 0.99, by: 'offline' },
    ],
    pts,
  );
  assert.deepEqual(edges, [{ from: 'G#0', to: 'F#0', type: 'extends', weight: 0.7, by: 'llm' }]);
});

test('LLM typing: only recalled pairs are sent; types, reversed direction, none, unknown types, bad replies; the cache avoids repeat calls', async () => {
  const pts = [
    pt('q0', 'A#0', 'A', 'Aspirin reduces fever.'),
    pt('q1', 'B#0', 'B', 'Aspirin is an NSAID that reduces fever and pain.'),
    pt('q2', 'C#0', 'C', 'Fever is a raised body temperature.'),
    pt('q3', 'D#0', 'D', 'Ibuprofen reduces fever.'),
  ];
  const pairs = [
    { a: 0, b: 1, similarity: 0.9 },
    { a: 0, b: 2, similarity: 0.8 },
    { a: 0, b: 3, similarity: 0.7 },
    { a: 1, b: 3, similarity: 0.6 },
  ];
  const model = fakeModel((req, n) => {
    assert.equal(req.stage, 'relations');
    const task = req.task as { role: string; pairs: { from: string; to: string }[] };
    assert.equal(task.role, 'relations');
    if (n === 0) {
      assert.deepEqual(
        task.pairs.map((p) => [p.from, p.to]),
        [
          ['q0', 'q1'],
          ['q0', 'q2'],
        ],
      );
      // q1 extends q0 (reversed), q0-q2: prerequisite via pair number.
      return '```json\n{"relations": [{"from": "q1", "to": "q0", "type": "extends"}, {"pair": 2, "type": "Prerequisite"}]}\n```';
    }
    assert.deepEqual(
      task.pairs.map((p) => [p.from, p.to]),
      [
        ['q0', 'q3'],
        ['q1', 'q3'],
      ],
    );
    return '{"relations": [{"from": "q0", "to": "q3", "type": "none"}, {"from": "q1", "to": "q3", "type": "cousin-of"}]}';
  });
  const store = new Map<string, string>();
  const cache: RelationTypeCache = { get: (k) => store.get(k), set: (k, v) => void store.set(k, v) };
  const r = await typeRelations(pts, pairs, { model, batchPairs: 2, concurrency: 1, cache });
  assert.equal(r.by, 'llm');
  assert.equal(r.typed, 2);
  assert.deepEqual(
    r.relations.map((x) => [x.from, x.to, x.type, x.by]),
    [
      ['q1', 'q0', 'extends', 'llm'],
      ['q0', 'q2', 'prerequisite', 'llm'],
      ['q0', 'q3', 'similar', 'offline'],
      ['q1', 'q3', 'similar', 'offline'],
    ],
  );
  assert.deepEqual(
    r.issues.map((i) => i.code),
    ['unknown_type'],
  );
  assert.equal(r.usage.calls, 2);
  assert.equal(store.size, 3, 'typed pairs and "none" are cached; an unknown type is not');

  // Second run: cached pairs need no call; only the uncached one goes out. A bad reply is recorded, never fatal.
  const again = fakeModel(() => 'sorry, no JSON here');
  const r2 = await typeRelations(pts, pairs, { model: again, batchPairs: 2, cache });
  assert.equal(again.calls.length, 1);
  assert.equal((again.calls[0].task as { pairs: unknown[] }).pairs.length, 1);
  assert.deepEqual(
    r2.relations.map((x) => x.type),
    ['extends', 'prerequisite', 'similar', 'similar'],
  );
  assert.deepEqual(
    r2.issues.map((i) => i.code),
    ['bad_reply'],
  );

  // dropUntyped removes pairs the model did not type.
  const r3 = await typeRelations(pts, pairs, { model: fakeModel(() => new Error('down')), cache, dropUntyped: true });
  assert.deepEqual(
    r3.relations.map((x) => x.type),
    ['extends', 'prerequisite'],
  );
  assert.deepEqual(
    r3.issues.map((i) => i.code),
    ['call_failed'],
  );
});

test('parseRelationsReply: repaired truncated JSON; ids outside the batch ignored', () => {
  const batch = [{ from: 'a', to: 'b' }];
  const p = parseRelationsReply('{"relations": [{"from": "a", "to": "b", "type": "supports"}, {"from": "x", "to": "y", "type": "extends"}', batch);
  assert.deepEqual([...p.types.entries()], [[0, { type: 'supports', reversed: false }]]);
  assert.ok(parseRelationsReply('no', batch).error);
});

test('LLM typing through the router against the scripted HTTP server', async (t) => {
  const server = await ScriptedServer.start();
  t.after(() => server.close());
  server.on({
    model: 'rel-model',
    reply: (req) => {
      const user = String(req.body.messages[1].content);
      const pairs = [...user.matchAll(/from (\S+): [^\n]*\n\s+to\s+(\S+):/g)].map((m) => ({ from: m[1], to: m[2], type: 'same-topic' }));
      return { text: JSON.stringify({ relations: pairs }) };
    },
  });
  const router = createModelRouter({ defaults: { baseUrl: server.url, model: 'rel-model' } }, { env: { OPENAI_API_KEY: 'k' }, cacheMode: 'off' });
  t.after(() => router.close());
  const r = await buildRelations(POINTS, VECS, { k: 3, minCosine: 0.5, model: router.forStage('relations') });
  assert.equal(r.typed, 2);
  assert.ok(nonEmpty(r.relations).every((x) => x.type === 'same-topic' && x.by === 'llm'));
  assert.deepEqual(
    r.fragmentEdges.map((e) => e.type),
    ['same-topic'],
  );
  assert.equal(server.chatRequests().length, 1);
  assert.equal(r.usage.promptTokens, server.usageTotals().promptTokens);
});
