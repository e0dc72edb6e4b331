/**
 * Partial-name linking and bridges (lib/dualg/query/partial-names.ts, link.ts, heuristic-scorer.ts `partial`) and
 * pseudo-relevance feedback (searcher.ts `prf`), on an invented world: a painter born in "Quillan", a name that titles
 * no passage; the town's passage is titled "Quillan, Brevonia" and never writes the bare name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { graphView, type GraphView } from '../../lib/dualg/query/graph-view';
import { linkQuery } from '../../lib/dualg/query/link';
import { heuristicScores, HEURISTIC_DEFAULTS } from '../../lib/dualg/query/heuristic-scorer';
import { relationWords } from '../../lib/dualg/query/relation-words';
import { PartialNames, partialSpans } from '../../lib/dualg/query/partial-names';
import { DualgSearcher, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { searcherParts } from '../../lib/dualg/retriever';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';

const PASSAGES = [
  { id: 'painter', title: 'Odo Varnholt', text: 'Odo Varnholt was a landscape painter born in Quillan in 1840.' },
  { id: 'town', title: 'Quillan, Brevonia', text: 'This market town of Brevonia lies on the river Sellet, below the Orm hills.' },
  { id: 'hills', title: 'Orm Hills', text: 'The Orm Hills are low chalk hills crossed by old drove roads.' },
  { id: 'other', title: 'Tessa Morrow', text: 'Tessa Morrow was a weaver who sold cloth at fairs.' },
];

async function world(passages = PASSAGES): Promise<GraphView> {
  return graphView(await buildDualGraph(sourceFromPassages(passages, 'partial-names')));
}

const docOf = (view: GraphView, id: string) => view.g.docs.findIndex((d) => d.id === id);

test('partial spans: proper leading and trailing token spans, never a span that opens or ends on a stop word', () => {
  assert.deepEqual(partialSpans('History of Scotland (book)').sort(), ['history', 'scotland']);
  assert.deepEqual(partialSpans('Rochester, New York').sort(), ['new york', 'rochester', 'rochester new', 'york']);
  assert.deepEqual(partialSpans('The Brooklyn Nets').sort(), ['brooklyn', 'nets']);
  assert.deepEqual(partialSpans('Leiden'), [], 'a one-word title has no proper span');
});

test('partial names: a span shared by more titles than the idf guard allows yields no candidate', () => {
  const lakes = Array.from({ length: 8 }, (_, i) => ({ id: `l${i}`, title: `Lake ${String.fromCharCode(65 + i)}mber`, text: 'A lake.' }));
  const docs = [...lakes, ...PASSAGES].map((p) => ({ id: p.id, title: p.title }));
  const names = new PartialNames({ docs } as never, 0.5);
  // 12 documents: idf(span) >= 0.5 x log(13) allows at most 12 / (sqrt(13) - 1) = 4.6 titles.
  assert.deepEqual(names.docs('lake'), [], 'eight titles share "Lake": too common to say which');
  assert.deepEqual(names.docs('quillan'), [docs.findIndex((d) => d.id === 'town')]);
});

test('partial-name linking: a name that titles no passage links the title it leads, at partial x idf / candidates', async () => {
  const view = await world();
  const q = 'Which river flows through Quillan?';
  const town = view.g.docs[docOf(view, 'town')].titleEntity;
  const off = linkQuery(view, q);
  assert.ok(!off.seeds.some((s) => s.entity === town), 'off by default');
  const on = linkQuery(view, q, undefined, undefined, 0.5);
  const seed = on.seeds.find((s) => s.entity === town);
  assert.equal(seed?.how, 'partial', JSON.stringify(on.seeds));
  assert.ok(Math.abs(seed!.weight - 0.5 * view.idf[town]) < 1e-6, 'one candidate: half its idf');
});

test('partial-name bridge: from the painter to the town whose title the mentioned name leads, only with the relation words', async () => {
  const view = await world();
  const q = 'Which river flows through the birthplace of Odo Varnholt?';
  const l = linkQuery(view, q);
  const rel = relationWords(q, l.covered);
  const town = docOf(view, 'town');
  assert.ok(!heuristicScores(view, l.seeds, rel, HEURISTIC_DEFAULTS).docScores.has(town), 'not reached with partial 0');
  const on = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, partial: 0.5 });
  assert.ok((on.docScores.get(town) ?? 0) > 0, 'reached with partial 0.5');
  const path = on.paths.find((p) => p.docs.includes('town'));
  assert.equal(path?.steps.at(-1)?.relation, 'is named in the title of', JSON.stringify(on.paths));
  // No relation word of this question is in the town's passage: the partial candidate has no context, no bridge.
  const q2 = 'Who painted near the birthplace of Odo Varnholt?';
  const l2 = linkQuery(view, q2);
  const bare = heuristicScores(view, l2.seeds, relationWords(q2, l2.covered), { ...HEURISTIC_DEFAULTS, partial: 0.5 });
  assert.ok(!bare.docScores.has(town), 'no relation word, no partial bridge');
});

/** A hybrid that returns the given documents' first fragments, in order. */
function hybridOf(ids: string[]): KnowledgeBase {
  const frag = (id: string) => ({ id: `${id}#0`, docId: id, kind: 'text', text: id, section: [], ordinal: 0, attached: [] });
  return {
    async search(query: string) {
      const hits = ids.map((id, i) => ({ ...frag(id), fragmentId: `${id}#0`, rank: i + 1, score: 1 / (i + 1), scores: {}, media: [] }));
      return { query, retriever: 'hybrid', hits, docs: hits.map((h) => ({ docId: h.docId, score: h.score })), timings: { totalMs: 0 } };
    },
    fragment: (id: string) => frag(id.replace(/#0$/, '')),
  } as unknown as KnowledgeBase;
}

test('pseudo-relevance feedback: the hybrid top passage joins the seeds, below the linked names', async () => {
  const parts = searcherParts(await buildDualGraph(sourceFromPassages(PASSAGES, 'partial-names')));
  const q = 'What hills rise above the town where Odo Varnholt was born?';
  const kb = hybridOf(['town']);
  const plain = await new DualgSearcher(parts, SEARCHER_DEFAULTS, 'dualg').search(q, { k: 4 }, kb);
  const fb = await new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, prf: 3 }, 'dualg').search(q, { k: 4 }, kb);
  assert.equal(fb.hits[0]?.docId, 'painter', 'the linked name still ranks first');
  const score = (r: typeof plain, id: string) => r.hits.find((h) => h.docId === id)?.score ?? 0;
  // graphFirst 1: a graph-reached passage scores above 1, a hybrid-only one below it.
  const show = (r: typeof plain) => JSON.stringify(r.hits.map((h) => [h.docId, h.score]));
  assert.ok(score(plain, 'town') < 1, `without feedback the town is the hybrid's only: ${show(plain)}`);
  assert.ok(score(fb, 'town') > 1, `with feedback the hybrid's top passage is a graph seed: ${show(fb)}`);
  assert.ok(score(fb, 'town') < score(fb, 'painter'), 'feedback weighs less than the linked name');
});
