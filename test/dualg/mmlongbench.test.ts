import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bucketMeans, distinctPageScores, formatTable, pairedCounts, RUNS, type EvalRecord } from '../../lib/dualg/scripts/mmlongbench';

const rec = (id: string, r8: number | null): EvalRecord => ({
  id,
  excluded: r8 === null,
  scores: r8 === null ? null : { 'R@2': r8 / 2, 'R@5': r8, 'R@8': r8, 'allFound@8': r8 === 1 ? 1 : 0 },
  hits: [{ page: 1 }, { page: 1 }, { page: 2 }],
});

const SOURCES = new Map([
  ['a', ['Table']],
  ['b', ['Table', 'Chart']],
  ['c', ['Text']],
  ['d', ['Chart']],
]);

test('bucketMeans: overall and per evidence source, a two-source question in both, excluded questions left out', () => {
  const rows = bucketMeans([rec('a', 1), rec('b', 0), rec('c', 0.5), rec('d', null)], SOURCES);
  const by = new Map(rows.map((r) => [r.bucket, r]));
  assert.equal(by.get('all')!.n, 3);
  assert.equal(by.get('all')!.means['R@8'], 0.5);
  assert.equal(by.get('Table')!.n, 2);
  assert.equal(by.get('Table')!.means['R@8'], 0.5);
  assert.equal(by.get('Table')!.means['allFound@8'], 0.5);
  assert.equal(by.get('Chart')!.n, 1, 'the excluded Chart question is not counted');
  assert.equal(by.get('Figure')!.n, 0);
  assert.ok(Number.isNaN(by.get('Figure')!.means['R@8']));
  assert.equal(by.get('all')!.means['pages@8'], 2, 'two distinct pages among three hits');
});

test('pairedCounts: better / same / worse on one metric, only questions scored by both', () => {
  const a = [rec('a', 1), rec('b', 0.5), rec('c', 0), rec('d', null)];
  const b = [rec('a', 0.5), rec('b', 0.5), rec('c', 1), rec('d', 1)];
  assert.deepEqual(pairedCounts(a, b, 'R@8'), { better: 1, same: 1, worse: 1 });
});

test('formatTable: one line per bucket and retriever, empty buckets shown as a dash', () => {
  const rows = new Map([
    ['hybrid', bucketMeans([rec('a', 1), rec('c', 0)], SOURCES)],
    ['dualg', bucketMeans([rec('a', 0), rec('c', 1)], SOURCES)],
  ]);
  const lines = formatTable(rows).split('\n');
  assert.equal(lines.length, 1 + 2 * rows.get('hybrid')!.length);
  assert.ok(lines.some((l) => /^Table\s+1\s+hybrid\s+0\.500\s+1\.000\s+1\.000\s+1\.000\s+2\.000$/.test(l)));
  assert.ok(lines.some((l) => /^Figure\s+0\s+dualg\s+-/.test(l)));
  assert.ok(RUNS.some((r) => r.name === 'dualg-no-micro'));
});

test('distinctPageScores: the first k distinct pages, gold as "<doc>#p<page>"', () => {
  const r: EvalRecord = {
    id: 'x',
    excluded: false,
    scores: { 'R@2': 0 },
    gold: ['D#p3', 'D#p9'],
    hits: [
      { docId: 'D', page: 1 },
      { docId: 'D', page: 1 },
      { docId: 'D', page: 3 },
      { docId: 'D', page: 4 },
      { docId: 'D', page: 9 },
    ],
  };
  const s = distinctPageScores(r, [2, 3]).scores!;
  assert.equal(s['R@2'], 0.5, 'pages 1 and 3: one gold page of two');
  assert.equal(s['allFound@2'], 0);
  assert.equal(s['R@3'], 0.5);
  const all = distinctPageScores({ ...r, hits: [...r.hits.slice(2)] }, [3]).scores!;
  assert.equal(all['allFound@3'], 1);
});
