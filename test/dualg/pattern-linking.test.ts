/**
 * Entity recognition through the pattern stage: when a model parsed the query, the entities it named (the
 * non-variable terms of its conditions) are what linking seeds the graph from, and the search says who parsed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { patternEntities } from '../../lib/dualg/query/pattern-stage';
import { DualgSearcher, PATTERN_STAND_IN, SEARCHER_DEFAULTS } from '../../lib/dualg/query/searcher';
import { linkQuery } from '../../lib/dualg/query/link';
import { searcherParts } from '../../lib/dualg/retriever';
import { acmeSource, emptyAcmeKb } from './acme-world.helper';
import { withPattern } from '../../lib/dualg/query/search-pattern';

const SOURCE = acmeSource('pl', 'fp-pl');

const emptyKb = emptyAcmeKb;

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
  const r = await searcher.search(q, { k: 2, extra: withPattern(pattern) }, emptyKb);
  assert.equal(r.hits[0]?.docId, 'acme', JSON.stringify(r.notes));
  assert.equal(r.system?.pattern, 'model pat');
  const plain = await searcher.search(q, { k: 2 }, emptyKb);
  assert.equal(plain.system?.pattern, PATTERN_STAND_IN);
});
