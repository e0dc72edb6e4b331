/**
 * Entity recognition through the pattern stage: when a model parsed the query, the entities it named (the
 * non-variable terms of its conditions) are what linking seeds the graph from, and the search says who parsed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Fragment } from '../../lib/corpus/types';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { patternEntities } from '../../lib/dualg/query/pattern-stage';
import { DualgSearcher, PATTERN_STAND_IN, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { linkQuery } from '../../lib/dualg/query/link';
import { searcherParts } from '../../lib/dualg/retriever';
import type { KnowledgeBase } from '../../lib/pipeline/knowledge-base';

const text = (id: string, docId: string, t: string): Fragment => ({ id, docId, kind: 'text', text: t, section: [], ordinal: 0, attached: [] });
const FRAGS = [
  text('acme#0', 'acme', 'Acme Corp is a company founded by Wile Coyote in Arizona.'),
  text('arizona#0', 'arizona', 'Arizona is a state of the United States.'),
  text('road#0', 'road', 'Road Runner is a bird that lives in the desert.'),
];
const SOURCE: GraphSource = {
  id: 'pl',
  fingerprint: 'fp-pl',
  documents: () => [
    { id: 'acme', title: 'Acme Corp' },
    { id: 'arizona', title: 'Arizona' },
    { id: 'road', title: 'Road Runner' },
  ],
  fragmentsOf: (d) => FRAGS.filter((f) => f.docId === d),
};

const emptyKb = {
  async search(query: string) {
    return { query, retriever: 'hybrid', hits: [], docs: [], timings: { totalMs: 0 } };
  },
  fragment: (id: string) => FRAGS.find((f) => f.id === id),
} as unknown as KnowledgeBase;

test('the entities of a model-parsed pattern drive linking; without a pattern the rule NER does, labelled a stand-in', async () => {
  assert.deepEqual(
    patternEntities([
      ['?x', 'founded', 'Acme Corp'],
      ['?x', 'born in', '?y'],
      ['Acme Corp', 'located in', '?z'],
    ]),
    ['Acme Corp'],
  );
  const g = await buildDualGraph(SOURCE);
  const parts = searcherParts(g);
  // A lower-case question with a misspelt name: the rules link nothing, the parser's normalised name links Acme Corp.
  const q = 'who started the acmee company?';
  assert.equal(linkQuery(parts.view, q).seeds.length, 0);
  const seeds = linkQuery(parts.view, q, ['Acme Corp']).seeds;
  assert.equal(g.entityNames[seeds[0].entity].toLowerCase(), 'acme corp');
  const searcher = new DualgSearcher(parts, SEARCHER_DEFAULTS, 'dualg');
  const pattern = { conditions: [['?x', 'founded', 'Acme Corp']] as [string, string, string][], by: 'model pat', entities: ['Acme Corp'] };
  const r = await searcher.search(q, { k: 2, pattern }, emptyKb);
  assert.equal(r.hits[0]?.docId, 'acme', JSON.stringify(r.notes));
  assert.equal(r.system?.pattern, 'model pat');
  const plain = await searcher.search(q, { k: 2 }, emptyKb);
  assert.equal(plain.system?.pattern, PATTERN_STAND_IN);
});
