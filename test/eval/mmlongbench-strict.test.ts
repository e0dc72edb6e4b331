/**
 * MMLongBench-Doc with a judge: the official pipeline's accuracy and F1 (judge
 * extraction, then the rule-based scorer) and, beside them, the strict pair
 * (the rule-based scorer on the FINAL ANSWER as written, no extraction).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MMLONGBENCH_DOC } from '../../lib/bench/benchmarks/mmlongbench-doc';
import type { Question } from '../../lib/bench/types';
import { fakeModel } from '../_shared/fake-model';

const judge = (text: string) => fakeModel(() => text, 'j');

const q = (id: string, answer: string, format: string): Question =>
  ({
    id,
    benchmark: 'mmlongbench-doc',
    question: 'q?',
    answer,
    format: 'span',
    goldDocs: [],
    evidence: [],
    modality: [],
    meta: { answer_format: format, answerFormat: format },
  }) as unknown as Question;

test('strict accuracy and F1 stay beside the judged ones', async () => {
  const spec = MMLONGBENCH_DOC;
  const cases = [
    // FINAL ANSWER "about 12 units": strict 0, the judge extracts "12" -> 1.
    { q: q('a', '12', 'Int'), final: 'about 12 units', extracted: 'Extracted answer: 12\nAnswer format: Integer' },
    // The same right value either way.
    { q: q('b', 'Paris', 'Str'), final: 'Paris', extracted: 'Extracted answer: Paris\nAnswer format: String' },
  ];
  const scored = [];
  for (const c of cases) {
    const base = spec.score(c.q, c.final, 0, {});
    const r = await spec.judgeScore!(c.q, c.final, { ...base, refused: 0 }, { judge: judge(c.extracted) });
    scored.push(r!.scores);
  }
  assert.equal(scored[0].acc, 1);
  assert.equal(scored[0].ruleAcc, 0);
  assert.equal(scored[1].ruleAcc, 1);
  const agg = spec.aggregate!(scored);
  assert.equal(agg.acc, 1);
  assert.equal(agg.ruleAcc, 0.5);
  assert.equal(agg.ruleF1, 0.5);
  assert.equal(spec.aggregate!(scored.map(({ ruleAcc: _s, ...rest }) => rest)).ruleAcc, undefined, 'without a judge: the official pair only');
});
