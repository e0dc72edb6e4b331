/**
 * Chain-following (heuristic.chain, relation-words.ts hopWords): in "the X of the Y of Z" the hop out of Z is judged
 * by Y, the next by X. Our own invented film world.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { graphView } from '../../lib/dualg/query/graph-view';
import { linkQuery } from '../../lib/dualg/query/link';
import { heuristicScores, HEURISTIC_DEFAULTS } from '../../lib/dualg/query/heuristic-scorer';
import { hopWords, relationWords } from '../../lib/dualg/query/relation-words';

const PASSAGES = [
  { id: 'film', title: 'Glass Orchard', text: 'Glass Orchard is a 1961 film directed by Ilse Marrow. Its spouse subplot was praised by Piet Dorn.' },
  { id: 'ilse', title: 'Ilse Marrow', text: 'Ilse Marrow was a film maker. She married the actor Jan Vos.' },
  { id: 'piet', title: 'Piet Dorn', text: 'Piet Dorn was a critic from Ghent.' },
];

test('hopWords: the closest relation word for the first hop, the next for the second, the farthest after that', async () => {
  const view = graphView(await buildDualGraph(sourceFromPassages(PASSAGES, 'chain')));
  const q = 'Who is the spouse of the director of Glass Orchard?';
  const words = relationWords(q, linkQuery(view, q).covered, { lexicon: false });
  const stems = (hop: number) => hopWords(words, hop).map((w) => w.stems[0]);
  assert.deepEqual(stems(0), ['direct']);
  assert.deepEqual(stems(1), ['spouse']);
  assert.deepEqual(stems(4), ['spouse'], 'later hops keep the outermost word');
  assert.ok(Math.abs(hopWords(words, 0).reduce((a, w) => a + w.weight, 0) - 1) < 1e-9, 'renormalised');
  assert.deepEqual(hopWords([{ stems: ['x'], weight: 1 }], 0), [{ stems: ['x'], weight: 1 }], 'words without an order all count');
});

test('chain 1: the first bridge out of the named film follows the innermost relation (director), not the outer one', async () => {
  const view = graphView(await buildDualGraph(sourceFromPassages(PASSAGES, 'chain')));
  const q = 'Who is the spouse of the director of Glass Orchard?';
  const l = linkQuery(view, q);
  const rel = relationWords(q, l.covered);
  const doc = (id: string) => view.g.docs.findIndex((d) => d.id === id);
  const ratio = (chain: number) => {
    const s = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, chain }).docScores;
    return (s.get(doc('ilse')) ?? 0) / (s.get(doc('piet')) ?? 1e-9);
  };
  assert.ok(ratio(0) > 1, `the director's passage leads already: ${ratio(0)}`);
  assert.ok(ratio(1) > ratio(0), `with chain-following the outer word no longer lifts the critic: ${ratio(1)} vs ${ratio(0)}`);
});
