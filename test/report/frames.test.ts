import { test } from 'node:test';
import assert from 'node:assert/strict';
import { recordsFrame, groupMeans, recordRows } from '../../lib/report/frames';
import { rowsOf } from '../../lib/report/table';
import type { LoadedRun } from '../../lib/run/results';
import type { RunRecord } from '../../lib/run/records';

function rec(id: string, f1: number, hops: string, modality: string[], error = false): RunRecord {
  return {
    v: 1,
    id,
    runId: 'r1',
    configHash: 'h',
    benchmark: 'demo',
    pipeline: 'S4',
    backend: 'offline',
    models: [],
    seed: `0/${id}`,
    question: 'q',
    gold: 'a',
    prediction: error ? null : 'x',
    finalAnswer: error ? null : 'x',
    scores: error ? {} : { f1, em: f1 === 1 ? 1 : 0 },
    retrieval: { 'R@8': 1 },
    counters: {},
    usage: { calls: 0, promptTokens: 0, completionTokens: 0, cacheHits: 0, latencyMs: 0, costUsd: 0 } as never,
    timings: { totalMs: 1000 } as never,
    buckets: { hops: [hops], modality },
    trace: null,
    error: error ? ({ code: 'x', message: 'boom' } as never) : null,
  } as RunRecord;
}

const run = {
  runId: 'r1',
  dir: '/tmp/r1',
  manifest: {} as never,
  records: [rec('a', 1, '1', ['text']), rec('b', 0.5, '2', ['image', 'table']), rec('c', 0, '2', ['text']), rec('d', 0, '1', ['text'], true)],
} as unknown as LoadedRun;

test('records frame: one row per question, multi-valued buckets joined, failed questions score 0 on answer metrics', () => {
  const rows = recordRows(run);
  assert.equal(rows.length, 4);
  assert.equal(rows[1].modality, 'image+table');
  assert.equal(rows[3].f1, 0, 'failed question scores 0');
  assert.equal(recordRows(run, { errors: 'drop' }).length, 3);
  const df = recordsFrame(run);
  assert.deepEqual(df.shape, [4, rows[0] ? Object.keys(rows[0]).length : 0]);
});

test('groupMeans: mean per group with its size (danfojs groupby)', () => {
  const df = recordsFrame(run);
  const g = rowsOf(groupMeans(df, ['hops'], ['f1']) as never);
  const byHops = Object.fromEntries(g.map((r) => [String(r.hops), r]));
  assert.equal(byHops['1'].f1_mean, 0.5);
  assert.equal(byHops['2'].f1_mean, 0.25);
  assert.equal(byHops['2'].n, 2);
  assert.throws(() => groupMeans(df, ['nope'], ['f1']), /no column "nope"/);
});
