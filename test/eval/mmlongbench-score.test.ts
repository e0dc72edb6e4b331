/**
 * MMLongBench-Doc's rule-based scorer (port of the official eval_score.py
 * logic), hand-worked per answer format, Python built-in emulation checked
 * against python3, the official accuracy/F1, and the model-judge step with a
 * scripted ChatModel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { anls, getCleanString, isExactMatchType, isFloatEqual, levenshtein, mmlongbenchAccF1, mmlongbenchScore } from '../../lib/eval/metrics/mmlongbench';
import { pyFloat, pyInt, pyRound, pyStrFloat } from '../../lib/eval/metrics/python-compat';
import { extractAnswerWithJudge, FAILED_TO_EXTRACT, parseExtraction } from '../../lib/eval/metrics/mmlongbench-judge';
import { makeRng } from '../../lib/util/rng';
import { fakeModel } from '../_shared/fake-model';

const close = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) <= eps, `${a} != ${b}`);

test('Int: int(gt) == int(float(pred)); unparsable predictions score 0', () => {
  assert.equal(mmlongbenchScore('8', '8', 'Int'), 1);
  assert.equal(mmlongbenchScore('8', ' 8 ', 'Int'), 1);
  assert.equal(mmlongbenchScore('8', '8.0', 'Int'), 1);
  assert.equal(mmlongbenchScore('8', '8.9', 'Int'), 1); // int() truncates, as upstream
  assert.equal(mmlongbenchScore('8', '9', 'Int'), 0);
  assert.equal(mmlongbenchScore('8', 'eight', 'Int'), 0);
  assert.equal(mmlongbenchScore('41', '41%', 'Int'), 0); // no cleaning on the Int path
  assert.equal(mmlongbenchScore('1251', '1,251', 'Int'), 0);
});

test('Float: cleaning, relative tolerance 1%, rounding to shared decimals, percent scaling', () => {
  assert.equal(mmlongbenchScore('18.29%', '18.29', 'Float'), 1);
  assert.equal(mmlongbenchScore('18.29%', '18.29%', 'Float'), 1);
  assert.equal(mmlongbenchScore('18.29%', '0.1829', 'Float'), 1); // gt/100
  assert.equal(mmlongbenchScore('0.5%', '0.005', 'Float'), 1);
  assert.equal(mmlongbenchScore('18.29%', '18.3', 'Float'), 1); // |diff| 0.01 <= 1% of 18.3
  assert.equal(mmlongbenchScore('18.29%', '18.0', 'Float'), 0); // 1.6% off, and 18.00 != 18.29
  assert.equal(mmlongbenchScore('73.0', '73', 'Float'), 1);
  assert.equal(mmlongbenchScore('453.25', '$453.25 (approx.)', 'Float'), 1); // "$" and "(...)" cleaned
  assert.equal(mmlongbenchScore('2.92', '3', 'Float'), 0); // 2.7% off; rounding to 2 places differs
  assert.equal(mmlongbenchScore('10%', 'ten percent', 'Float'), 0);
  assert.equal(mmlongbenchScore('n/a', '3', 'Float'), 0); // upstream raises on such a gold: 0
  // Rounding path (not isclose): 0.1 vs 0.104 is 4% off, but both round to 0.10.
  assert.equal(isFloatEqual(0.1, 0.104, false, false), true);
  assert.equal(isFloatEqual(0.1, 0.106, false, false), false);
  assert.equal(isFloatEqual(1, 'x'), false);
});

test('Str / None: cleaning, exact-match types, ANLS with the 0.5 threshold', () => {
  close(levenshtein('less well-off', 'less well off'), 1);
  close(mmlongbenchScore('Less well-off', 'less well off', 'Str'), 1 - 1 / 13);
  close(mmlongbenchScore('Less well-off', 'More well-off', 'Str'), 1 - 4 / 13);
  assert.equal(mmlongbenchScore('Less well-off', 'poor', 'Str'), 0); // ANLS <= 0.5 -> 0
  assert.equal(mmlongbenchScore('very cold milk (up to 8 degrees celsius)', 'Very cold milk', 'Str'), 1);
  assert.equal(mmlongbenchScore('"Eating out"', 'eating out', 'Str'), 1);
  // Exact-match types: URL, page, phone/number, date, time, e-mail, code file.
  assert.ok(isExactMatchType('https://github.com/x'));
  assert.ok(isExactMatchType('page 45'));
  assert.ok(isExactMatchType('2019-08'));
  assert.ok(isExactMatchType('2019 08 01'));
  assert.ok(isExactMatchType('555-1234'));
  assert.ok(isExactMatchType('41'));
  assert.ok(isExactMatchType('9 a.m.'));
  assert.ok(isExactMatchType('a@b.org'));
  assert.ok(isExactMatchType('train.py'));
  assert.ok(!isExactMatchType('eating out'));
  assert.equal(mmlongbenchScore('https://github.com/x', 'https://github.com/x/', 'Str'), 0);
  assert.equal(mmlongbenchScore('Page 45', 'page 45', 'Str'), 1);
  // None: "Not answerable" graded like a string (ANLS), as upstream.
  assert.equal(mmlongbenchScore('Not answerable', 'Not answerable', 'None'), 1);
  close(mmlongbenchScore('Not answerable', 'not answerable.', 'None'), 1 - 1 / 15);
  assert.equal(mmlongbenchScore('Not answerable', '42', 'None'), 0);
  // get_clean_string: the upstream "miles" stripping has no effect (its result is discarded).
  assert.equal(getCleanString('375 Miles'), '375 miles');
  assert.equal(getCleanString(" '$12%' "), '12');
  close(anls('', ''), 1);
});

test('List: Python-literal lists, equal lengths, sorted cleaned elements; exact for numbers, min ANLS otherwise', () => {
  assert.equal(mmlongbenchScore("['White', '10%']", "['10%', 'white']", 'List'), 1); // first sorted gold "10" is a float -> exact join
  assert.equal(mmlongbenchScore("['White', '10%']", '["white", "10"]', 'List'), 1); // JSON quotes are Python too
  assert.equal(mmlongbenchScore("['White', '10%']", "['white']", 'List'), 0); // length differs
  close(mmlongbenchScore("['Circle', 'Rectangle']", "['rectangle', 'circles']", 'List'), 1 - 1 / 7); // min(circle~circles, rectangle)
  assert.equal(mmlongbenchScore("['Circle', 'Rectangle']", "['square', 'rectangle']", 'List'), 0);
  assert.equal(mmlongbenchScore('[16, 19, 25]', '[25, 16, 19]', 'List'), 1);
  assert.equal(mmlongbenchScore('[16, 19, 25]', '[16.0, 19, 25]', 'List'), 0); // str(16.0) = "16.0": exact join fails, as upstream
  assert.equal(mmlongbenchScore("['Page 1', 'Page 5']", "['page 5', 'page 1']", 'List'), 1);
  assert.equal(mmlongbenchScore("['Circle']", 'circle', 'List'), 1); // a non-list prediction is wrapped
  assert.equal(mmlongbenchScore("['a b', 'c']", '[a b, c]', 'List'), 0); // not a Python literal: upstream eval raises -> 0
  assert.equal(mmlongbenchScore('[]', '[]', 'List'), 0); // upstream indexes gt[0] of an empty list -> 0
});

test('official accuracy and F1 (recall over answerable gold, precision over answered predictions)', () => {
  const r = mmlongbenchAccF1([
    { answer: '8', pred: '8', score: 1 },
    { answer: 'Red', pred: 'Rd', score: 0.5 },
    { answer: '3', pred: 'Not answerable', score: 0 },
    { answer: 'Not answerable', pred: 'Not answerable', score: 1 },
    { answer: 'Not answerable', pred: '7', score: 0 },
  ]);
  close(r.acc, 2.5 / 5);
  const recall = 1.5 / 3;
  const precision = 1.5 / 3; // predictions other than "Not answerable": 8, Rd, 7
  close(r.f1, (2 * recall * precision) / (recall + precision));
  assert.deepEqual(mmlongbenchAccF1([]), { acc: 0, f1: 0, n: 0 });
  assert.equal(mmlongbenchAccF1([{ answer: 'Not answerable', pred: 'Not answerable', score: 1 }]).f1, 0);
});

test('Python built-ins: float()/int() parsing and round() ties-to-even on exact binary values', () => {
  assert.equal(pyFloat(' 1_000.5 '), 1000.5);
  assert.equal(pyFloat('1e3'), 1000);
  assert.equal(pyFloat('.5'), 0.5);
  assert.equal(pyFloat('-inf'), -Infinity);
  assert.throws(() => pyFloat(''));
  assert.throws(() => pyFloat('1,000'));
  assert.equal(pyInt('+08'), 8n);
  assert.throws(() => pyInt('8.0'));
  assert.equal(pyRound(2.675, 2), 2.67); // 2.675 is 2.67499999... in binary
  assert.equal(pyRound(0.125, 2), 0.12); // exact tie -> even
  assert.equal(pyRound(0.375, 2), 0.38);
  assert.equal(pyRound(2.5, 0), 2);
  assert.equal(pyRound(3.5, 0), 4);
  assert.equal(pyRound(1234.5, -1), 1230);
  assert.equal(pyStrFloat(18), '18.0');
  assert.equal(pyStrFloat(1e16), '1e+16');
  assert.equal(pyStrFloat(0.00001), '1e-05');
  assert.equal(pyStrFloat(1828.9999999999998), '1828.9999999999998');
});

function havePython(): boolean {
  try {
    execFileSync('python3', ['-c', 'pass'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('round() and str(float) agree with python3 on 1,500 random values', { skip: havePython() ? false : 'python3 is not on PATH' }, () => {
  const rng = makeRng('pyround');
  const xs: number[] = [];
  const nd: number[] = [];
  for (let i = 0; i < 500; i++) {
    xs.push((rng.next() - 0.5) * 10 ** rng.int(-8, 18), rng.int(0, 100000) / 10 ** rng.int(0, 5) + 0.005, rng.int(0, 1000) / 8);
    nd.push(rng.int(-1, 5), rng.int(0, 4), rng.int(0, 3));
  }
  const script = 'import json,sys\nd=json.load(sys.stdin)\nprint(json.dumps([[repr(round(float(x),n)), repr(float(x))] for x,n in zip(d["x"],d["n"])]))';
  const py = JSON.parse(execFileSync('python3', ['-c', script], { input: JSON.stringify({ x: xs, n: nd }) }).toString()) as [string, string][];
  xs.forEach((x, i) => {
    assert.equal(pyRound(x, nd[i]), Number(py[i][0]), `round(${x}, ${nd[i]})`);
    assert.equal(pyStrFloat(x), py[i][1], `str(${x})`);
  });
});

/** A scripted judge: replays replies in order, the last one again when they run out (an Error is thrown); records requests. */
const scripted = (replies: (string | Error)[]) => fakeModel((_req, n) => replies[Math.min(n, replies.length - 1)], 'scripted-judge');

test('judge extraction: stage scorer, temperature 0, 256 tokens, 3 tries; the official split on the labels', async () => {
  assert.deepEqual(parseExtraction('Extracted answer: 18.29%\nAnswer format: Float'), { pred: '18.29%', format: 'Float' });
  assert.equal(parseExtraction('no labels here'), undefined);

  const ok = scripted(['Extracted answer: 18.29%\nAnswer format: Float']);
  const r = await extractAnswerWithJudge(ok, 'What share?', 'The chart shows 18.29% [3].\nFINAL ANSWER: 18.29%', { questionId: 'mmlb-1' });
  assert.equal(r.pred, '18.29%');
  assert.equal(r.failed, false);
  assert.equal(ok.calls.length, 1);
  const req = ok.calls[0];
  assert.equal(req.stage, 'scorer');
  assert.equal(req.temperature, 0);
  assert.equal(req.maxTokens, 256);
  assert.equal(req.questionId, 'mmlb-1');
  assert.match(String(req.messages[0].content), /What share\?/);
  assert.match(String(req.messages[0].content), /The chart shows 18\.29%/);

  const flaky = scripted([new Error('HTTP 500'), 'I think it is 3', 'Extracted answer: 3\nAnswer format: Integer']);
  const r2 = await extractAnswerWithJudge(flaky, 'q', 'a');
  assert.equal(r2.pred, '3');
  assert.equal(r2.attempts, 3);

  const broken = scripted([new Error('down')]);
  const r3 = await extractAnswerWithJudge(broken, 'q', 'a');
  assert.equal(r3.failed, true);
  assert.equal(r3.pred, FAILED_TO_EXTRACT);
  assert.equal(broken.calls.length, 3);

  const custom = scripted(['Extracted answer: x']);
  await extractAnswerWithJudge(custom, 'Q1', 'A1', { template: 'Q={{question}} A={{analysis}}' });
  assert.equal(custom.calls[0].messages[0].content, 'Q=Q1 A=A1');
});
