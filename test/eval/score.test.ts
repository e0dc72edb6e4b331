/**
 * scoreAnswer / scoreAnswerWithJudge pick each benchmark's metrics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Question } from '../../lib/bench/types';
import { aggregateMmlongbench, scoreAnswer, scoreAnswerWithJudge } from '../../lib/eval/score';
import type { Embedder } from '../../lib/index/types';
import { fakeModel } from '../_shared/fake-model';

function q(over: Partial<Question>): Question {
  return {
    id: 'q',
    benchmark: 'm3docvqa',
    question: 'Q?',
    answer: 'Mask',
    format: 'span',
    goldDocs: ['d'],
    evidence: [],
    modality: ['text'],
    meta: {},
    ...over,
  };
}

test('EM/F1 family: m3docvqa, mmqa, musique (aliases), hotpotqa; 2wiki without gold answers gets only refused', () => {
  // M3DocVQA: the released scorer's em/f1, and the harness's list rule as emHarness/f1Harness.
  assert.deepEqual(scoreAnswer(q({}), 'mask'), { em: 1, f1: 1, emHarness: 1, f1Harness: 1, refused: 0 });
  assert.deepEqual(scoreAnswer(q({ benchmark: 'mmqa', answer: ['Mask', 'Junie Moon'], format: 'list' }), '["junie moon", "mask"]'), {
    em: 1,
    f1: 1,
    refused: 0,
  });
  assert.deepEqual(scoreAnswer(q({ benchmark: 'musique', answer: 'G. Stanley Hall', altAnswers: ['Stanley Hall'] }), 'Stanley Hall'), {
    em: 1,
    f1: 1,
    refused: 0,
  });
  assert.deepEqual(scoreAnswer(q({}), 'Insufficient information'), { em: 0, f1: 0, emHarness: 0, f1Harness: 0, refused: 1 });
  assert.deepEqual(scoreAnswer(q({ benchmark: '2wiki', answer: null }), 'Lothair'), { refused: 0 });
  // Demo world unanswerable questions: correct exactly when the answer refuses.
  assert.deepEqual(scoreAnswer(q({ benchmark: 'demo', answer: null, format: 'unanswerable' }), 'Not answerable'), { em: 1, f1: 1, refused: 1 });
  assert.deepEqual(scoreAnswer(q({ benchmark: 'demo', answer: null, format: 'unanswerable' }), 'Bob'), { em: 0, f1: 0, refused: 0 });
});

test('multihop-rag accuracy, including null questions', () => {
  assert.deepEqual(scoreAnswer(q({ benchmark: 'multihop-rag', answer: 'Yes', format: 'yes-no', type: 'comparison' }), 'Yes'), {
    acc: 1,
    f1: 1,
    em: 1,
    refused: 0,
  });
  assert.deepEqual(
    scoreAnswer(q({ benchmark: 'multihop-rag', answer: 'Insufficient information.', format: 'unanswerable', type: 'null' }), 'Insufficient information'),
    { acc: 1, f1: 1, em: 1, refused: 1 },
  );
  assert.deepEqual(scoreAnswer(q({ benchmark: 'multihop-rag', answer: 'Nike', type: 'inference' }), 'Insufficient information'), {
    acc: 0,
    f1: 0,
    em: 0,
    refused: 1,
  });
  // The runner's F1/EM beside the official accuracy: one shared token is correct, half the tokens is F1 2/3.
  const partial = scoreAnswer(q({ benchmark: 'multihop-rag', answer: 'Sam Bankman-Fried', type: 'inference' }), 'Bankman-Fried');
  assert.equal(partial.acc, 1);
  assert.equal(partial.em, 0);
  assert.ok(Math.abs(partial.f1 - 2 / 3) < 1e-12);
});

test('mmlongbench-doc: rule-based by answer format; refusals graded as "Not answerable"; official F1 from the parts', () => {
  const mm = (answerRaw: string, answerFormat: string, format: Question['format']) =>
    q({ benchmark: 'mmlongbench-doc', answer: answerRaw, format, meta: { answerRaw, answerFormat } });
  const float = mm('18.29%', 'Float', 'number');
  const none = mm('Not answerable', 'None', 'unanswerable');
  const list = mm("['White', '10%']", 'List', 'list');
  assert.deepEqual(scoreAnswer(float, '0.1829'), { acc: 1, goldAnswerable: 1, predAnswerable: 1, refused: 0 });
  assert.deepEqual(scoreAnswer(none, 'The document does not mention it'), { acc: 1, goldAnswerable: 0, predAnswerable: 0, refused: 1 });
  assert.deepEqual(scoreAnswer(none, 'The document does not mention it', { refusalAsNotAnswerable: false }), {
    acc: 0,
    goldAnswerable: 0,
    predAnswerable: 1,
    refused: 1,
  });
  assert.equal(scoreAnswer(list, '["10%", "White"]').acc, 1);
  const agg = aggregateMmlongbench([
    scoreAnswer(float, '18.29'),
    scoreAnswer(none, 'Not answerable'),
    scoreAnswer(list, 'Not answerable'),
    scoreAnswer(none, '42'),
  ]);
  assert.equal(agg.acc, 2 / 4);
  // recall 1/2 (answerable: float ok, list missed); precision 1/2 (answered: float, "42").
  assert.equal(agg.f1, 0.5);
});

test('webqa ROUGE-L, scienceqa accuracy', () => {
  // [a dome roof] vs [the roof is a dome]: LCS "a dome" = 2 -> P 2/3, R 2/5 -> F 0.5.
  assert.deepEqual(scoreAnswer(q({ benchmark: 'webqa', answer: 'The roof is a dome.' }), 'a dome roof'), { rougeL: 0.5, refused: 0 });
  const sqa = q({ benchmark: 'scienceqa', answer: 'future tense', meta: { choices: ['present tense', 'future tense'], answerIndex: 1 } });
  assert.deepEqual(scoreAnswer(sqa, 'B'), { acc: 1, refused: 0 });
  assert.deepEqual(scoreAnswer(sqa, 'present tense'), { acc: 0, refused: 0 });
});

test('scoreAnswerWithJudge: MMLongBench-Doc extraction then the official scorer; WebQA embedding F1; others as scoreAnswer', async () => {
  const judge = fakeModel(() => 'Extracted answer: 18.3\nAnswer format: Float', 'scripted');
  const calls = judge.calls;
  const float = q({ id: 'mmlb-9', benchmark: 'mmlongbench-doc', answer: '18.29%', format: 'number', meta: { answerRaw: '18.29%', answerFormat: 'Float' } });
  const r = await scoreAnswerWithJudge(float, 'about eighteen percent', { judge, fullText: 'Long analysis... FINAL ANSWER: about eighteen percent' });
  assert.equal(r.scores.acc, 1);
  assert.equal(r.scores.judgeFailed, 0);
  assert.equal(r.extraction!.pred, '18.3');
  assert.equal(calls[0].questionId, 'mmlb-9');
  assert.match(String(calls[0].messages[0].content), /Long analysis/);
  // Without a judge: the rule-based path ("about eighteen percent" is not a float).
  assert.equal((await scoreAnswerWithJudge(float, 'about eighteen percent')).scores.acc, 0);

  const emb: Embedder = {
    id: 'const',
    dim: 2,
    async embed(t) {
      return t.map(() => Float32Array.from([1, 0]));
    },
  };
  const web = await scoreAnswerWithJudge(q({ benchmark: 'webqa', answer: 'blue sky' }), 'green grass', { embedder: emb });
  assert.equal(web.scores.rougeL, 0);
  assert.equal(web.scores.tokenEmbF1, 1); // every token vector identical -> cosine 1
  assert.deepEqual((await scoreAnswerWithJudge(q({}), 'Mask')).scores, { em: 1, f1: 1, emHarness: 1, f1Harness: 1, refused: 0 });
});
