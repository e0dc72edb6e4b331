/**
 * Answer metrics against hand-worked examples of each benchmark's rules.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFinalAnswer, isRefusal, refusalRate } from '../../lib/eval/metrics/final-answer';
import { normalizeAnswer, parseAnswerList } from '../../lib/eval/metrics/normalize';
import { alignedListF1, bestAlignmentSum, emF1, tokenF1 } from '../../lib/eval/metrics/em-f1';
import { multihopRagCorrect } from '../../lib/eval/metrics/multihop-rag';
import { rougeL, rougeLMax } from '../../lib/eval/metrics/rouge';
import { embeddingF1 } from '../../lib/eval/metrics/bertscore';
import { scienceqaBreakdown, scienceqaChoice, scienceqaCorrect } from '../../lib/eval/metrics/scienceqa';
import type { Embedder } from '../../lib/index/types';
import type { Question } from '../../lib/bench/types';

const close = (a: number, b: number, eps = 1e-9) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);

test('extractFinalAnswer takes the LAST FINAL ANSWER line (bold tolerated); none -> whole text, or "" when strict', () => {
  const text = 'Reasoning [1].\nFINAL ANSWER: draft\nMore checking.\n**FINAL ANSWER:** Mask\n';
  assert.equal(extractFinalAnswer(text), 'Mask');
  assert.equal(extractFinalAnswer('final answer: ["a", "b"]'), '["a", "b"]');
  assert.equal(extractFinalAnswer('  just prose  '), 'just prose');
  assert.equal(extractFinalAnswer('just prose', { strict: true }), '');
});

test('refusals are detected (and count as empty); ordinary answers are not', () => {
  for (const r of [
    'Insufficient information.',
    'Not answerable',
    'The documents do not mention it',
    'I cannot determine this from the materials',
    'unknown',
    'N/A',
    '',
    'No information is provided',
  ]) {
    assert.ok(isRefusal(r), r);
  }
  for (const a of ['Mask', 'No', 'None of the above', '1,200', 'Not a mammal', 'The answer is unknowable? No: 1985']) assert.ok(!isRefusal(a), a);
  assert.equal(refusalRate(['Mask', 'unknown', 'Yes', 'Not answerable']), 0.5);
  assert.equal(refusalRate([]), 0);
});

test('normalisation: lowercase, punctuation -> space, drop a/an/the, collapse spaces', () => {
  assert.equal(normalizeAnswer('The  Eiffel-Tower!'), 'eiffel tower');
  assert.equal(normalizeAnswer('An apple a day'), 'apple day');
  assert.equal(normalizeAnswer('Tell Me That You Love Me, Junie Moon'), 'tell me that you love me junie moon');
  assert.equal(normalizeAnswer('1,200'), '1 200');
  assert.equal(normalizeAnswer('Théa'), 'théa');
});

test('[...] predictions are lists: JSON, Python literal, or comma-split', () => {
  assert.deepEqual(parseAnswerList('["a", "b"]'), ['a', 'b']);
  assert.deepEqual(parseAnswerList("['a', 'b']"), ['a', 'b']);
  assert.deepEqual(parseAnswerList('[a, b c]'), ['a', 'b c']);
  assert.deepEqual(parseAnswerList('[1999, 2001]'), ['1999', '2001']);
  assert.deepEqual(parseAnswerList('Mask'), ['Mask']);
  assert.deepEqual(parseAnswerList('[]'), []);
});

test('EM/F1 (M3DocVQA rules) on hand-worked examples', () => {
  assert.deepEqual(emF1('mask.', 'Mask'), { em: 1, f1: 1 });
  // token F1: pred {tommy, lee} vs gold {tommy}: P 1/2, R 1 -> 2/3.
  close(tokenF1('Tommy Lee', 'Tommy'), 2 / 3);
  // Sets: 3 of 4 years, each aligned exactly -> F1 = 3/4, EM 0.
  const years = emF1('["1998", "1999", "2001"]', ['1999', '1998', '2002', '2001']);
  assert.equal(years.em, 0);
  close(years.f1, 0.75);
  // Order does not matter for EM.
  assert.equal(emF1('["2002", "2001", "1999", "1998"]', ['1999', '1998', '2002', '2001']).em, 1);
  // Alignment: Zhang Ling<->Zhang Ling (1) and Tommy Lee<->Tommy (2/3): (1 + 2/3) / 2.
  close(emF1('["Zhang Ling", "Tommy Lee"]', ['Tommy', 'Zhang Ling']).f1, (1 + 2 / 3) / 2);
  // Extra predicted elements cost precision: 1 correct of 2 predicted vs 1 gold -> 1/2.
  close(emF1('["Mask", "Junie Moon"]', 'Mask').f1, 0.5);
  // Duplicates after normalisation collapse ("The Mask" == "mask").
  assert.equal(emF1('["The Mask", "mask"]', 'Mask').em, 1);
  // A refusal is an empty prediction.
  assert.deepEqual(emF1('Insufficient information', 'Mask'), { em: 0, f1: 0 });
  // Alternative answers (MuSiQue aliases): best candidate.
  assert.deepEqual(emF1('Stanley Hall', 'G. Stanley Hall', ['Stanley Hall']), { em: 1, f1: 1 });
  // Gold list: aliases do not apply.
  assert.equal(emF1('x', ['a', 'b'], ['x']).em, 0);
});

test('list alignment: exhaustive (optimal) up to 8 elements, greedy beyond', () => {
  const m = [
    [0.9, 0.8],
    [0.7, 0],
  ];
  close(bestAlignmentSum(m), 1.5); // 0.8 + 0.7 beats the greedy 0.9 + 0
  close(bestAlignmentSum(m, 1), 0.9); // the greedy rule
  close(bestAlignmentSum([[0.2], [0.9], [0.5]]), 0.9); // rectangular
  // Nine elements: greedy path, still exact on disjoint one-to-one matches.
  const nine = Array.from({ length: 9 }, (_, i) => `item${i}`);
  close(alignedListF1(nine, nine.slice(0, 8)), 8 / 9);
  close(alignedListF1([...nine].reverse(), nine), 1);
});

test('MultiHop-RAG accuracy: shared lowercased whitespace token; null needs "insufficient information" prefix', () => {
  assert.equal(multihopRagCorrect('Yes', 'Yes'), 1);
  assert.equal(multihopRagCorrect('yes', 'Yes'), 1);
  assert.equal(multihopRagCorrect('The company is Google', 'Google'), 1);
  assert.equal(multihopRagCorrect('Sam Bankman-Fried', 'Sam Bankman-Fried'), 1);
  assert.equal(multihopRagCorrect('Bankman-Fried', 'Sam Bankman-Fried'), 1);
  assert.equal(multihopRagCorrect('No', 'Yes'), 0);
  assert.equal(multihopRagCorrect('yes.', 'Yes'), 0); // tokens keep punctuation, as the official split does
  assert.equal(multihopRagCorrect('Insufficient information.', 'Insufficient information.'), 1);
  assert.equal(multihopRagCorrect('insufficient information to decide', 'Insufficient information.'), 1);
  assert.equal(multihopRagCorrect('There is insufficient information', 'Insufficient information.'), 0);
  assert.equal(multihopRagCorrect('Insufficient information', 'Nike'), 0);
  assert.equal(multihopRagCorrect('Nike', 'whatever', { nullQuestion: true }), 0);
});

test('ROUGE-L: LCS F over lowercased alphanumeric tokens', () => {
  // LCS of "the cat sat on the mat" / "the cat is on the mat" = "the cat on the mat" (5 of 6 each).
  const r = rougeL('The cat sat on the mat.', 'the cat is on the mat');
  close(r.precision, 5 / 6);
  close(r.recall, 5 / 6);
  close(r.f, 5 / 6);
  // Order matters: "beige house" shares only a 1-token subsequence: P 1/2, R 1/4 -> F1 1/3.
  close(rougeL('beige house', 'the house is beige').f, 1 / 3);
  // "house beige" is a subsequence: P 2/2, R 2/4 -> F1 2/3; beta 1.2 weights recall more.
  close(rougeL('house beige', 'the house is beige').f, 2 / 3);
  close(rougeL('house beige', 'the house is beige', { beta: 1.2 }).f, ((1 + 1.44) * 1 * 0.5) / (0.5 + 1.44 * 1));
  assert.equal(rougeL('', 'x').f, 0);
  close(rougeLMax('house beige', ['nothing', 'the house is beige']), 2 / 3);
});

test('embedding F1 (BERTScore-style) with an injected embedder', async () => {
  // One-hot vectors per distinct word: cosine 1 for the same word, 0 otherwise.
  const vocab = new Map<string, number>();
  const emb: Embedder = {
    id: 'onehot-test',
    dim: 16,
    async embed(texts) {
      return texts.map((t) => {
        if (!vocab.has(t)) vocab.set(t, vocab.size);
        const v = new Float32Array(16);
        v[vocab.get(t)! % 16] = 1;
        return v;
      });
    },
  };
  close((await embeddingF1('beige house', 'the house is beige', emb)).f, (2 * (1 * 0.5)) / 1.5);
  close((await embeddingF1('same words', 'same words', emb)).f, 1);
  assert.equal((await embeddingF1('', 'x', emb)).f, 0);
});

test('ScienceQA: choice by letter or text; official breakdown groups overlap', () => {
  const choices = ['present tense', 'future tense', 'past tense'];
  assert.equal(scienceqaChoice('B', choices), 1);
  assert.equal(scienceqaChoice('(B)', choices), 1);
  assert.equal(scienceqaChoice('The answer is B.', choices), 1);
  assert.equal(scienceqaChoice('Future tense', choices), 1);
  assert.equal(scienceqaChoice('(C) past tense', choices), 2);
  assert.equal(scienceqaChoice('D', choices), -1);
  assert.equal(scienceqaChoice('A', ['B', 'A']), 1); // an option's text wins over a letter reading
  const q = (id: string, subjectCode: string, contextCodes: string[], gradeBand: string, answerIndex: number): Question => ({
    id,
    benchmark: 'scienceqa',
    question: '?',
    answer: choices[answerIndex],
    format: 'span',
    goldDocs: [],
    evidence: [],
    modality: ['text'],
    meta: { choices, answerIndex, subjectCode, contextCodes, gradeBand },
  });
  const qs = [q('1', 'NAT', ['TXT', 'IMG'], 'G1-6', 0), q('2', 'LAN', ['NO'], 'G7-12', 1), q('3', 'NAT', ['IMG'], 'G1-6', 2)];
  const correct = new Map(qs.map((x, i) => [x.id, scienceqaCorrect(x, ['A', 'B', 'A'][i])]));
  assert.deepEqual([...correct.values()], [1, 1, 0]);
  const b = scienceqaBreakdown(qs, correct);
  assert.deepEqual(b.NAT, { n: 2, acc: 0.5 });
  assert.deepEqual(b.LAN, { n: 1, acc: 1 });
  assert.deepEqual(b.IMG, { n: 2, acc: 0.5 });
  assert.deepEqual(b.TXT, { n: 1, acc: 1 });
  assert.deepEqual(b['G1-6'], { n: 2, acc: 0.5 });
  close(b.avg.acc, 2 / 3);
  assert.equal(b.SOC, undefined);
});
