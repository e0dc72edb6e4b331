import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fragment } from '../../lib/corpus/types';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { graphView } from '../../lib/dualg/query/graph-view';
import { linkQuery } from '../../lib/dualg/query/link';
import { heuristicScores } from '../../lib/dualg/query/heuristic-scorer';
import { relationWords } from '../../lib/dualg/query/relation-words';
import { matchMicro, MicroIndex } from '../../lib/dualg/query/micro-match';
import { pprScores } from '../../lib/dualg/query/ppr';
import { fuseScores } from '../../lib/dualg/query/fuse';
import { DualgSearcher, onePerPageFirst, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { searcherParts } from '../../lib/dualg/retriever';
import { acmeRevenueTable } from './acme-world.helper';
import { hybridHit } from './hybrid-hit.helper';

const PASSAGES = [
  { id: 'Changed It', title: 'Changed It', text: '"Changed It" is a song recorded by Nicki Minaj and Lil Wayne. It was written by Onika Maraj.' },
  { id: 'Nicki Minaj', title: 'Nicki Minaj', text: 'Nicki Minaj (born December 8, 1982 in Saint James, Trinidad) is a rapper.' },
  { id: 'Lil Wayne', title: 'Lil Wayne', text: 'Lil Wayne is a rapper from New Orleans.' },
  { id: 'Saint James', title: 'Saint James, Trinidad', text: 'Saint James is a district of Port of Spain.' },
  { id: 'Weather', title: 'Weather', text: 'Weather is the state of the atmosphere.' },
];

function fakeKb(frags: Fragment[]): KnowledgeBase & { searches: number } {
  const kb = {
    id: 'fake',
    searches: 0,
    async search(query: string, o: { k?: number; docIds?: string[] } = {}) {
      kb.searches++;
      const hits = frags
        .filter((f) => !o.docIds || o.docIds.includes(f.docId))
        .slice()
        .reverse()
        .slice(0, o.k ?? 8)
        .map(hybridHit);
      return { query, retriever: 'hybrid', hits, docs: hits.map((h) => ({ docId: h.docId, score: h.score })), timings: { totalMs: 0 } };
    },
    fragment: (id: string) => frags.find((f) => f.id === id),
  };
  return kb as unknown as KnowledgeBase & { searches: number };
}

function fragmentsOf(passages: typeof PASSAGES): Fragment[] {
  return passages.map((p) => ({ id: `${p.id}#0`, docId: p.id, kind: 'text', text: p.text, section: [], ordinal: 0, attached: [] }));
}

test('linking: longest title match in the question, seeds weighted by idf; relation words outside the names', async () => {
  const view = graphView(await buildDualGraph(sourceFromPassages(PASSAGES, 'q')));
  const l = linkQuery(view, 'What is the place of birth of the performer of song Changed It?');
  assert.equal(l.seeds.length, 1);
  assert.equal(view.g.entityNames[l.seeds[0].entity], 'Changed It');
  assert.ok(l.seeds[0].weight > 0);
  const rel = relationWords('What is the place of birth of the performer of song Changed It?', l.covered);
  const words = rel.map((r) => r.stems[0]);
  assert.ok(words.includes('perform') && !words.includes('song'), `relation words ${words}`);
  assert.ok(rel.find((r) => r.stems[0] === 'perform')!.weight > rel.find((r) => r.stems[0] === 'place')!.weight, 'the word next to the name weighs most');
  assert.equal(linkQuery(view, 'is it going to rain tomorrow?').seeds.length, 0);
});

test('heuristic scorer: the seed passage first, then the passage titled by the entity it mentions for the asked relation', async () => {
  const view = graphView(await buildDualGraph(sourceFromPassages(PASSAGES, 'q')));
  const q = 'What is the place of birth of the performer of song Changed It?';
  const l = linkQuery(view, q);
  const s = heuristicScores(view, l.seeds, relationWords(q, l.covered));
  const ranked = [...s.docScores.entries()].sort((a, b) => b[1] - a[1]).map(([d]) => view.g.docs[d].id);
  assert.deepEqual(ranked.slice(0, 2), ['Changed It', 'Nicki Minaj']);
  assert.ok(s.paths.length > 0 && s.paths[0].docs.includes('Nicki Minaj'));
  assert.ok(!ranked.includes('Weather'));
  const p = pprScores(view, l.seeds);
  assert.ok(p.docScores.get(view.g.docs.findIndex((d) => d.id === 'Changed It'))! > 0);
});

test('searcher: ranked evidence with timings; no linkable entity falls back to hybrid with a note', async () => {
  const g = await buildDualGraph(sourceFromPassages(PASSAGES, 'q'));
  const searcher = new DualgSearcher(searcherParts(g), SEARCHER_DEFAULTS, 'dualg-heuristic');
  const kb = fakeKb(fragmentsOf(PASSAGES));
  const r = await searcher.search('Where was the performer of Changed It born?', { k: 3 }, kb);
  assert.equal(r.retriever, 'dualg-heuristic');
  assert.deepEqual(r.hits.map((h) => h.docId).slice(0, 2), ['Changed It', 'Nicki Minaj']);
  assert.equal(r.hits.length, 3);
  assert.deepEqual(
    r.hits.map((h) => h.rank),
    [1, 2, 3],
  );
  for (const stage of ['linking', 'matching', 'gnn', 'totalMs']) assert.equal(typeof r.timings[stage], 'number', stage);
  assert.equal(r.notes, undefined);
  const none = await searcher.search('is it going to rain tomorrow?', { k: 2 }, kb);
  assert.ok(none.notes?.some((n) => /no linkable entity: fell back to hybrid/.test(n)));
  assert.equal(none.hits.length, 2);
  // A document restriction is honoured.
  const only = await searcher.search('Where was the performer of Changed It born?', { k: 3, docIds: ['Nicki Minaj'] }, kb);
  assert.deepEqual([...new Set(only.hits.map((h) => h.docId))], ['Nicki Minaj']);
});

test('searcher on an empty graph: every question falls back to hybrid', async () => {
  const g = await buildDualGraph(sourceFromPassages([], 'empty'));
  const searcher = new DualgSearcher(searcherParts(g), SEARCHER_DEFAULTS, 'dualg');
  const r = await searcher.search('Who directed Inception?', { k: 2 }, fakeKb(fragmentsOf(PASSAGES)));
  assert.ok(r.notes?.[0].includes('fell back to hybrid'));
  assert.equal(r.hits.length, 2);
});

test('micro matching: branch-and-bound finds the table fact, projects it to a macro seed, boosts its document; fusion keeps max(t, i*)', async () => {
  const frags: Fragment[] = [{ id: 'r#0', docId: 'r', kind: 'text', text: 'Annual figures.', section: [], ordinal: 0, attached: [] }, acmeRevenueTable(1)];
  const src: GraphSource = {
    id: 'm',
    fingerprint: 'fp',
    documents: () => [
      { id: 'r', title: 'Report' },
      { id: 'acme', title: 'Acme Corp' },
    ],
    fragmentsOf: (d) => (d === 'r' ? frags : []),
  };
  const g = await buildDualGraph(src);
  const index = new MicroIndex(g.micro);
  const m = matchMicro(index, [['Acme Corp', 'revenue', '?x']], ['Acme Corp']);
  assert.equal(m.matched.length > 0, true);
  assert.equal(m.matched[0][0].v, '12');
  const reportDoc = g.docs.findIndex((d) => d.id === 'r');
  assert.ok((m.sMicro.get(reportDoc) ?? 0) > 0.5);
  assert.ok(m.seeds.has(g.aliases.get('acme corp')![0]));
  assert.equal(matchMicro(index, [['Zebra Inc', 'revenue', '?x']], []).matched.length, 0, 'gated: no candidate for an unknown name');
  const fused = fuseScores(
    new Map([
      [0, 2],
      [1, 1],
    ]),
    new Set([1]),
    new Map([[1, 1]]),
  );
  assert.equal(fused.get(0), 1);
  assert.equal(fused.get(1), 1);
});

test('one-document search: the table fragment a micro fact matched moves up the hybrid order', async () => {
  const frags: Fragment[] = [
    { id: 'r#0', docId: 'r', kind: 'text', text: 'Annual figures of the group.', section: [], ordinal: 0, attached: [] },
    { id: 'r#1', docId: 'r', kind: 'text', text: 'Outlook for next year.', section: [], ordinal: 1, attached: [] },
    acmeRevenueTable(2),
  ];
  const src: GraphSource = { id: 'm', fingerprint: 'fp', documents: () => [{ id: 'r', title: 'Report' }], fragmentsOf: () => frags };
  const searcher = new DualgSearcher(searcherParts(await buildDualGraph(src)), SEARCHER_DEFAULTS, 'dualg');
  // The fake hybrid lists fragments in reverse order of the list given: r#0, r#1, then the table last.
  const kb = fakeKb([frags[2], frags[1], frags[0]]);
  const r = await searcher.search('What was the revenue of Acme Corp?', { k: 3, docIds: ['r'] }, kb);
  // Hybrid order r#0, r#1, r#2; the micro match lifts the table one place (a tie-breaker, see FRAGMENT_BOOST).
  assert.deepEqual(
    r.hits.map((h) => h.fragmentId),
    ['r#0', 'r#2', 'r#1'],
  );
  assert.ok(r.notes?.some((n) => n.startsWith('one document')));
});

test('a question linking only entities found everywhere falls back to hybrid, saying so', async () => {
  const passages = ['Alpha', 'Beta', 'Gamma', 'Delta', 'Epsilon'].map((t) => ({ id: t, title: t, text: `${t} is a town in Northern Europe.` }));
  const g = await buildDualGraph(sourceFromPassages(passages, 'common'));
  const searcher = new DualgSearcher(searcherParts(g), SEARCHER_DEFAULTS, 'dualg');
  const r = await searcher.search('Which towns are in Northern Europe?', { k: 3 }, fakeKb(fragmentsOf(passages as typeof PASSAGES)));
  assert.ok(
    r.notes?.some((n) => n.startsWith('only common entities linked')),
    JSON.stringify(r.notes),
  );
  assert.equal(r.hits.length, 3);
});

test('one document: each page once before any repeated page, in score order', () => {
  const hit = (fragmentId: string, page?: number) => ({ fragmentId, docId: 'd', page });
  const out = onePerPageFirst([hit('d#0', 3), hit('d#1', 3), hit('d#2', 5), hit('d#3'), hit('d#4', 5), hit('d#5', 1)]);
  assert.deepEqual(
    out.map((h) => h.fragmentId),
    ['d#0', 'd#2', 'd#3', 'd#5', 'd#1', 'd#4'],
  );
});
