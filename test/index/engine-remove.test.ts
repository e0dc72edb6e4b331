/**
 * Removal in bulk (engine.removeSlots: each document's slot list filtered once)
 * and progress of the similarity-edge stage: behaviour the scale work must keep.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fragment } from '../../lib/corpus/types';
import { SearchEngine } from '../../lib/index/engine';
import { HashingEmbedder } from '../../lib/index/embedders/hashing';
import { similarityEdges } from '../../lib/index/similarity-edges';

function frag(docId: string, ordinal: number, text: string): Fragment {
  return { id: `${docId}#${ordinal}`, docId, kind: 'text', text, section: [docId], ordinal, attached: [] };
}

/** One long document (3,000 fragments) among short ones. */
function corpus(): Fragment[] {
  const out: Fragment[] = [];
  for (let i = 0; i < 3000; i++) out.push(frag('long', i, `long part ${i} river bank ${i % 17} harbour`));
  for (let d = 0; d < 40; d++) for (let i = 0; i < 5; i++) out.push(frag(`short${d}`, i, `short ${d} piece ${i} river ${d % 3} mill`));
  return out;
}

async function engineOf(frags: Fragment[]): Promise<SearchEngine> {
  const e = SearchEngine.create({ embedder: new HashingEmbedder(32) });
  await e.addFragments(frags);
  return e;
}

test('removing a long document drops all of its fragments at once; BM25 answers as if it had never been added', async () => {
  const all = corpus();
  const e = await engineOf(all);
  assert.equal(e.removeDocuments(['long', 'long', 'nope']), 3000);
  const fresh = await engineOf(all.filter((f) => f.docId !== 'long'));
  assert.equal(e.size, fresh.size);
  assert.deepEqual(e.documents(), fresh.documents());
  assert.equal(e.fragmentsOf('long').length, 0);
  assert.equal(e.fragment('long#7'), undefined);
  for (const q of ['river mill', 'short 7 piece', 'harbour bank']) {
    const ids = (r: Awaited<ReturnType<SearchEngine['search']>>) => r.hits.map((h) => [h.fragmentId, h.score]);
    assert.deepEqual(ids(await e.search(q, { mode: 'bm25', topk: 8 })), ids(await fresh.search(q, { mode: 'bm25', topk: 8 })), q);
  }
});

test('replacing many fragments of one document keeps the rest of it, in reading order, with the new text', async () => {
  const e = await engineOf(corpus());
  const changed = Array.from({ length: 1500 }, (_, i) => frag('long', 2 * i, `rewritten ${2 * i} zeppelin`));
  await e.addFragments(changed);
  const long = e.fragmentsOf('long');
  assert.equal(long.length, 3000);
  assert.deepEqual(
    long.map((f) => f.ordinal),
    Array.from({ length: 3000 }, (_, i) => i),
  );
  assert.equal(e.fragment('long#4')!.text, 'rewritten 4 zeppelin');
  assert.equal(e.fragment('long#5')!.text, 'long part 5 river bank 5 harbour');
  assert.equal((await e.search('zeppelin', { mode: 'bm25', topk: 3000 })).hits.length, 1500);
});

test('similarity edges report progress after every tenth of the fragments, both methods', async () => {
  const e = await engineOf(corpus());
  for (const approx of ['graph', 'search'] as const) {
    const seen: [number, number][] = [];
    const edges = similarityEdges(e, { k: 3, threshold: 0.2, exact: false, approx, progress: (done, total) => seen.push([done, total]) });
    assert.ok(edges.length > 0);
    assert.ok(seen.length >= 10 && seen.length <= 11, `${approx}: ${seen.length} reports`);
    assert.deepEqual(seen[seen.length - 1], [seen[0][1], seen[0][1]]);
    assert.ok(seen.every(([d], i) => i === 0 || d > seen[i - 1][0]));
  }
});
