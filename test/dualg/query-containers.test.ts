import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { graphView, type GraphView } from '../../lib/dualg/query/graph-view';
import { linkQuery } from '../../lib/dualg/query/link';
import { heuristicScores, HEURISTIC_DEFAULTS, type HeuristicSettings } from '../../lib/dualg/query/heuristic-scorer';
import { relationWords } from '../../lib/dualg/query/relation-words';

// A MuSiQue-like chain: the church passage names the state (Ohio); the answer passage is titled "List of Ohio area
// codes", which no passage mentions by title. Distractor passages are titled by other entities the church passage
// mentions; "United States" is a hub mentioned everywhere.
const PASSAGES = [
  {
    id: 'church',
    title: 'Atwater Congregational Church',
    text: 'Atwater Congregational Church is a historic building in Atwater, Ohio, United States. It was built by Hiram Kellogg.',
  },
  { id: 'codes', title: 'List of Ohio area codes', text: 'Ohio has several area codes: code 216 covers Cleveland and code 513 covers Cincinnati.' },
  { id: 'ohio', title: 'Ohio', text: 'Ohio is a state in the Midwestern United States. Its capital is Columbus.' },
  { id: 'kellogg', title: 'Hiram Kellogg', text: 'Hiram Kellogg was a carpenter in the United States.' },
  { id: 'us', title: 'United States', text: 'The United States is a country in North America.' },
  { id: 'h1', title: 'Boston', text: 'Boston is a city in the United States.' },
  { id: 'h2', title: 'Chicago', text: 'Chicago is a city in the United States.' },
  { id: 'h3', title: 'Denver', text: 'Denver is a city in the United States.' },
];

async function fixture(): Promise<GraphView> {
  return graphView(await buildDualGraph(sourceFromPassages(PASSAGES, 'containers')));
}

function ranking(view: GraphView, q: string, s: Partial<HeuristicSettings>): string[] {
  const l = linkQuery(view, q);
  const scores = heuristicScores(view, l.seeds, relationWords(q, l.covered), { ...HEURISTIC_DEFAULTS, ...s });
  return [...scores.docScores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([d]) => view.g.docs[d].id);
}

const entity = (view: GraphView, name: string) => view.g.entityNames.indexOf(name);

test('container documents: titles that contain an entity name, never the entity titled by the document itself', async () => {
  const view = await fixture();
  const ohio = entity(view, 'Ohio');
  assert.ok(ohio >= 0, 'Ohio is an entity');
  const containers = view.containerDocs(ohio).map((d) => view.g.docs[d].id);
  assert.deepEqual(containers, ['codes']);
  const list = view.g.docs.findIndex((d) => d.id === 'codes');
  assert.equal(view.containerDocs(view.g.docs[list].titleEntity).length, 0, 'a title does not contain itself');
});

test('container bridge: the passage whose title contains the mentioned state and holds the asked words comes second', async () => {
  const view = await fixture();
  const q = 'What is the area code for the state where the Atwater Congregational Church is?';
  const on = ranking(view, q, { contains: 1 });
  assert.equal(on[0], 'church');
  assert.ok(on.indexOf('codes') >= 0 && on.indexOf('codes') < on.indexOf('kellogg'), `with containers: ${on.join(' ')}`);
  const off = ranking(view, q, { contains: 0 });
  const l = linkQuery(view, q);
  const paths = heuristicScores(view, l.seeds, relationWords(q, l.covered), { ...HEURISTIC_DEFAULTS, contains: 1 }).paths;
  const viaTitle = paths.find((p) => p.docs.includes('codes'));
  assert.equal(viaTitle?.steps.at(-1)?.relation, 'is named in the title of', JSON.stringify(viaTitle));
  assert.ok(off.indexOf('codes') < 0 || off.indexOf('codes') > on.indexOf('codes'), `without containers: ${off.join(' ')}`);
});

test('container bridge needs relation words the previous passage lacks (residual fit)', async () => {
  const view = await fixture();
  // "built" is in the church passage already and in no container: nothing to add, so no container bridge.
  const r = ranking(view, 'Who built the Atwater Congregational Church?', { contains: 1 });
  assert.ok(!r.includes('codes'), r.join(' '));
});

test('hub damping: a bridge through a common entity weighs less than one through a rare entity', async () => {
  const view = await fixture();
  const q = 'Who is the carpenter of the Atwater Congregational Church?';
  const damped = ranking(view, q, { hub: 1, contains: 0 });
  assert.ok(damped.indexOf('kellogg') >= 0 && damped.indexOf('us') >= 0, damped.join(' '));
  assert.ok(damped.indexOf('kellogg') < damped.indexOf('us'), `hub 1: ${damped.join(' ')}`);
  const l = linkQuery(view, q);
  const rel = relationWords(q, l.covered);
  const plain = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, hub: 0, contains: 0 }).docScores;
  const hub = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, hub: 1, contains: 0 }).docScores;
  const us = view.g.docs.findIndex((d) => d.id === 'us');
  assert.ok(hub.get(us)! < plain.get(us)!, 'the hub bridge loses weight');
});

test('cap: from the second hop on, a passage never outscores the bridged passage it was reached from', async () => {
  // Seed -> spouse (first hop) -> her father (second hop). With bridge 0.9 the second hop would outscore the first.
  const passages = [
    { id: 'duke', title: 'John Ernest', text: 'John Ernest was a duke. He married Christine Hesse in 1598.' },
    { id: 'wife', title: 'Christine Hesse', text: 'Christine Hesse was a noblewoman, a daughter of William Landgrave.' },
    { id: 'father', title: 'William Landgrave', text: 'William Landgrave was the father of Christine Hesse and a son of Philip.' },
  ];
  const view = graphView(await buildDualGraph(sourceFromPassages(passages, 'cap')));
  const q = 'Who is the father-in-law of John Ernest?';
  const l = linkQuery(view, q);
  const score = (cap: number) => {
    const s = heuristicScores(view, l.seeds, relationWords(q, l.covered), { ...HEURISTIC_DEFAULTS, cap, lexical: 0, hub: 0, bridge: 0.9 }).docScores;
    const by = (id: string) => s.get(view.g.docs.findIndex((d) => d.id === id)) ?? 0;
    return { wife: by('wife'), father: by('father') };
  };
  const capped = score(1);
  assert.ok(capped.wife > 0 && capped.father > 0, JSON.stringify(capped));
  assert.ok(capped.father <= capped.wife, `capped ${JSON.stringify(capped)}`);
  const free = score(0);
  assert.ok(free.father > free.wife, `uncapped ${JSON.stringify(free)}`);
});

test('prefix variants: a relation word also finds the corpus stems that share all but its last letter', async () => {
  const passages = [
    { id: 'seed', title: 'Izgoy', text: 'Izgoy is an album by the band Alisa from Russia.' },
    { id: 'war', title: 'Pacific War', text: 'In the Pacific War the Soviet Union invaded Manchuria in 1945.' },
    { id: 'other', title: 'Open Door Policy', text: 'The Open Door Policy concerned Manchuria and trade with China.' },
  ];
  const view = graphView(await buildDualGraph(sourceFromPassages(passages, 'prefix')));
  assert.ok(view.stemsWithPrefix('invad').includes('invad'), view.stemsWithPrefix('inv').join(' '));
  assert.deepEqual(view.stemsWithPrefix('zzz'), []);
  const q = 'When did Russia invade Manchuria?';
  const l = linkQuery(view, q);
  const rel = relationWords(q, l.covered);
  assert.ok(
    rel.some((w) => w.stems[0] === 'invade'),
    rel.map((w) => w.stems[0]).join(' '),
  );
  const war = view.g.docs.findIndex((d) => d.id === 'war');
  const other = view.g.docs.findIndex((d) => d.id === 'other');
  const on = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, prefix: 5 }).docScores;
  const off = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, prefix: 0 }).docScores;
  assert.ok(on.get(war)! > on.get(other)!, `prefix 5: ${on.get(war)} vs ${on.get(other)}`);
  assert.equal(off.get(war), off.get(other), 'without variants the two passages tie');
});

test('seedContains: a linked name that titles no passage stands for the passages whose titles contain it', async () => {
  const passages = [
    { id: 'ny', title: 'Rochester, New York', text: 'Rochester is a city on Lake Ontario in western New York.' },
    { id: 'ia', title: 'Rochester, Iowa', text: 'Rochester is a small city in Cedar County.' },
    { id: 'note', title: 'Kodak', text: 'Kodak was founded in Rochester by George Eastman.' },
    { id: 'x', title: 'Lake Ontario', text: 'Lake Ontario is one of the Great Lakes.' },
  ];
  const view = graphView(await buildDualGraph(sourceFromPassages(passages, 'seed-contains')));
  const q = 'What part of the state is Rochester in?';
  const l = linkQuery(view, q);
  const untitled = l.seeds.filter((x) => !view.titleDocsOf[x.entity].length);
  assert.ok(untitled.length > 0, `an untitled seed: ${l.seeds.map((x) => view.g.entityNames[x.entity]).join(', ')}`);
  const rel = relationWords(q, l.covered);
  const ny = view.g.docs.findIndex((d) => d.id === 'ny');
  const on = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, seedContains: 1 }).docScores;
  const off = heuristicScores(view, l.seeds, rel, { ...HEURISTIC_DEFAULTS, seedContains: 0 }).docScores;
  assert.ok((on.get(ny) ?? 0) > (off.get(ny) ?? 0), `on ${on.get(ny)} off ${off.get(ny)}`);
});
