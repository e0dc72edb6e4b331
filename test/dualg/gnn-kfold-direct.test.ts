/**
 * gnn-kfold-direct (issue 18, the GNN target): each fold fine-tunes the UNTRAINED prior-conditioned model on the
 * other folds' dev questions only, and its inner validation may keep epoch 0. When no epoch beats the starting
 * model on the inner split, the fold model is the untrained one, so it ranks exactly as the heuristic; the method
 * appears in the per-corpus (scorer and retriever level) and pooled reports. Also: `kf train gnn`'s queries and
 * retriever rows use the index's benchmark choice (bench-settings.ts), as the shipped retriever does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildDualGraph } from '../../lib/dualg/graph/build';
import { sourceFromPassages } from '../../lib/dualg/graph/source';
import { corpusData, trainFolds, type CorpusRunOptions } from '../../lib/dualg/train/corpus-run';
import { querySettings } from '../../lib/dualg/train/query-adapter';
import { compareOnDev, METHODS } from '../../lib/dualg/train/compare';
import { compareRetrievers, RETRIEVER_METHODS } from '../../lib/dualg/train/retriever-compare';
import { pooledMarkdown, pooledReport } from '../../lib/dualg/train/pooled-report';
import { attachHybridEvidence, kbHybridSearch } from '../../lib/dualg/train/hybrid-evidence';
import { readCheckpoint } from '../../lib/dualg/train/checkpoint';
import { GnnModel } from '../../lib/dualg/gnn/model';
import { BENCH_CHOICES, withChoice } from '../../lib/dualg/bench-settings';
import { FILM_PASSAGES } from './film-world.helper';
import { passageKb } from './passage-kb.helper';

/** Questions the heuristic already ranks perfectly (R@2 = R@5 = 1): no fine-tuning can beat epoch 0 on them. */
const SOLVED = [
  { id: 'd1', question: 'Where was the director of The Copper Lantern born?', goldDocs: ['p1', 'p3'] },
  { id: 'd3', question: 'Were The Copper Lantern and Harbour of Ash directed by the same person?', goldDocs: ['p1', 'p2'] },
  { id: 'd5', question: 'Who directed The Copper Lantern?', goldDocs: ['p1'] },
  { id: 'd6', question: 'Who directed Harbour of Ash?', goldDocs: ['p2'] },
];

function options(dir: string, graph: CorpusRunOptions['graph']): CorpusRunOptions {
  return {
    name: 'fixture',
    graph,
    passages: new Map(FILM_PASSAGES.map((p) => [p.id, p.text])),
    questions: SOLVED,
    out: dir,
    checkpoints: path.join(dir, 'ck'),
    seed: 9,
    folds: 2,
    kgExamples: 0,
    syntheticExamples: 0,
    queries: 'generated',
    generatedExamples: 0,
    pretrainEpochs: 0,
    epochs: 0,
    foldEpochs: 1,
    // A large step, so epoch 1 does change the weights: what keeps the untrained model is the selection, not a no-op.
    learningRate: 0.5,
    config: { layers: 2, hidden: 8 },
    log: () => {},
  };
}

test('gnn-kfold-direct: inner validation not better -> epoch 0 kept, the untrained model, ranking = heuristic; in every report', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-direct-'));
  const o = options(dir, await buildDualGraph(sourceFromPassages(FILM_PASSAGES, 'direct-fixture')));
  const d = corpusData(o);
  assert.equal(d.dev.length, SOLVED.length, 'every question linked');
  const kb = passageKb(FILM_PASSAGES);
  await attachHybridEvidence(d.dev, d.gg.docIds, kbHybridSearch(kb));
  // Precondition of the test: the heuristic ranks every question's gold first (else epoch 1 could win).
  const base = new GnnModel(d.config);
  const heur = compareOnDev(o, d, base, { models: [base, base], foldOf: new Map(d.dev.map((e, i) => [e.id, i % 2])) });
  assert.ok(
    heur.perQuestion.heuristic.every((q) => q.r2 === 1 && q.r5 === 1),
    JSON.stringify(heur.perQuestion.heuristic),
  );
  const direct = await trainFolds(o, d, 'untrained');
  assert.deepEqual(direct.chosenEpochs, [0, 0], 'each fold keeps epoch 0');
  const untrained = await base.getWeights();
  for (const [f, m] of direct.models.entries()) {
    const w = await m.getWeights();
    for (const [k, v] of untrained) assert.deepEqual(w.get(k)!.values, v.values, `fold ${f}: ${k} is the untrained model's`);
    // Epoch 1 did train (the last checkpoint moved), and was not kept.
    const last = readCheckpoint(path.join(o.checkpoints, 'kfold-direct', `fixture-fold-${f}`, 'last')).params;
    assert.ok(
      [...untrained].some(([k, v]) => last.get(k)!.values.some((x, i) => x !== v.values[i])),
      `fold ${f}: epoch 1 changed the weights`,
    );
    assert.match(String(readCheckpoint(path.join(o.checkpoints, 'kfold-direct', `fixture-fold-${f}`, 'best')).manifest.stats?.trainedOn), /from the untrained/);
  }
  const cmp = compareOnDev(o, d, base, { models: [base, base], foldOf: direct.foldOf }, direct);
  assert.ok(METHODS.includes('gnn-kfold-direct'));
  assert.deepEqual(
    cmp.perQuestion['gnn-kfold-direct'].map(({ id, r2, r5, allFound8 }) => ({ id, r2, r5, allFound8 })),
    cmp.perQuestion.heuristic.map(({ id, r2, r5, allFound8 }) => ({ id, r2, r5, allFound8 })),
  );
  assert.equal(cmp.paired['gnn-kfold-direct vs heuristic'].r5.tied, SOLVED.length);
  const ret = await compareRetrievers(o, d, kb, base, { models: [base, base], foldOf: direct.foldOf }, direct);
  assert.ok(RETRIEVER_METHODS.includes('dualg-gnn-kfold-direct'));
  assert.deepEqual(
    ret.perQuestion['dualg-gnn-kfold-direct'],
    ret.perQuestion['dualg-heuristic'],
    'the retriever with the kept model ranks as the heuristic retriever',
  );
  assert.equal(ret.paired['dualg-gnn-kfold-direct vs dualg-heuristic'].r5.tied, SOLVED.length);
  const perQuestion = { ...cmp.perQuestion, ...ret.perQuestion };
  const pooled = pooledReport([
    { bench: 'a', perQuestion },
    { bench: 'b', perQuestion },
  ]);
  assert.equal(pooled.pooled.paired['dualg-gnn-kfold-direct vs dualg-heuristic'].r5.n, 2 * SOLVED.length);
  assert.equal(pooled.pooled.paired['gnn-kfold-direct vs heuristic'].r5.n, 2 * SOLVED.length);
  assert.match(pooledMarkdown(pooled), /\| dualg-gnn-kfold-direct vs dualg-heuristic \|/);
  // Without direct fold models the method is absent, never filled in.
  assert.ok(!('gnn-kfold-direct' in compareOnDev(o, d, base, { models: [base, base], foldOf: direct.foldOf }).means));
  for (const m of direct.models) m.dispose();
  base.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('kf train gnn links queries with the benchmark choice the shipped retriever runs (MuSiQue partialLink 0.5)', () => {
  assert.equal(querySettings({}).partialLink, 0, 'no benchmark choice: the defaults');
  const chosen = withChoice({}, BENCH_CHOICES.musique);
  assert.equal(querySettings({ settings: chosen.settings }).partialLink, 0.5);
  assert.equal(querySettings({ settings: withChoice({ partialLink: 0 }, BENCH_CHOICES.musique).settings }).partialLink, 0, 'an explicit setting wins');
});
