/**
 * Question-shaped training queries generated from a corpus's own graph (issue 18, item 6): deterministic by
 * seed, well formed, gold = the passages the edges were read from, no benchmark question text; and a small
 * end-to-end training of the base model on them with the per-question comparison and pooled report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { graphView } from '../../lib/dualg/query/graph-view';
import { generatedExamples, generateQueries, type GeneratedQuery } from '../../lib/dualg/train/generated-queries';
import { TEMPLATE_FORMS } from '../../lib/dualg/train/question-templates';
import { corpusData, trainBase, trainFolds, type CorpusRunOptions } from '../../lib/dualg/train/corpus-run';
import { compareOnDev } from '../../lib/dualg/train/compare';
import { compareOnHeldOut } from '../../lib/dualg/train/held-out-generated';
import { pooledMarkdown, pooledReport } from '../../lib/dualg/train/pooled-report';
import { readCheckpoint } from '../../lib/dualg/train/checkpoint';
import type { DualGraph } from '../../lib/dualg/graph/types';
import { makeRng } from '../../lib/util/rng';
import { benchDir } from '../../lib/util/paths';
import { kfInProcess as kf } from '../_shared/cli-in-process';
import { gnnConfig } from '../../lib/dualg/gnn/config';
import { trainGnn } from '../../lib/dualg/train/trainer';
import { toyExamples, toyGraph, TOY_DIM } from './gnn-toy';
import { FILM_PASSAGES } from './film-world.helper';
import { passageKb } from './passage-kb.helper';
import { attachHybridEvidence, kbHybridSearch } from '../../lib/dualg/train/hybrid-evidence';
import { compareRetrievers } from '../../lib/dualg/train/retriever-compare';

const PASSAGES = FILM_PASSAGES;
const text = (g: DualGraph) => (d: number) => PASSAGES.find((p) => p.id === g.docs[d].id)?.text;
const graph = () => buildDualGraph(sourceFromPassages(PASSAGES, 'generated-fixture'));

test('generated queries: same seed same queries, another seed other ones; every shape appears', async () => {
  const g = await graph();
  const a = generateQueries(g, text(g), makeRng(5), 40);
  const b = generateQueries(g, text(g), makeRng(5), 40);
  const c = generateQueries(g, text(g), makeRng(6), 40);
  assert.ok(a.length >= 10, `generated ${a.length}`);
  assert.deepEqual(a, b);
  assert.notDeepEqual(
    a.map((q) => q.text),
    c.map((q) => q.text),
  );
  const kinds = new Set(a.map((q) => q.kind));
  for (const k of ['bridge-2', 'comparison-1'] as const) assert.ok(kinds.has(k), `shape ${k} in ${[...kinds].join(', ')}`);
});

/** Each edge is a triple of the graph read from the passage it names as gold; a bridge is a chain through distinct passages. */
function assertEdgesAreTheGold(g: DualGraph, q: GeneratedQuery): void {
  for (const e of q.edges) {
    assert.ok(
      g.triples.some((t) => t.head === e.head && t.tail === e.tail && t.doc === e.doc),
      `${q.id}: edge ${e.head}->${e.tail} is a triple of passage ${e.doc}`,
    );
  }
  assert.deepEqual([...q.goldDocs].sort(), [...new Set(q.edges.map((e) => e.doc))].sort(), `${q.id}: gold = the edges' passages`);
  if (q.kind.startsWith('bridge')) {
    assert.equal(q.edges.length, q.kind === 'bridge-3' ? 3 : 2);
    q.edges.slice(1).forEach((e, i) => assert.equal(e.head, q.edges[i].tail, `${q.id}: hop ${i + 1} starts where hop ${i} ended`));
    assert.equal(new Set(q.edges.map((e) => e.doc)).size, q.edges.length, `${q.id}: one passage per hop`);
  } else {
    assert.equal(q.seeds.length, 2);
    const n = q.edges.length / 2;
    for (let i = 0; i < n; i++) assert.equal(q.edges[i].key, q.edges[n + i].key, `${q.id}: both sides take the same relation at hop ${i}`);
  }
}

test("generated queries: well formed, seeds named, answers and bridges not, gold = the edges' source passages", async () => {
  const g = await graph();
  const qs = generateQueries(g, text(g), makeRng(11), 60);
  for (const q of qs) {
    assert.match(q.text, /^[A-Z].*[?.]$/, `${q.id}: "${q.text}"`);
    assert.doesNotMatch(q.text, /\{\w\}/, `${q.id}: no placeholder left`);
    for (const s of q.seeds) assert.ok(q.text.includes(g.entityNames[s]), `${q.id}: names its seed ${g.entityNames[s]}`);
    for (const h of q.hidden.filter((x) => !q.seeds.includes(x))) assert.ok(!q.text.includes(g.entityNames[h]), `${q.id}: does not name ${g.entityNames[h]}`);
    assertEdgesAreTheGold(g, q);
  }
  // Relation words come out in the passage's surface form ("directed", not the stem "direct").
  assert.ok(
    qs.some((q) => /\bdirected\b/.test(q.text)),
    qs.map((q) => q.text).join('\n'),
  );
  const { examples, dropped } = generatedExamples(graphView(g), qs);
  assert.equal(examples.length + dropped, qs.length);
  for (const ex of examples) {
    const q = qs.find((x) => x.id === ex.id)!;
    assert.deepEqual(Array.from(ex.targetDocs!), q.goldDocs);
    assert.ok(Math.abs(ex.query.seedWeights.reduce((x, y) => x + y, 0) - 1) < 1e-5);
  }
});

const DEV_FILES = ['2wiki', 'hotpotqa', 'musique'].map((b) => benchDir('text-multihop', `${b}_questions.dev.json`));
const devAbsent = DEV_FILES.some((f) => !fs.existsSync(f)) ? `benchmark dev questions absent under ${benchDir('text-multihop')}` : false;

test('generated queries: no dev question text, no template phrase taken from a dev question', { skip: devAbsent }, async () => {
  const dev = DEV_FILES.flatMap((f) => (JSON.parse(fs.readFileSync(f, 'utf8')) as { question: string }[]).map((q) => q.question.toLowerCase()));
  assert.ok(dev.length > 100);
  const g = await graph();
  for (const q of generateQueries(g, text(g), makeRng(3), 60)) assert.ok(!dev.includes(q.text.toLowerCase()), q.text);
  // The fixed wording between placeholders: no run of four or more words of it occurs in a dev question.
  for (const form of TEMPLATE_FORMS) {
    for (const part of form.split(/\{\w\}/)) {
      const words = part.toLowerCase().match(/[a-z']+/g) ?? [];
      if (words.length < 4) continue;
      const phrase = words.join(' ');
      assert.ok(!dev.some((d) => (d.match(/[a-z']+/g) ?? []).join(' ').includes(phrase)), `template phrase "${phrase}" occurs in a dev question`);
    }
  }
});

test('generated queries: a small base model trains on them (no dev question), is compared per question and pooled', async () => {
  const g = await graph();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gen-train-'));
  const o: CorpusRunOptions = {
    name: 'fixture',
    graph: g,
    passages: new Map(PASSAGES.map((p) => [p.id, p.text])),
    questions: [
      { id: 'd1', question: 'Where was the director of The Copper Lantern born?', goldDocs: ['p1', 'p3'] },
      { id: 'd2', question: 'Which country is the birthplace of the director of Harbour of Ash in?', goldDocs: ['p2', 'p4', 'p6'] },
      { id: 'd3', question: 'Were The Copper Lantern and Harbour of Ash directed by the same person?', goldDocs: ['p1', 'p2'] },
      { id: 'd4', question: 'Where was the husband of Mirela Oskarsdottir born?', goldDocs: ['p3', 'p7'] },
    ],
    out: dir,
    checkpoints: path.join(dir, 'ck'),
    seed: 9,
    folds: 2,
    kgExamples: 8,
    syntheticExamples: 0,
    queries: 'generated',
    generatedExamples: 30,
    pretrainEpochs: 1,
    epochs: 2,
    foldEpochs: 0,
    config: { layers: 2, hidden: 8 },
    log: () => {},
  };
  const d = corpusData(o);
  assert.ok(d.synTrain.length + d.synVal.length > 0 && d.synTrain.every((e) => e.id.startsWith('gen-')), 'the base model trains on generated queries only');
  assert.ok(!d.synTrain.some((e) => e.id.startsWith('d')), 'no dev question among them');
  const base = await trainBase(o, d);
  assert.equal(base.history.filter((h) => h.phase === 'finetune').length, 2);
  assert.ok(base.history.every((h) => Number.isFinite(h.meanLoss)));
  const ck = readCheckpoint(path.join(o.checkpoints, 'fixture-base', 'last'));
  assert.match(String(ck.manifest.stats?.trainedOn), /generated questions \(no dev question\)/);
  const folds = await trainFolds(o, d);
  const cmp = compareOnDev(o, d, base.model, folds);
  assert.equal(cmp.perQuestion.heuristic.length, 4);
  assert.ok(cmp.paired['gnn-base vs heuristic'].r5.n === 4, 'the base model is paired with the heuristic on every question');
  const held = compareOnHeldOut(d, base.model);
  assert.equal(held.n, d.synVal.length, 'every held-out generated query is scored by both');
  assert.equal(held.r5.won + held.r5.lost + held.r5.tied, held.n);
  // The retriever level: the dualg retriever with each scorer, every question searched (hybrid fallback included).
  const kb = passageKb(PASSAGES);
  assert.equal(
    await attachHybridEvidence([...d.synTrain, ...d.synVal, ...d.dev], d.gg.docIds, kbHybridSearch(kb)),
    d.synTrain.length + d.synVal.length + d.dev.length,
  );
  const retrievers = await compareRetrievers(o, d, kb, base.model, folds);
  for (const m of ['dualg-heuristic', 'dualg-gnn-base', 'dualg-gnn-kfold'] as const) assert.equal(retrievers.perQuestion[m].length, 4, m);
  assert.equal(retrievers.paired['dualg-gnn-kfold vs dualg-heuristic'].r5.n, 4);
  const perQuestion = { ...cmp.perQuestion, ...retrievers.perQuestion };
  const pooled = pooledReport([
    { bench: 'a', perQuestion },
    { bench: 'b', perQuestion },
  ]);
  assert.equal(pooled.pooled.paired['dualg-gnn-base vs dualg-heuristic'].r5.n, 8, 'retriever-level rows pooled beside the scorer-level ones');
  // A report written before the retriever level existed: its pooled table leaves that level out.
  assert.ok(!('dualg-gnn-base vs dualg-heuristic' in pooledReport([{ bench: 'a', perQuestion: cmp.perQuestion }]).pooled.paired));
  assert.equal(pooled.pooled.n, 8);
  const p = pooled.pooled.paired['gnn-base vs heuristic'].r2;
  assert.equal(p.won + p.lost + p.tied, 8);
  assert.equal(p.won, 2 * pooled.corpora[0].paired['gnn-base vs heuristic'].r2.won);
  assert.match(pooledMarkdown(pooled), /pooled over a, b \(n = 8\)/);
  // The same through the command, from report files as kf train gnn writes them.
  const files = ['a', 'b'].map((bench) => {
    const f = path.join(dir, `${bench}-gnn.json`);
    fs.writeFileSync(f, JSON.stringify({ kind: 'dualg-gnn-training-report', bench, baseQueries: d.baseQueries, perQuestion: cmp.perQuestion }));
    return f;
  });
  const r = await kf(['train', 'gnn', 'pool', ...files, '--out', path.join(dir, 'pooled')]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /pooled over a, b \(n = 8\)/);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'pooled', 'pooled-gnn.json'), 'utf8')).pooled.n, 8);
  const bad = await kf(['train', 'gnn', 'pool', path.join(dir, 'ck', 'nothing.json')]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.err, /nothing\.json/);
  base.model.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('kf train gnn names --queries (generated by default) in its usage', async () => {
  const r = await kf(['train', 'gnn', '--help']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out + r.err, /--queries[^\n]*generated/);
});

test('a checkpoint trained on other queries is not resumed: the run is refused, naming both', async () => {
  const g = toyGraph(3);
  const ex = toyExamples(3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-gen-resume-'));
  const config = gnnConfig({ inputDim: TOY_DIM, numRelations: 6, layers: 2, hidden: 8, seed: 1 });
  const run = (trainedOn: string, epochs: number) => trainGnn({ graph: g, config, dir, batchSize: 4, finetune: { epochs, examples: ex }, trainedOn });
  (await run('toy: 6 synthetic link queries', 1)).model.dispose();
  await assert.rejects(run('toy: 6 generated questions', 2), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'gnn_checkpoint_mismatch');
    assert.match(e.message, /synthetic link queries.*generated questions/);
    return true;
  });
  (await run('toy: 6 synthetic link queries', 2)).model.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});
