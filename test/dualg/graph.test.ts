import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { loadGraph, saveGraph } from '../../lib/dualg/graph/store';
import { toGnnGraph } from '../../lib/dualg/graph/to-gnn';
import { nameKey, titleVariants } from '../../lib/dualg/graph/names';
import { REL_EQUIVALENT, REL_MENTIONS } from '../../lib/dualg/graph/types';
import { microFacts } from '../../lib/dualg/graph/micro';
import { openieFromModel } from '../../lib/dualg/graph/openie-model';
import { InProcessModel } from '../../lib/models/in-process';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';
import { acmeRevenueTable } from './acme-world.helper';
import { LOTHAIR_PASSAGES } from './lothair-world.helper';

const PASSAGES = [
  ...LOTHAIR_PASSAGES,
  { id: 'Frederick I, Holy Roman Emperor', title: 'Frederick I, Holy Roman Emperor', text: 'Frederick Barbarossa (1122 - 1190) was the Holy Roman Emperor.' },
  { id: 'Beatrice I', title: 'Beatrice I (countess)', text: 'Beatrice I was Holy Roman Empress by marriage to Frederick Barbarossa.' },
];

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dualg-graph-'));
}

test('names: keys fold case, diacritics and possessives; title variants drop parentheticals and articles', () => {
  assert.equal(nameKey("Lothair Ii's"), 'lothair ii');
  assert.equal(nameKey('Aldri annet enn Bråk'), 'aldri annet enn brak');
  assert.deepEqual(titleVariants('Lilu (mythology)'), ['lilu mythology', 'lilu']);
  assert.ok(titleVariants('The Beatles').includes('beatles'));
  assert.ok(titleVariants('J. R. R. Tolkien').includes('jrr tolkien'));
  // A one-word name before a comma is not an alias ("Frederick, Count of Verdun" must not own every "Frederick").
  assert.deepEqual(titleVariants('Frederick, Count of Verdun'), ['frederick count of verdun']);
});

test('macro graph: title-mention links, opening-name aliases, documents linked to their entities', async () => {
  const g = await buildDualGraph(sourceFromPassages(PASSAGES, 'fixture'));
  const id = (name: string) => g.aliases.get(nameKey(name))?.[0] ?? -1;
  const lothair = id('Lothair II');
  const ermengarde = id('Ermengarde of Tours');
  assert.ok(lothair >= 0 && ermengarde >= 0);
  const mention = g.triples.find((t) => t.rel === REL_MENTIONS && t.head === lothair && t.tail === ermengarde);
  assert.ok(mention, 'Lothair II mentions Ermengarde of Tours');
  assert.ok(mention!.lead?.includes('son'), `lead words of the mention: ${mention!.lead}`);
  // "Frederick Barbarossa" opens the passage titled "Frederick I, Holy Roman Emperor": an alias of it.
  assert.equal(id('Frederick Barbarossa'), id('Frederick I, Holy Roman Emperor'));
  const beatriceDoc = g.docs.findIndex((d) => d.id === 'Beatrice I');
  assert.ok(
    g.entityDocs[id('Frederick Barbarossa')].some((x) => x.doc === beatriceDoc),
    'the Beatrice passage holds Frederick',
  );
  assert.ok(
    g.entityDocs[ermengarde].some((x) => x.weight === 1),
    'an entity titles its document with weight 1',
  );
  assert.ok(g.meta.stats.triples > 0 && g.meta.stats.entities >= PASSAGES.length);
});

test('equivalence edges join near-identical names (cosine > tau) and not different ones', async () => {
  const g = await buildDualGraph(
    sourceFromPassages(
      [
        { id: 'a', title: "St. Maurice's Abbey", text: 'An abbey.' },
        { id: 'b', title: 'St Maurices Abbey', text: 'Another spelling.' },
        { id: 'c', title: 'Maurice Ravel', text: 'A composer.' },
      ],
      'eq',
    ),
  );
  const eq = g.triples.filter((t) => t.rel === REL_EQUIVALENT);
  assert.equal(eq.length, 1);
  assert.deepEqual(new Set([g.entityNames[eq[0].head], g.entityNames[eq[0].tail]]), new Set(["St. Maurice's Abbey", 'St Maurices Abbey']));
  assert.ok(eq[0].weight > 0.8);
});

test('micro graph: table cells and chart labels become facts aligned to macro entities', async () => {
  const frags: Fragment[] = [
    { id: 'r#0', docId: 'r', kind: 'text', text: 'Revenue of Acme Corp and Globex grew.', section: [], ordinal: 0, attached: ['r#1', 'r#2'] },
    acmeRevenueTable(1, 'Revenue 2020'),
    {
      id: 'r#2',
      docId: 'r',
      kind: 'image',
      text: 'A bar chart',
      section: [],
      ordinal: 2,
      attached: [],
      label: 'Figure 1',
      ocrText: 'Acme Corp: 12\nGlobex: 7',
    },
  ];
  const src: GraphSource = {
    id: 'micro',
    fingerprint: 'fp',
    documents: () => [
      { id: 'r', title: 'Annual report' },
      { id: 'acme', title: 'Acme Corp' },
    ],
    fragmentsOf: (d) => (d === 'r' ? frags : []),
  };
  const g = await buildDualGraph(src);
  const table = g.micro.filter((f) => f.kind === 'table');
  const image = g.micro.filter((f) => f.kind === 'image');
  assert.deepEqual(
    table.map((f) => [f.u, f.r, f.v]),
    [
      ['Acme Corp', 'Revenue 2020', '12'],
      ['Globex', 'Revenue 2020', '7'],
    ],
  );
  assert.ok(image.some((f) => f.r === 'Acme Corp' && f.v === '12'));
  assert.equal(g.entityNames[table[0].uEntity], 'Acme Corp', 'the row entity aligns to the macro entity');
});

test('empty and disconnected graphs build; GnnGraph lists inverse relations as their own ids', async () => {
  const empty = await buildDualGraph(sourceFromPassages([], 'empty'));
  assert.equal(empty.entityNames.length, 0);
  const eg = toGnnGraph(empty);
  assert.equal(eg.numNodes, 0);
  assert.equal(eg.src.length, 0);
  const lonely = await buildDualGraph(
    sourceFromPassages(
      [
        { id: 'x', title: 'Xylo', text: 'nothing here.' },
        { id: 'y', title: 'Yam', text: 'nor here.' },
      ],
      'lonely',
    ),
  );
  assert.equal(lonely.triples.length, 0);
  const full = toGnnGraph(await buildDualGraph(sourceFromPassages(PASSAGES, 'fixture')));
  assert.ok(full.src.length > 0);
  const m = full.src.length / 2;
  const R = full.numRelations / 2;
  assert.equal(full.src[0], full.dst[m]);
  assert.equal(full.rel[m], full.rel[0] + R);
  assert.equal(full.docIds.length, PASSAGES.length);
  assert.ok(full.nodeDoc.node.length >= PASSAGES.length);
});

test('save/load round trip; a graph built for another index is refused', async () => {
  const dir = tmp();
  try {
    const g = await buildDualGraph(sourceFromPassages(PASSAGES, 'fixture'));
    saveGraph(dir, g);
    const back = loadGraph(dir, { fingerprint: g.meta.source.fingerprint });
    assert.equal(back.triples.length, g.triples.length);
    assert.deepEqual(back.aliases.get('lothair ii'), g.aliases.get('lothair ii'));
    assert.throws(() => loadGraph(dir, { fingerprint: 'another-index' }), /built for index fixture/);
    assert.throws(() => loadGraph(path.join(dir, 'nothing')), /no DualG graph/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the openie stage (offline backend here) adds model triples to the graph, and unparseable replies add none', async () => {
  registerOfflineHandlers();
  const g = await buildDualGraph(sourceFromPassages(PASSAGES, 'fixture'), { openie: openieFromModel(new InProcessModel('openie')) });
  assert.ok(g.meta.stats.modelTriples > 0, `model triples: ${g.meta.stats.modelTriples}`);
  assert.equal(g.meta.settings.openie, 'model');
  const silly = { id: 'x', backend: 'openai', chat: async () => ({ text: 'no json here' }) } as unknown as import('../../lib/model-api/types').ChatModel;
  assert.deepEqual(await openieFromModel(silly)('Some text.', 'f#0'), []);
});

test('micro graph: "label number" chart labels in OCR text (several on a line) and in the text layer of a page showing a chart become facts', () => {
  const base = { docId: 'p', ordinal: 0, attached: [], page: 4 };
  const facts = microFacts(
    [
      {
        ...base,
        id: 'p#0',
        kind: 'text',
        text: 'Hispanic 81\n51% CDU/CSU\nIn 2019 the survey asked many questions of everyone who took part 3',
        section: ['Chart 2'],
      },
      { ...base, id: 'p#1', kind: 'text', text: 'Black 40', section: ['Methods'], page: 5 },
      { ...base, id: 'p#2', kind: 'image', text: '', section: [], ocrText: 'White 45%\nGreens 45 SPD 47 | 3' },
    ],
    'Report',
  );
  assert.deepEqual(
    facts.filter((f) => f.r !== 'text').map((f) => [f.fragmentId, f.r, f.v]),
    [
      ['p#0', 'Hispanic', '81'],
      ['p#0', 'CDU/CSU', '51%'],
      ['p#2', 'White', '45%'],
      ['p#2', 'Greens', '45'],
      ['p#2', 'SPD', '47'],
    ],
  );
});
