/** The one recall module (issue 16): R@k and allFound@k of a ranked list against gold units. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RECALL_KS, recallAtK } from '../../lib/eval/recall';

test('R@k counts distinct gold units among the first k; allFound@k needs all of them', () => {
  const ranked = ['a', undefined, 'b', 'a', 'c'];
  const r = recallAtK(ranked, ['a', 'c', 'c'], [1, 3, 5])!;
  assert.deepEqual(r, { 'R@1': 0.5, 'allFound@1': 0, 'R@3': 0.5, 'allFound@3': 0, 'R@5': 1, 'allFound@5': 1 });
});

test('no gold: no figure; default cut-offs are both papers', () => {
  assert.equal(recallAtK(['a'], []), undefined);
  assert.deepEqual(RECALL_KS, [1, 2, 3, 5, 8]);
  assert.deepEqual(Object.keys(recallAtK(['a'], ['a'])!), [
    'R@1',
    'allFound@1',
    'R@2',
    'allFound@2',
    'R@3',
    'allFound@3',
    'R@5',
    'allFound@5',
    'R@8',
    'allFound@8',
  ]);
});
