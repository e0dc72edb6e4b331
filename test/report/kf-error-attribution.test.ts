/**
 * Appendix G's two stages: a classifier, then a reviewer, and their agreement
 * (share and Cohen's kappa). The model stages over real HTTP (scripted
 * server: the requests carry the project's prompts, the replies set the
 * classes); the rule-based offline stages on records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  attributeErrors,
  attributionAgreement,
  modelClassifier,
  modelReviewer,
  ruleClassifier,
  ruleReviewer,
  type Attribution,
} from '../../lib/knowforge/reports/error-attribution';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import type { RunRecord } from '../../lib/run/records';
import { routerFor } from '../models/helpers';

const rec = (id: string, o: { modality?: string; hops?: number; f1?: number; refused?: number; docFound?: number; answerVisible?: number; reads?: number }) =>
  ({
    id,
    question: `question ${id}?`,
    gold: 'Paris',
    finalAnswer: 'Lyon',
    scores: { f1: o.f1 ?? 0, ...(o.refused !== undefined ? { refused: o.refused } : {}) },
    retrieval: { docFound: o.docFound ?? 1, answerVisible: o.answerVisible ?? 1 },
    counters: { reads: o.reads ?? 0, searches: 2 },
    buckets: { modality: [o.modality ?? 'text'], hops: [String(o.hops ?? 1)] },
  }) as unknown as RunRecord;

test('rule-based stages: classes from the record, a reviewer that may disagree, agreement and kappa', async () => {
  const recs = [
    rec('f', { refused: 1 }),
    rec('e', { f1: 0.4 }),
    rec('d', { hops: 2, docFound: 0 }),
    rec('c', { modality: 'image' }),
    rec('b', { modality: 'table' }),
    rec('a', {}),
    rec('a2', { modality: 'image', reads: 0, answerVisible: 1 }),
  ];
  const rows = await attributeErrors(recs, { classify: ruleClassifier, review: ruleReviewer });
  assert.deepEqual(
    rows.map((r) => r.classifier),
    ['F', 'E', 'D', 'C', 'B', 'A', 'C'],
  );
  assert.ok(
    rows.every((r) => r.agree),
    'the counters support each class here',
  );
  const disagree = await attributeErrors([rec('x', { modality: 'text', reads: 2, answerVisible: 0 })], {
    classify: async () => ({ class: 'C', reason: 'r' }),
    review: ruleReviewer,
  });
  assert.deepEqual([disagree[0].classifier, disagree[0].reviewer, disagree[0].agree], ['C', 'A', false]);
});

test('agreement: share and Cohen kappa', () => {
  const row = (c: string, r: string): Attribution => ({ id: c + r, classifier: c, reviewer: r, agree: c === r, classifierReason: '', reviewerReason: '' });
  const a = attributionAgreement([row('A', 'A'), row('A', 'A'), row('B', 'B'), row('B', 'A')]);
  assert.equal(a.n, 4);
  assert.equal(a.agreed, 3);
  assert.equal(a.share, 0.75);
  // Classifier A 0.5, B 0.5; reviewer A 0.75, B 0.25: chance agreement 0.5*0.75 + 0.5*0.25 = 0.5, kappa (0.75-0.5)/(1-0.5) = 0.5.
  assert.ok(Math.abs(a.kappa! - 0.5) < 1e-12);
  assert.deepEqual(attributionAgreement([]), { n: 0, agreed: 0, share: null, kappa: null });
});

test('model stages over HTTP: the prompts carry the failure, the replies set the classes', async () => {
  const server = await ScriptedServer.start();
  server.on({ model: 'cls', match: (r) => JSON.stringify(r.body).includes('Decide what went wrong'), reply: { text: '{"class": "c", "reason": "an image"}' } });
  server.on({
    model: 'cls',
    match: (r) => JSON.stringify(r.body).includes('First reviewer'),
    reply: { text: '{"agree": false, "class": "A", "reason": "read"}' },
  });
  const router = routerFor(server, { stages: { judge: { model: 'cls' } } });
  try {
    const model = router.forStage('judge');
    const rows = await attributeErrors([rec('q1', { modality: 'image' })], { classify: modelClassifier(model), review: modelReviewer(model) });
    assert.deepEqual([rows[0].classifier, rows[0].reviewer, rows[0].agree], ['C', 'A', false]);
    const bodies = server.requests.map((r) => JSON.stringify(r.body));
    assert.equal(bodies.length, 2);
    assert.match(bodies[0], /Gold answer: Paris/);
    assert.match(bodies[0], /System answer: Lyon/);
    assert.match(bodies[1], /First reviewer's class: C \(image not read/);
  } finally {
    await router.close();
    await server.close();
  }
});
