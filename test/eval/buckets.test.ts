/**
 * Buckets: named fields per each benchmark's protocol (multi-valued fields
 * count in each bucket), dotted paths, pool trimmed, means per bucket; and the
 * MMLongBench-Doc official buckets on the real file when present.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { Question } from '../../lib/bench/types';
import { bucketMeans, bucketValues, bucketsById, groupByBucket } from '../../lib/eval/buckets';
import { loadBenchmark } from '../../lib/bench/registry';
import { benchDir } from '../../lib/util/paths';

function q(id: string, over: Partial<Question>): Question {
  return { id, benchmark: 'x', question: '?', answer: 'a', format: 'span', goldDocs: [], evidence: [], modality: ['text'], meta: {}, ...over };
}

test('named fields: modality (multi), hops, type, format, source, page, answerable, dotted paths, pool', () => {
  const a = q('a', {
    modality: ['table', 'image'],
    hops: 2,
    type: 'Compose(TableQ,ImageQ)',
    meta: { answerFormat: 'Float', evidenceSources: ['Table', 'Chart'], docType: 'Financial report', nested: { level: 'hard' } },
    goldPages: [3, 9],
  });
  const b = q('b', { modality: ['text'], format: 'unanswerable', evidence: [{ doc: 'd', page: 4, modality: 'text' }] });
  assert.deepEqual(bucketValues(a, 'modality'), ['table', 'image']);
  assert.deepEqual(bucketValues(a, 'hops'), ['2-hop']);
  assert.deepEqual(bucketValues(b, 'hops'), ['(none)']);
  assert.deepEqual(bucketValues(a, 'type'), ['Compose(TableQ,ImageQ)']);
  assert.deepEqual(bucketValues(a, 'format'), ['Float']);
  assert.deepEqual(bucketValues(b, 'format'), ['unanswerable']);
  assert.deepEqual(bucketValues(a, 'source'), ['Table', 'Chart']);
  assert.deepEqual(bucketValues(b, 'source'), ['text']);
  assert.deepEqual(bucketValues(a, 'page'), ['cross-page']);
  assert.deepEqual(bucketValues(b, 'page'), ['unanswerable']);
  assert.deepEqual(bucketValues(a, 'answerable'), ['answerable']);
  assert.deepEqual(bucketValues(a, 'meta.docType'), ['Financial report']);
  assert.deepEqual(bucketValues(a, 'docType'), ['Financial report']); // bare name falls back to meta
  assert.deepEqual(bucketValues(a, 'meta.nested.level'), ['hard']);
  assert.deepEqual(bucketValues(a, 'meta.absent'), ['(none)']);
  const trimmed = new Map([
    ['a', true],
    ['b', false],
  ]);
  assert.deepEqual(bucketValues(a, 'pool', { poolTrimmed: trimmed }), ['trimmed']);
  assert.deepEqual(bucketValues(b, 'pool', { poolTrimmed: trimmed }), ['untrimmed']);
  assert.deepEqual(bucketValues(b, 'pool'), ['(none)']);
});

test('groupByBucket / bucketMeans: a multi-valued question counts in each bucket', () => {
  const qs = [
    q('1', { meta: { evidenceSources: ['Table', 'Chart'] } }),
    q('2', { meta: { evidenceSources: ['Table'] } }),
    q('3', { meta: { evidenceSources: ['Figure'] } }),
  ];
  assert.deepEqual(
    [...groupByBucket(qs, 'source').entries()],
    [
      ['Chart', ['1']],
      ['Figure', ['3']],
      ['Table', ['1', '2']],
    ],
  );
  const scores = new Map([
    ['1', { acc: 1 }],
    ['2', { acc: 0 }],
    ['3', { acc: 1 }],
  ]);
  const m = bucketMeans(qs, scores, 'source');
  assert.deepEqual(m.Table.mean, { acc: 0.5 });
  assert.equal(m.Table.n, 2);
  assert.deepEqual(m.Chart.mean, { acc: 1 });
  assert.deepEqual(bucketsById(qs, 'source')('1'), ['Table', 'Chart']);
  assert.deepEqual(bucketsById(qs, 'source')('zzz'), ['(none)']);
});

test(
  'MMLongBench-Doc official buckets on the real file: single/cross page, unanswerable, evidence sources, formats',
  { skip: fs.existsSync(benchDir('mmlongbench-doc', 'samples.dev.json')) ? false : `real benchmark files absent: ${benchDir('mmlongbench-doc')}` },
  () => {
    const d = loadBenchmark('mmlongbench-doc');
    const page = groupByBucket(d.questions, 'page');
    const size = (k: string) => page.get(k)?.length ?? 0;
    // Official rule: single = exactly one listed page (5 unanswerable questions list one page and count there too).
    assert.equal(size('unanswerable'), 99);
    assert.equal(
      size('single-page') + size('cross-page') + size('unanswerable'),
      520 + d.questions.filter((x) => x.format === 'unanswerable' && (x.meta.evidencePagesRaw as number[]).length === 1).length,
    );
    const src = groupByBucket(d.questions, 'source');
    assert.deepEqual([...src.keys()], ['(none)', 'Chart', 'Figure', 'Layout', 'Table', 'Text']);
    assert.deepEqual(
      [...groupByBucket(d.questions, 'format').entries()].map(([k, v]) => [k, v.length]),
      [
        ['Float', 100],
        ['Int', 134],
        ['List', 72],
        ['None', 99],
        ['Str', 115],
      ],
    );
  },
);
