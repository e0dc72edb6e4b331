/**
 * Bulk demo-world training questions (lib/demo/bulk) and the demo training data
 * (lib/dualg/train/demo-data.ts) on the tiny preset, in memory and temp dirs:
 * deterministic for a seed, never an evaluation question, answerable from the
 * world, and the evaluation questions never reach the training examples.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planWorld, documentFragments } from '../../lib/demo';
import { bulkQuestions, normaliseQuestionText, templateGoldKey } from '../../lib/demo/bulk/bulk-questions';
import { buildDualGraph, type GraphSource } from '../../lib/dualg/graph/build';
import { demoData, passagesOf, trainOnDemo, type DemoTrainOptions } from '../../lib/dualg/train/demo-data';
import { checkpointExists } from '../../lib/dualg/train/checkpoint';
import { findCheckpointFor } from '../../lib/dualg/gnn';
import { gnnGraphFingerprint } from '../../lib/dualg/train/fingerprint';
import type { Fragment } from '../../lib/corpus/types';

const tiny = () => planWorld({ preset: 'tiny' }, true);

test('bulk questions: the same seed gives the same questions, another seed other instantiations', () => {
  const a = bulkQuestions(tiny(), { seed: 's1', rounds: 3 });
  const b = bulkQuestions(tiny(), { seed: 's1', rounds: 3 });
  const c = bulkQuestions(tiny(), { seed: 's2', rounds: 3 });
  assert.ok(a.questions.length > 50, `only ${a.questions.length} bulk questions on tiny`);
  assert.equal(JSON.stringify(a), JSON.stringify(b));
  const texts = (x: typeof a) => x.questions.map((q) => q.question).sort();
  assert.notDeepEqual(texts(a), texts(c), 'other years, partners and probes, not only another order');
  const capped = bulkQuestions(tiny(), { seed: 's1', rounds: 3, max: 20 });
  assert.equal(capped.questions.length, 20);
  assert.equal(capped.dropped.overMax, a.questions.length - 20);
});

test('bulk questions never repeat an evaluation question (normalised text, or template + gold documents)', () => {
  const w = tiny();
  const before = JSON.stringify(w.world.questions);
  const { questions, dropped } = bulkQuestions(w, { seed: 'disjoint', rounds: 4 });
  assert.equal(JSON.stringify(w.world.questions), before, 'the evaluation questions are not touched');
  assert.ok(w.world.questions.length > 0 && questions.length > 0);
  // Both rules fire on tiny: lookups come back with the same text, yes/no probes with another year.
  assert.ok(dropped.sameTextAsEvaluation > 0 && dropped.sameTemplateAndGoldAsEvaluation > 0, JSON.stringify(dropped));
  const evalTexts = new Set(w.world.questions.map((q) => normaliseQuestionText(q.question)));
  const evalKeys = new Set(w.world.questions.map(templateGoldKey));
  const evalIds = new Set(w.world.questions.map((q) => q.id));
  for (const q of questions) {
    assert.ok(!evalTexts.has(normaliseQuestionText(q.question)), q.question);
    assert.ok(!evalKeys.has(templateGoldKey(q)), `${q.question} has an evaluation question's template and gold documents`);
    assert.ok(!evalIds.has(q.id));
  }
  assert.equal(new Set(questions.map(templateGoldKey)).size, questions.length, 'each (template, gold documents) once');
  assert.equal(new Set(questions.map((q) => q.id)).size, questions.length);
  assert.equal(normaliseQuestionText('Was  X founded before 1990?'), normaliseQuestionText('was x founded before 1990'));
});

test('bulk questions are answerable: gold documents exist and each evidence fact is where the world put it', () => {
  const w = tiny();
  const docs = new Set(w.world.docs.map((d) => d.id));
  const { questions } = bulkQuestions(w, { seed: 'answerable', rounds: 2 });
  let facts = 0;
  for (const q of questions) {
    assert.ok(q.goldDocs.length > 0, q.question);
    for (const d of q.goldDocs) assert.ok(docs.has(d), `${q.question}: gold document ${d} is not in the world`);
    for (const e of q.evidence ?? []) assert.ok(q.goldDocs.includes(e.doc));
    for (const step of (q.meta?.chain ?? []) as { entity: string; key: string; doc: string; value: string }[]) {
      const f = w.world.facts[`${step.entity}.${step.key}`];
      assert.ok(f, `${q.question}: fact ${step.entity}.${step.key} is not in the world`);
      assert.equal(f.doc, step.doc);
      assert.ok(q.goldDocs.includes(f.doc));
      facts++;
    }
  }
  assert.ok(facts > questions.length, 'chains were checked');
});

/** The tiny world's fragments as a graph source, without rendering files (lib/demo/fragments.ts). */
function tinySource(w: ReturnType<typeof tiny>): GraphSource {
  const by = new Map<string, Fragment[]>(w.world.docs.map((d) => [d.id, documentFragments(d)]));
  return {
    id: 'demo-tiny',
    fingerprint: 'demo-tiny',
    documents: () => w.world.docs.map((d) => ({ id: d.id, title: d.title })),
    fragmentsOf: (d) => by.get(d) ?? [],
  };
}

test('demo training data keeps the evaluation questions out of training; checkpoints land where the retriever looks (baseline not)', async () => {
  const w = tiny();
  const source = tinySource(w);
  const graph = await buildDualGraph(source);
  const bulk = bulkQuestions(w, { seed: 'train', rounds: 2, max: 24 }).questions;
  const ref = (q: { id: string; question: string; goldDocs: string[] }) => ({ id: q.id, question: q.question, goldDocs: q.goldDocs });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-demo-train-'));
  try {
    const o: DemoTrainOptions = {
      name: 'demo-tiny',
      graph,
      passages: passagesOf(source),
      bulk: bulk.map(ref),
      evaluation: w.world.questions.map(ref),
      checkpoints: dir,
      seed: 7,
      kgExamples: 8,
      syntheticExamples: 8,
      validationShare: 0.25,
      pretrainEpochs: 1,
      epochs: 1,
      config: { layers: 1, hidden: 8, maxActiveEdges: 400 },
      log: () => {},
    };
    const d = demoData(o);
    assert.ok(d.bulkTrain.length > 0 && d.bulkVal.length > 0 && d.dev.length > 0, `train ${d.bulkTrain.length} val ${d.bulkVal.length} eval ${d.dev.length}`);
    const evalIds = new Set(w.world.questions.map((q) => q.id));
    for (const ex of [...d.bulkTrain, ...d.bulkVal, ...d.synTrain, ...d.kg]) assert.ok(!evalIds.has(ex.id), `${ex.id} is an evaluation question`);
    assert.equal(new Set([...d.bulkTrain, ...d.bulkVal].map((e) => e.id)).size, d.bulkTrain.length + d.bulkVal.length, 'validation split apart');
    assert.ok([...passagesOf(source).values()].every((t) => t.length > 0));
    const trained = await trainOnDemo(o, d, true);
    const baseline = await trainOnDemo(o, d, false);
    assert.ok(checkpointExists(path.join(trained.dir, 'last')) && checkpointExists(path.join(baseline.dir, 'last')));
    assert.ok(
      trained.history.some((h) => h.phase === 'finetune' && h.monitor && h.val),
      'evaluation measured per epoch',
    );
    const found = findCheckpointFor(dir, gnnGraphFingerprint(d.gg));
    assert.ok(found?.startsWith(path.join(dir, 'demo-tiny')), `the retriever finds ${found}`);
    trained.model.dispose();
    baseline.model.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
