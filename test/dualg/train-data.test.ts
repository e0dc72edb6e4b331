import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { toGnnGraph } from '../../lib/dualg/graph/to-gnn';
import { graphView } from '../../lib/dualg/query/graph-view';
import { kgCompletionExamples, questionExamples, syntheticLinkExamples } from '../../lib/dualg/train/corpus-data';
import { makeRng } from '../../lib/util/rng';
import { LOTHAIR_PASSAGES } from './lothair-world.helper';

const PASSAGES = [...LOTHAIR_PASSAGES, { id: 'Lothair I', title: 'Lothair I', text: 'Lothair I was Emperor of the Franks. His wife was Ermengarde of Tours.' }];

test('train data: synthetic link queries hide the linked title and target both passages; KG completion hides the answer edges', async () => {
  const g = await buildDualGraph(sourceFromPassages(PASSAGES, 'fixture'));
  const view = graphView(g);
  const syn = syntheticLinkExamples(g, view, (d) => PASSAGES.find((p) => p.id === g.docs[d].id)?.text, makeRng(1), 50);
  assert.ok(syn.length > 0, 'some link gives a query');
  for (const ex of syn) {
    const [a, b] = Array.from(ex.targetDocs!);
    assert.notEqual(a, b);
    assert.ok(!ex.query.seeds.includes(g.docs[b].titleEntity), `${ex.id}: the bridge is not a seed`);
    assert.ok(Math.abs(ex.query.seedWeights.reduce((x, y) => x + y, 0) - 1) < 1e-5);
  }
  const lothair = syn.find((e) => g.docs[e.targetDocs![0]].id === 'Lothair II' && g.docs[e.targetDocs![1]].id === 'Ermengarde of Tours');
  assert.ok(lothair, 'Lothair II -> Ermengarde of Tours is one of them');
  const gg = toGnnGraph(g);
  const kg = kgCompletionExamples(gg, makeRng(2), 10);
  assert.equal(kg.length, 10);
  for (const ex of kg) {
    const h = ex.query.seeds[0];
    assert.ok(ex.targetNodes!.length > 0);
    // No edge between the head and an answer remains visible, in either direction.
    for (let e = 0; e < gg.src.length; e++) {
      const touches = (gg.src[e] === h && ex.targetNodes!.includes(gg.dst[e])) || (gg.dst[e] === h && ex.targetNodes!.includes(gg.src[e]));
      if (touches && gg.rel[e] === gg.rel[Number(ex.id.slice(3))]) assert.ok(ex.exclude!.has(e), `${ex.id}: edge ${e} hidden`);
    }
  }
  const q = questionExamples(g, view, [
    { id: 'q1', question: "When did Lothair II's mother die?", goldDocs: ['Lothair II', 'Ermengarde of Tours'] },
    { id: 'q2', question: 'what is this?', goldDocs: ['Lotharingia'] },
  ]);
  assert.deepEqual(
    q.examples.map((e) => e.id),
    ['q1'],
  );
  assert.deepEqual(q.unlinked, ['q2']);
  assert.equal(q.examples[0].targetDocs!.length, 2);
});
