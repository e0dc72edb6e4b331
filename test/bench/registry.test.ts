/**
 * The benchmark registry (lib/bench/registry.ts): every benchmark name has one
 * complete entry, and what callers read from it (paths, convention, recall
 * level, scorer, paper subsets) is consistent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BENCHMARKS, benchmarkSpec, conventionOf, pathsFromFlags } from '../../lib/bench/registry';
import { BENCHMARK_NAMES } from '../../lib/bench/names';
import type { Question } from '../../lib/bench/types';
import { scoreAnswer } from '../../lib/eval/score';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';

test('every benchmark name has one entry whose declared keys match its default paths', () => {
  assert.deepEqual(Object.keys(BENCHMARKS).sort(), [...BENCHMARK_NAMES].sort());
  for (const name of BENCHMARK_NAMES) {
    const spec = benchmarkSpec(name)!;
    assert.equal(spec.name, name);
    assert.ok(spec.pathKeys.includes(spec.questionsKey), `${name}: the questions key is a path key`);
    if (spec.corpusKey) assert.ok(spec.pathKeys.includes(spec.corpusKey), `${name}: the corpus key is a path key`);
    for (const k of Object.keys(spec.defaultPaths())) assert.ok(spec.pathKeys.includes(k), `${name}: default path ${k} is declared`);
    assert.ok(spec.metrics.length > 0 && spec.buckets.length > 0, `${name}: metrics and buckets declared`);
  }
  assert.equal(benchmarkSpec('no-such-benchmark'), undefined);
});

test('conventions, recall levels and paper subsets come from the entries', () => {
  assert.equal(conventionOf('mmqa'), 'm3docvqa');
  assert.equal(conventionOf('multihop-rag'), 'multihoprag');
  assert.equal(conventionOf('mmlongbench-doc'), 'mmlongbench');
  assert.equal(conventionOf('demo'), 'generic');
  assert.equal(conventionOf('elsewhere'), 'generic');
  assert.deepEqual(
    BENCHMARK_NAMES.filter((n) => BENCHMARKS[n].recallLevel === 'page'),
    ['mmlongbench-doc'],
  );
  assert.deepEqual(
    BENCHMARK_NAMES.filter((n) => BENCHMARKS[n].paperSubsets),
    ['m3docvqa', 'multihop-rag'],
  );
  assert.deepEqual(pathsFromFlags('mmlongbench-doc', { questions: 'q.json', corpus: 'docs' }), { samples: 'q.json', documents: 'docs' });
  assert.deepEqual(pathsFromFlags('2wiki', { questions: 'q.json' }), { questions: 'q.json' });
});

test('scoring dispatches to the entry; an unknown benchmark gets EM/F1; every result has refused', () => {
  const q = (benchmark: string, answer: string, extra: Partial<Question> = {}): Question => ({
    id: 'q',
    benchmark,
    question: 'q?',
    answer,
    format: 'span',
    goldDocs: [],
    evidence: [],
    modality: ['text'],
    meta: {},
    ...extra,
  });
  assert.deepEqual(scoreAnswer(q('demo', 'Paris'), 'Paris'), { em: 1, f1: 1, refused: 0 });
  assert.deepEqual(scoreAnswer(q('elsewhere', 'Paris'), 'paris'), { em: 1, f1: 1, refused: 0 });
  assert.deepEqual(Object.keys(scoreAnswer(q('multihop-rag', 'Yes'), 'Yes')), ['acc', 'f1', 'em', 'refused']);
  assert.deepEqual(Object.keys(scoreAnswer(q('mmlongbench-doc', 'Paris'), 'Not answerable')), ['acc', 'goldAnswerable', 'predAnswerable', 'refused']);
  assert.deepEqual(scoreAnswer(q('demo', 'x', { format: 'unanswerable' }), 'Not answerable'), { em: 1, f1: 1, refused: 1 });
});

test('demo preset overrides: one place names the world files and the index folder', () => {
  const s = demoPresetOverrides('tiny', '/w/tiny', { indexDir: '/i/demo-tiny' });
  assert.deepEqual(s.overrides, ['benchmark.paths.questions=/w/tiny/questions.json', 'benchmark.paths.corpus=/w/tiny/corpus', 'index.dir=/i/demo-tiny']);
});
