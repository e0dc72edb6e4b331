import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fragment } from '../../lib/corpus/types';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import type { MicroFact } from '../../lib/dualg/graph/types';
import { textCaptionFacts } from '../../lib/dualg/graph/micro';
import { figureKey, figureReferences, fragmentBoosts, labelStems, LabelIndex, matchFigures, matchLabels } from '../../lib/dualg/query/micro-label-match';
import { DualgSearcher, REFERENCE_SCORE, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { searcherParts } from '../../lib/dualg/retriever';
import { hybridHit } from './hybrid-hit.helper';

const fact = (u: string, r: string, v: string, fragmentId: string, doc = 0, kind: MicroFact['kind'] = 'image'): MicroFact => ({
  u,
  r,
  v,
  doc,
  fragmentId,
  kind,
  uEntity: -1,
  vEntity: -1,
});

/** Two charts and two tables of document 0, one table of document 1, and a figure anchor. */
const FACTS: MicroFact[] = [
  fact('Election chart', 'Greens', '45', 'd0#chart1'),
  fact('Election chart', 'SPD', '47', 'd0#chart1'),
  fact('Poll', 'CDU/CSU', '30', 'd0#chart2'),
  fact('Poll', 'Share of total streaming', '12%', 'd0#chart2'),
  fact('Seniors', 'Broadband at home', '47%', 'd0#table1', 0, 'table'),
  fact('Adults', 'Broadband at home', '70%', 'd0#table2', 0, 'table'),
  fact('Teens', 'Broadband at home', '90%', 'd1#table1', 1, 'table'),
  fact('Adults', 'column 3', 'Greens', 'd0#table2', 0, 'table'),
  fact('Figure 3', 'shows', 'Greens', 'd0#fig3'),
  fact('Figure 3', 'text', 'NLP Tasks', 'd0#fig3'),
  fact('Figure 13', 'shows', 'Chess', 'd0#fig13'),
  fact('Poll', '2013', '55', 'd0#chart2'),
  fact('Figure 3 of the appendix', 'Count', '9', 'd0#table3', 0, 'table'),
  fact('Figure 5', 'caption', 'Accuracy by model size', 'd0#text7'),
];

const round = (m: Map<string, number>) => Object.fromEntries([...m].map(([k, v]) => [k, Math.round(v * 1000) / 1000]));

test('labelStems: content-word stems with a letter; numbers and stop words are not label words', () => {
  assert.deepEqual(labelStems('Broadband at home'), ['broadband', 'home']);
  assert.deepEqual(labelStems('in 2013, 65+'), []);
  assert.deepEqual(labelStems('Greens'), ['green']);
});

test('figure references and anchor keys meet on "figure N" (Fig. / Figure / case), nothing else is a figure', () => {
  assert.deepEqual(figureReferences('How many subfigures are in Figure 3? Compare fig. 12 and Fig 3(b).'), ['figure 3', 'figure 12']);
  assert.equal(figureKey('Figure 3'), 'figure 3');
  assert.equal(figureKey('FIG. 03'), 'figure 3');
  assert.equal(figureKey('Figure 3: results'), 'figure 3', 'an image subject (caption) opening with the figure names it');
  assert.equal(figureKey('Results of Figure 3'), undefined);
  assert.equal(figureKey('Table 3'), undefined);
});

test('a question naming a chart label reaches the chart fragment; a label met nowhere else scores 1', () => {
  const m = matchLabels(new LabelIndex(FACTS), 'What percentage of Greens supported the coalition?');
  assert.deepEqual(round(m), { 'd0#chart1': 1 }, 'not via the "column 3" cell nor the figure\'s caption name: those are nodes, not labels');
});

test('within-document idf: a label held by two fragments of a document gives each half; other documents do not count', () => {
  const m = matchLabels(new LabelIndex(FACTS), 'Which group has broadband at home most often?');
  assert.deepEqual(round(m), { 'd0#table1': 0.5, 'd0#table2': 0.5, 'd1#table1': 1 });
});

test('coverage gate: a label counts when at least half of its words are in the question, scored by that share', () => {
  const idx = new LabelIndex(FACTS);
  assert.equal(matchLabels(idx, 'How much streaming happened?').size, 0, '1 of 3 label words: below the gate');
  assert.deepEqual(round(matchLabels(idx, 'What is the total streaming in the poll?')), { 'd0#chart2': 0.667 });
  assert.equal(matchLabels(idx, 'What happened in 2013?').size, 0, 'a number-only label is no label');
});

test('"Figure 3" in the question reaches the fragment anchored "Figure 3" only; label matching leaves figures alone', () => {
  const idx = new LabelIndex(FACTS);
  assert.deepEqual(round(matchFigures(idx, 'How many subfigures are in Figure 3?')), { 'd0#fig3': 1 }, 'not the table row "Figure 3 of ..."');
  assert.equal(matchLabels(idx, 'How many subfigures are in Figure 3?').size, 0);
  assert.equal(matchFigures(idx, 'What percentage of Greens?').size, 0);
  assert.equal(matchFigures(idx, 'What does Figure 7 show?').size, 0, 'no figure 7 anchor');
  assert.deepEqual(round(matchFigures(idx, 'What is the caption of Fig. 5?')), { 'd0#text7': 1 }, 'a printed caption anchors');
  assert.equal(matchLabels(idx, 'What is the caption of Fig. 5?').size, 0, '"caption" is no label');
});

test('fragmentBoosts: label matches join the micro scores (max per fragment), figure references come apart; each rule can be off', () => {
  const sFragment = new Map([
    ['d0#chart1', 0.3],
    ['d0#table1', 0.9],
  ]);
  const q = 'Greens and broadband at home, as in Figure 3';
  const on = fragmentBoosts(sFragment, FACTS, q, { labels: true, figures: true });
  assert.deepEqual(round(on.boosts), { 'd0#chart1': 1, 'd0#table1': 0.9, 'd0#table2': 0.5, 'd1#table1': 1 });
  assert.deepEqual(round(on.referenced), { 'd0#fig3': 1 });
  const off = fragmentBoosts(sFragment, FACTS, q, { labels: false, figures: false });
  assert.deepEqual(round(off.boosts), round(sFragment));
  assert.equal(off.referenced.size, 0);
  const dflt = fragmentBoosts(sFragment, FACTS, q);
  assert.deepEqual(round(dflt.boosts), round(sFragment), 'label matching is off by default (LABEL_MATCH_DEFAULTS)');
  assert.equal(dflt.referenced.size, 1, 'figure references are on');
  assert.equal(SEARCHER_DEFAULTS.microLabels, false);
  assert.equal(SEARCHER_DEFAULTS.microFigures, true);
});

/** Fragment i of a one-document search test, on page i + 1. */
function pageFrag(docId: string, i: number, kind: Fragment['kind'], text: string, extra: Partial<Fragment> = {}): Fragment {
  return { id: `${docId}#${i}`, docId, kind, text, page: i + 1, section: [], ordinal: i, attached: [], ...extra };
}

function fakeKb(frags: Fragment[]): KnowledgeBase {
  return {
    id: 'fake',
    async search(query: string, o: { k?: number; docIds?: string[] } = {}) {
      const hits = frags.filter((f) => !o.docIds || o.docIds.includes(f.docId)).map(hybridHit);
      return { query, retriever: 'hybrid', hits, docs: [], timings: { totalMs: 0 } };
    },
    fragment: (id: string) => frags.find((f) => f.id === id),
  } as unknown as KnowledgeBase;
}

test('one-document search: the chart whose OCR label the question names moves up the hybrid order; not with microLabels off', async () => {
  const frags = [
    pageFrag('r', 0, 'text', 'Voters and parties in the election.'),
    pageFrag('r', 1, 'text', 'Turnout by region.'),
    pageFrag('r', 2, 'image', 'Image on page 3', { ocrText: 'Seats won\nGreens 45 SPD 47' }),
  ];
  const src: GraphSource = { id: 'm', fingerprint: 'fp', documents: () => [{ id: 'r', title: 'Election report' }], fragmentsOf: () => frags };
  const parts = searcherParts(await buildDualGraph(src));
  assert.ok(
    parts.micro.facts.some((f) => f.r === 'Greens' && f.fragmentId === 'r#2'),
    'the chart label is a fact relation',
  );
  const kb = fakeKb(frags);
  const q = 'how many seats did the greens win?';
  const order = async (microLabels: boolean) =>
    (await new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, microLabels }, 'dualg').search(q, { k: 3, docIds: ['r'] }, kb)).hits.map((h) => h.fragmentId);
  assert.deepEqual(await order(false), ['r#0', 'r#1', 'r#2']);
  assert.deepEqual(await order(true), ['r#0', 'r#2', 'r#1'], 'a tie-breaker: one place up (FRAGMENT_BOOST)');
});

test("one-document search: a figure the question names ranks with the hybrid's first hit (REFERENCE_SCORE); not with microFigures off", async () => {
  const frags = [
    pageFrag('s', 0, 'text', 'We train weak and strong models.'),
    pageFrag('s', 1, 'text', 'Results are strong.'),
    pageFrag('s', 2, 'text', 'Related work.'),
    pageFrag('s', 3, 'image', 'Image on page 4', { label: 'Figure 2', ocrText: 'Accuracy 80' }),
  ];
  const src: GraphSource = { id: 'm', fingerprint: 'fp', documents: () => [{ id: 's', title: 'Paper' }], fragmentsOf: () => frags };
  const parts = searcherParts(await buildDualGraph(src));
  const kb = fakeKb(frags);
  const order = async (microFigures: boolean) =>
    (
      await new DualgSearcher(parts, { ...SEARCHER_DEFAULTS, microFigures }, 'dualg').search(
        'how many subfigures are in figure 2?',
        { k: 4, docIds: ['s'] },
        kb,
      )
    ).hits.map((h) => h.fragmentId);
  assert.deepEqual(await order(false), ['s#0', 's#1', 's#2', 's#3']);
  assert.deepEqual(await order(true), ['s#3', 's#0', 's#1', 's#2'], 'hybrid last + 1/2 > hybrid first 1/2');
  assert.equal(REFERENCE_SCORE, 1 / 2, "the hybrid first hit's score, 1/(2+0)");
});

test('textCaptionFacts: a caption line left in the page text anchors its figure, unless an image is labelled with it', () => {
  const text = (id: string, t: string, page: number): Fragment => ({ id, docId: 'p', kind: 'text', text: t, page, section: [], ordinal: 0, attached: [] });
  const frags: Fragment[] = [
    text('p#0', 'Output: an Italian painter.\n\nFigure 1: A demonstration of our task set up.', 1),
    text('p#1', 'As shown in Figure 1, the model answers.\nFigure 2 shows the results.', 2),
    text('p#2', 'Comparison of the three paradigms.\n\nFig. 3.\n\nAdvanced RAG ...', 4),
    text('p#3', 'Figure 4: Scores by size.', 5),
    { id: 'p#4', docId: 'p', kind: 'image', text: 'Image on page 5', page: 5, label: 'Figure 4', section: [], ordinal: 4, attached: [] },
  ];
  const facts = textCaptionFacts(frags);
  assert.deepEqual(
    facts.map((f) => [f.u, f.r, f.v, f.fragmentId, f.kind]),
    [
      ['Figure 1', 'caption', 'A demonstration of our task set up.', 'p#0', 'image'],
      ['Figure 3', 'caption', 'Figure 3', 'p#2', 'image'],
    ],
    'in-text mentions ("As shown in Figure 1", "Figure 2 shows") are not captions; Figure 4 is the labelled image\'s',
  );
  assert.equal(matchFigures(new LabelIndex(facts.map((f) => ({ ...f, doc: 0, uEntity: -1, vEntity: -1 }))), 'In figure 1, which arrows?').get('p#0'), 1);
});
