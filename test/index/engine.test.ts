import { test } from 'node:test';
import { autoEfSearch, resolveHnswOptions } from '../../lib/index/dense';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import type { SearchResult } from '../../lib/index/types';
import { SearchEngine, trimContext, type EngineOptions } from '../../lib/index/engine';
import { HashingEmbedder } from '../../lib/index/embedders/hashing';
import { similarityEdges } from '../../lib/index/similarity-edges';
import { KfError } from '../../lib/util/errors';
import { makeRng } from '../../lib/util/rng';
import { nonEmpty } from '../_shared/non-empty';

function frag(id: string, text: string, extra: Partial<Fragment> = {}): Fragment {
  const [docId, ord] = id.split('#');
  return { id, docId, kind: 'text', text, section: [docId], ordinal: Number(ord), attached: [], ...extra };
}

/** Three small documents: text with an attached figure, a table, neighbours. */
function corpus(): Fragment[] {
  return [
    frag('alpha#0', 'The Rhine river flows north through Basel and Strasbourg towards the sea.', { attached: ['alpha#1'], next: 'alpha#1' }),
    frag('alpha#1', 'Figure 1: Map of the Rhine basin with its tributaries.', {
      kind: 'image',
      anchor: 'alpha#0',
      label: 'Figure 1',
      caption: 'Map of the Rhine basin',
      prev: 'alpha#0',
      next: 'alpha#2',
      media: { path: 'assets/rhine.png', mime: 'image/png', width: 800, height: 600, origin: 'generated' },
    }),
    frag('alpha#2', 'Basel hosts a large art fair every June, drawing collectors from many countries.', { prev: 'alpha#1' }),
    frag('beta#0', 'Strasbourg is the official seat of the European Parliament.', { next: 'beta#1', attached: ['beta#1'] }),
    frag('beta#1', 'Table 1: Parliament seats by country. Germany 96; France 81; Italy 76.', {
      kind: 'table',
      anchor: 'beta#0',
      label: 'Table 1',
      caption: 'Parliament seats by country',
      prev: 'beta#0',
      table: {
        header: ['country', 'seats'],
        rows: [
          ['Germany', '96'],
          ['France', '81'],
          ['Italy', '76'],
        ],
      },
    }),
    frag('gamma#0', 'Volcanoes erupt molten lava and ash when pressure builds up underground.', { next: 'gamma#1' }),
    frag('gamma#1', 'Mount Etna in Sicily is one of the most active volcanoes in Europe.', { prev: 'gamma#0' }),
  ];
}

async function build(opts: Partial<EngineOptions> = {}, frags = corpus()): Promise<SearchEngine> {
  const e = SearchEngine.create({ embedder: new HashingEmbedder(64), ...opts });
  await e.addFragments(frags);
  return e;
}

/** A search result without timings (they differ run to run). */
function stable(r: SearchResult): unknown {
  return r.hits.map((h) => ({ ...h }));
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'ridx-engine-'));
}

test('bm25 hit carries its attached media and trimmed neighbour context', async () => {
  const e = await build();
  const r = await e.search('Rhine river Basel', { mode: 'bm25', topk: 3 });
  const top = r.hits[0];
  assert.equal(top.fragmentId, 'alpha#0');
  assert.equal(top.via, 'bm25');
  assert.equal(top.rank, 1);
  assert.ok(top.scores.bm25! > 0 && top.score === top.scores.bm25);
  assert.deepEqual(top.media, [
    {
      fragmentId: 'alpha#1',
      kind: 'image',
      label: 'Figure 1',
      caption: 'Map of the Rhine basin',
      asset: { path: 'assets/rhine.png', mime: 'image/png', width: 800, height: 600, origin: 'generated' },
    },
  ]);
  assert.equal(top.context?.prev, undefined);
  assert.equal(top.context?.next, 'Figure 1: Map of the Rhine basin with its tributaries.');
  assert.deepEqual(top.section, ['alpha']);
  // Without context: no neighbours, no media.
  const bare = await e.search('Rhine river Basel', { mode: 'bm25', topk: 1, withContext: false });
  assert.equal(bare.hits[0].context, undefined);
  assert.deepEqual(bare.hits[0].media, []);
});

test('a media hit carries its own asset; a table hit its label and caption', async () => {
  const e = await build();
  const img = (await e.search('map tributaries basin', { mode: 'bm25', topk: 1 })).hits[0];
  assert.equal(img.fragmentId, 'alpha#1');
  assert.equal(img.kind, 'image');
  assert.equal(img.media.length, 1);
  assert.equal(img.media[0].fragmentId, 'alpha#1');
  assert.equal(img.media[0].asset?.path, 'assets/rhine.png');
  assert.ok(img.context?.prev?.includes('Rhine river'));
  assert.ok(img.context?.next?.includes('art fair'));
  const tab = (await e.search('parliament seats Germany', { mode: 'bm25', topk: 1 })).hits[0];
  assert.equal(tab.fragmentId, 'beta#1');
  assert.deepEqual([tab.media[0].label, tab.media[0].caption], ['Table 1', 'Parliament seats by country']);
});

test('context is trimmed at word boundaries on the right side', () => {
  const long = 'one two three four five six seven eight nine ten eleven twelve';
  const next = trimContext(long, 20);
  assert.ok(next.endsWith('…') && next.length <= 21 && long.startsWith(next.slice(0, -1)));
  const prev = trimContext(long, 20, true);
  assert.ok(prev.startsWith('…') && long.endsWith(prev.slice(1)));
  assert.equal(trimContext('short  text', 20), 'short text');
});

test('docIds restricts every mode to those documents; unknown documents are an error', async () => {
  const e = await build();
  for (const mode of ['bm25', 'dense', 'hybrid', 'hybrid+graph'] as const) {
    const r = await e.search('Strasbourg Rhine Basel', { mode, topk: 5, docIds: ['beta'] });
    assert.ok(r.hits.length > 0, mode);
    assert.ok(
      nonEmpty(r.hits).every((h) => h.docId === 'beta'),
      `${mode}: ${r.hits.map((h) => h.docId)}`,
    );
  }
  await assert.rejects(e.search('Strasbourg', { docIds: ['nope'] }), (err: unknown) => err instanceof KfError && err.code === 'unknown_document');
});

test('hybrid+graph expands the top anchors one hop; expansion hits inherit the anchor score and name anchor and relation', async () => {
  const e = await build();
  const n = e.setRelations([
    { from: 'alpha#0', to: 'gamma#1', type: 'supports', weight: 0.9 },
    { from: 'beta#0', to: 'alpha#0', type: 'same-topic', weight: 0.4 },
    { from: 'alpha#0', to: 'missing#0', type: 'extends', weight: 1 },
  ]);
  assert.equal(n, 2);
  const plain = await e.search('Rhine river flows', { mode: 'hybrid', topk: 1 });
  assert.equal(plain.hits.length, 1);
  const r = await e.search('Rhine river flows', { mode: 'hybrid+graph', topk: 1 });
  assert.deepEqual(
    r.hits.map((h) => [h.fragmentId, h.via, h.rank]),
    [
      ['alpha#0', 'hybrid', 1],
      ['gamma#1', 'expansion', 2],
      ['beta#0', 'expansion', 3],
    ],
  );
  const [anchor, ex1, ex2] = r.hits;
  assert.equal(ex1.anchorId, 'alpha#0');
  assert.equal(ex1.relation, 'supports');
  assert.equal(ex1.score, anchor.score);
  assert.equal(ex2.relation, 'same-topic'); // the edge is traversed backwards (bidirectional)
  assert.equal(anchor.anchorId, undefined);
  // Expansion respects the docIds filter and never repeats a primary hit.
  const filtered = await e.search('Rhine river flows', { mode: 'hybrid+graph', topk: 1, docIds: ['alpha', 'beta'] });
  assert.deepEqual(
    filtered.hits.map((h) => h.fragmentId),
    ['alpha#0', 'beta#0'],
  );
  const wide = await e.search('Rhine river flows Strasbourg', { mode: 'hybrid+graph', topk: 7 });
  const ids = wide.hits.map((h) => h.fragmentId);
  assert.equal(new Set(ids).size, ids.length);
});

test('expansion switches: perAnchor, minWeight, one-directional edges, appended placement', async () => {
  const edges = [
    { from: 'alpha#0', to: 'gamma#1', type: 'supports', weight: 0.9 },
    { from: 'alpha#0', to: 'gamma#0', type: 'extends', weight: 0.2 },
    { from: 'beta#0', to: 'alpha#0', type: 'same-topic', weight: 0.4 },
  ];
  const one = await build({ graph: { perAnchor: 1, bidirectional: false } });
  one.setRelations(edges);
  assert.deepEqual(
    (await one.search('Rhine river flows', { mode: 'hybrid+graph', topk: 1 })).hits.map((h) => h.fragmentId),
    ['alpha#0', 'gamma#1'],
  );
  const strong = await build({ graph: { minWeight: 0.5 } });
  strong.setRelations(edges);
  assert.deepEqual(
    (await strong.search('Rhine river flows', { mode: 'hybrid+graph', topk: 1 })).hits.map((h) => h.fragmentId),
    ['alpha#0', 'gamma#1'],
  );
  const appended = await build({ graph: { placement: 'append' } });
  appended.setRelations([{ from: 'alpha#0', to: 'gamma#1', type: 'supports', weight: 0.9 }]);
  const r = await appended.search('Rhine Strasbourg Parliament Basel', { mode: 'hybrid+graph', topk: 3 });
  const primary = r.hits.filter((h) => h.via !== 'expansion');
  const exp = r.hits.filter((h) => h.via === 'expansion');
  assert.equal(primary.length, 3);
  assert.ok(exp.length >= 1);
  assert.ok(r.hits.findIndex((h) => h.via === 'expansion') === 3, 'expansions come after all primary hits');
  const none = await build({ graph: { anchors: 0 } });
  none.setRelations(edges);
  assert.equal((await none.search('Rhine river flows', { mode: 'hybrid+graph', topk: 1 })).hits.length, 1);
});

test('removeDocuments: removed fragments vanish and statistics equal a fresh build without them', async () => {
  const e = await build();
  assert.equal(e.removeDocuments(['alpha', 'unknown-doc']), 3);
  assert.equal(e.size, 4);
  assert.equal(e.fragment('alpha#0'), undefined);
  assert.deepEqual(e.fragmentsOf('alpha'), []);
  assert.deepEqual(e.documents(), ['beta', 'gamma']);
  const fresh = await build(
    {},
    corpus().filter((f) => f.docId !== 'alpha'),
  );
  for (const mode of ['bm25', 'dense', 'hybrid'] as const) {
    const a = await e.search('Rhine Strasbourg volcanoes Europe', { mode, topk: 5 });
    const b = await fresh.search('Rhine Strasbourg volcanoes Europe', { mode, topk: 5 });
    assert.ok(nonEmpty(a.hits).every((h) => h.docId !== 'alpha'));
    assert.deepEqual(
      a.hits.map((h) => [h.fragmentId, h.score]),
      b.hits.map((h) => [h.fragmentId, h.score]),
      mode,
    );
  }
  // Re-adding works (incremental rebuild of a changed document).
  await e.addFragments(corpus().filter((f) => f.docId === 'alpha'));
  assert.equal(e.size, 7);
  assert.equal((await e.search('Rhine river', { mode: 'bm25', topk: 1 })).hits[0].fragmentId, 'alpha#0');
});

test('addFragments replaces a fragment with the same id; bad batches change nothing', async () => {
  const e = await build();
  await e.addFragments([frag('gamma#1', 'Mount Vesuvius overlooks the bay of Naples.', { prev: 'gamma#0' })]);
  assert.equal(e.size, 7);
  assert.equal((await e.search('Vesuvius Naples', { mode: 'bm25', topk: 1 })).hits[0].fragmentId, 'gamma#1');
  assert.equal((await e.search('Etna Sicily', { mode: 'bm25', topk: 3 })).hits.filter((h) => h.fragmentId === 'gamma#1').length, 0);
  await assert.rejects(e.addFragments([frag('x#0', 'a'), frag('x#0', 'b')]), (err: unknown) => err instanceof KfError && err.code === 'duplicate_fragment');
  await assert.rejects(e.addFragments([frag('x#0', 'a')], [new Float32Array(3)]), (err: unknown) => err instanceof KfError && err.code === 'dim_mismatch');
  await assert.rejects(e.addFragments([{ ...frag('x#0', 'a'), docId: '' }]), KfError);
  assert.equal(e.size, 7);
  for (const mode of ['bm25', 'dense', 'hybrid', 'hybrid+graph'] as const)
    assert.deepEqual((await e.search('the of and', { mode })).hits, [], `${mode}: a query of stopwords finds nothing`);
  await assert.rejects(e.search('x', { topk: 0 }), KfError);
  await assert.rejects(e.search('x', { mode: 'magic' as never }), KfError);
  await assert.rejects(e.search('x', { queryVector: new Float32Array(5) }), (err: unknown) => err instanceof KfError && err.code === 'dim_mismatch');
});

test('a pre-computed query vector gives the same result without calling the embedder', async () => {
  const emb = new HashingEmbedder(64);
  let calls = 0;
  const counting = {
    id: emb.id,
    dim: emb.dim,
    embed: async (t: string[]) => {
      calls++;
      return emb.embed(t);
    },
  };
  const e = SearchEngine.create({ embedder: counting });
  await e.addFragments(corpus());
  const before = calls;
  const q = 'Strasbourg parliament';
  const viaEmbedder = await e.search(q, { mode: 'hybrid' });
  assert.equal(calls, before + 1);
  const [v] = await emb.embed([q]);
  const viaVector = await e.search(q, { mode: 'hybrid', queryVector: v });
  assert.equal(calls, before + 1);
  assert.deepEqual(stable(viaVector), stable(viaEmbedder));
  assert.equal((await e.search(q, { mode: 'bm25' })).timings.embedMs, 0);
  assert.equal(calls, before + 1, 'bm25 mode makes no embedder call');
  for (const k of ['embedMs', 'bm25Ms', 'hnswMs', 'fusionMs', 'expansionMs', 'contextMs', 'roundMs'] as const) assert.ok(viaEmbedder.timings[k] >= 0);
});

/** A random corpus big enough for HNSW and pruning to matter. */
function randomCorpus(n: number, seed: string): Fragment[] {
  const rng = makeRng(seed);
  const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
  const out: Fragment[] = [];
  for (let d = 0; d < n / 5; d++) {
    for (let k = 0; k < 5; k++) {
      const text = Array.from({ length: rng.int(5, 30) }, () => words[Math.floor(Math.pow(rng.next(), 2) * words.length)]).join(' ');
      out.push(frag(`doc${d}#${k}`, text, { prev: k > 0 ? `doc${d}#${k - 1}` : undefined, next: k < 4 ? `doc${d}#${k + 1}` : undefined }));
    }
  }
  return out;
}

test('determinism: the same fragments in the same order give identical results', async () => {
  const frags = randomCorpus(400, 'det');
  const a = await build({}, frags);
  const b = await build({}, randomCorpus(400, 'det'));
  const edges = frags.slice(0, 100).map((f, i) => ({ from: f.id, to: frags[(i * 7 + 3) % 400].id, type: 'similar', weight: (i % 10) / 10 }));
  a.setRelations(edges);
  b.setRelations(edges);
  for (const q of ['word1 word2 word50', 'word3 word200', 'word0']) {
    for (const mode of ['bm25', 'dense', 'hybrid', 'hybrid+graph'] as const) {
      assert.deepEqual(stable(await a.search(q, { mode, topk: 8 })), stable(await b.search(q, { mode, topk: 8 })));
    }
  }
});

test('save/load round trip: same results, fragments, documents and relations; embedder restored from its id', async () => {
  const dir = tmpDir();
  try {
    const e = await build({ fusion: 'rrf' }, [...corpus(), ...randomCorpus(200, 'rt')]);
    e.setRelations([{ from: 'alpha#0', to: 'gamma#1', type: 'supports', weight: 0.9 }]);
    e.removeDocuments(['doc3']);
    await e.save(dir);
    assert.ok(SearchEngine.exists(dir));
    const l = await SearchEngine.load(dir);
    assert.equal(l.embedder.id, 'hash-64');
    assert.equal(l.size, e.size);
    assert.deepEqual(l.documents(), e.documents());
    assert.deepEqual(l.fragment('alpha#1'), e.fragment('alpha#1'));
    assert.deepEqual(l.relationEdges(), e.relationEdges());
    for (const q of ['Rhine river', 'word1 word7', 'Strasbourg parliament seats']) {
      for (const mode of ['bm25', 'dense', 'hybrid', 'hybrid+graph'] as const) {
        assert.deepEqual(stable(await l.search(q, { mode, topk: 6 })), stable(await e.search(q, { mode, topk: 6 })), `${mode} ${q}`);
      }
    }
    // Loaded indexes keep working incrementally.
    l.removeDocuments(['alpha']);
    await l.addFragments([frag('delta#0', 'Zanzibar spice markets')]);
    assert.equal((await l.search('Zanzibar', { mode: 'bm25' })).hits[0].fragmentId, 'delta#0');
    // A different embedder is refused.
    await assert.rejects(SearchEngine.load(dir, new HashingEmbedder(32)), (err: unknown) => err instanceof KfError && err.code === 'embedder_mismatch');
    await assert.rejects(SearchEngine.load(path.join(dir, 'nothing-here')), (err: unknown) => err instanceof KfError && err.code === 'index_missing');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('crash safety: a save that dies at any step leaves the previous index loadable and unchanged', async () => {
  const dir = tmpDir();
  try {
    const e = await build();
    await e.save(dir);
    const before = stable(await (await SearchEngine.load(dir)).search('Rhine Strasbourg', { topk: 5 }));
    await e.addFragments([frag('delta#0', 'Zanzibar spice markets and the Rhine')]);
    const steps = ['fragments', 'bm25', 'dense', 'relations', 'embedder', 'manifest', 'rename', 'pointer'] as const;
    for (const s of steps) {
      await assert.rejects(
        e.save(dir, {
          onStep: (at) => {
            if (at === s) throw new Error(`simulated crash at ${s}`);
          },
        }),
      );
      const l = await SearchEngine.load(dir);
      assert.equal(l.size, 7, `after a crash at ${s}`);
      assert.deepEqual(stable(await l.search('Rhine Strasbourg', { topk: 5 })), before, `after a crash at ${s}`);
    }
    // A crash that leaves a half-written temporary folder behind (no cleanup ran) is harmless too.
    fs.mkdirSync(path.join(dir, '.gen-000099.tmp-1-1'));
    fs.writeFileSync(path.join(dir, '.gen-000099.tmp-1-1', 'fragments.jsonl'), '{"id":');
    assert.equal((await SearchEngine.load(dir)).size, 7);
    // The next good save wins and cleans up.
    await e.save(dir);
    const l = await SearchEngine.load(dir);
    assert.equal(l.size, 8);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['CURRENT', fs.readFileSync(path.join(dir, 'CURRENT'), 'utf8').trim()].sort());
    // A damaged file in the current generation is reported, not half-loaded.
    const gen = path.join(dir, fs.readFileSync(path.join(dir, 'CURRENT'), 'utf8').trim());
    fs.appendFileSync(path.join(gen, 'bm25.bin'), Buffer.from([1, 2, 3]));
    await assert.rejects(SearchEngine.load(dir), (err: unknown) => err instanceof KfError && err.code === 'index_corrupt');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('save compacts when many fragments were removed; results are unchanged', async () => {
  const dir = tmpDir();
  try {
    const frags = randomCorpus(300, 'compact');
    const e = await build({}, frags);
    e.removeDocuments(Array.from({ length: 25 }, (_, i) => `doc${i * 2}`));
    assert.ok(e.tombstoneRatio >= 0.3);
    const before = await e.search('word4 word9 word100', { mode: 'hybrid', topk: 8 });
    await e.save(dir);
    assert.equal(e.tombstoneRatio, 0);
    const l = await SearchEngine.load(dir);
    const after = await l.search('word4 word9 word100', { mode: 'hybrid', topk: 8 });
    assert.deepEqual(
      after.hits.map((h) => h.fragmentId),
      before.hits.map((h) => h.fragmentId),
    );
    for (let i = 0; i < after.hits.length; i++) assert.ok(Math.abs(after.hits[i].score - before.hits[i].score) < 1e-9);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('HNSW search agrees with exact search on a small index', async () => {
  const e = await build({}, randomCorpus(500, 'recall'));
  const emb = new HashingEmbedder(64);
  const qs = await emb.embed(['word1 word2', 'word10 word20 word30', 'word5', 'word250 word3']);
  let found = 0;
  for (const q of qs) {
    const exact = e.exactDense(q, 8);
    const approx = new Set(e.approxDense(q, 8));
    found += exact.filter((id) => approx.has(id)).length;
  }
  assert.ok(found / (8 * qs.length) >= 0.95, `recall ${found / 32}`);
});

test('similarity edges: kNN above a threshold, each pair once, deterministic, usable for expansion', async () => {
  const e = await build({}, [...corpus(), frag('delta#0', 'The Rhine river flows north through Basel and Strasbourg towards the North Sea.')]);
  const edges = similarityEdges(e, { k: 3, threshold: 0.5 });
  assert.ok(edges.length > 0);
  for (const x of edges) {
    assert.ok(x.from < x.to && x.weight >= 0.5 && x.type === 'similar');
  }
  assert.ok(edges.some((x) => x.from === 'alpha#0' && x.to === 'delta#0'));
  assert.equal(new Set(edges.map((x) => `${x.from}|${x.to}`)).size, edges.length);
  assert.deepEqual(similarityEdges(e, { k: 3, threshold: 0.5 }), edges);
  assert.deepEqual(similarityEdges(e, { k: 3, threshold: 0.5, exact: false }), edges, 'HNSW and exact kNN agree on a tiny index');
  assert.ok(nonEmpty(similarityEdges(e, { k: 3, threshold: 0.5, crossDocumentOnly: true })).every((x) => x.from.split('#')[0] !== x.to.split('#')[0]));
  assert.throws(() => similarityEdges(e, { k: 0 }), KfError);
});

test('configure changes query-time options and validates them', async () => {
  const e = await build();
  e.setRelations([{ from: 'beta#0', to: 'alpha#0', type: 'same-topic', weight: 0.4 }]);
  const q = 'Rhine river flows';
  assert.equal((await e.search(q, { mode: 'hybrid+graph', topk: 1 })).hits.length, 2, 'the edge is walked backwards by default');
  e.configure({ graph: { bidirectional: false } });
  assert.equal((await e.search(q, { mode: 'hybrid+graph', topk: 1 })).hits.length, 1);
  e.configure({ fusion: 'rrf', fusionWeights: { bm25: 1, dense: 0 }, efSearch: 32, context: { chars: 10 } });
  const r = await e.search('Basel art fair', { mode: 'hybrid', topk: 1 });
  assert.ok((r.hits[0].context?.prev ?? '').length <= 11);
  assert.throws(() => e.configure({ denseWidening: { siblingDocs: -1 } }), KfError);
  assert.throws(() => e.configure({ fusionWeights: { bm25: 0, dense: 0 } }), KfError);
  assert.deepEqual(SearchEngine.defaultQueryOptions().denseWidening, { siblingDocs: 3, siblingWindow: 64 });
});

test('automatic efSearch grows with the corpus (128 up to 51.2K, 256 above)', () => {
  assert.equal(resolveHnswOptions().efSearch, 0, 'default is automatic');
  assert.deepEqual([1000, 4800, 50_000, 100_000, 200_000, 2_000_000].map(autoEfSearch), [128, 128, 128, 256, 256, 256]);
});
