/**
 * `kf bench serve-kb` end to end on a small world: every search answered, the figures filled in.
 * Not a timing test: nothing here depends on how fast the machine is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kfInProcess } from '../_shared/cli-in-process';

/** `kf bench serve-kb` on a 600-fragment world, 40 timed searches from 4 clients; its JSON report. */
async function benchSmall(extra: string[] = []): Promise<Record<string, any>> {
  const r = await kfInProcess([
    'bench',
    'serve-kb',
    '--fragments',
    '600',
    '--requests',
    '40',
    '--warmup',
    '5',
    '--rate',
    '50',
    '--clients',
    '4',
    ...extra,
    '--json',
    '--quiet',
  ]);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out.trim().split('\n').pop()!) as Record<string, any>;
}

test('kf bench serve-kb answers every search over HTTP and reports rates, latencies and CPU time', { timeout: 180_000 }, async () => {
  const report = await benchSmall();
  assert.equal(report.errors, 0);
  assert.equal(report.clients, 4);
  assert.equal(report.workers, 1);
  assert.equal(report.serverCpuMsPerSearchEach.length, 1);
  assert.ok(report.fragments >= 600);
  for (const l of [report.latencyMs, report.paced.latencyMs]) assert.ok(l.p50 > 0 && l.p90 >= l.p50 && l.p99 >= l.p90, JSON.stringify(l));
  assert.ok(report.searchesPerSecond > 0 && report.paced.searchesPerSecond > 0);
  assert.ok(report.serverCpuMsPerSearch > 0);
});

test('kf bench serve-kb --workers 2 serves from two worker processes and sums their CPU time', { timeout: 180_000 }, async () => {
  const report = await benchSmall(['--workers', '2']);
  assert.equal(report.errors, 0);
  assert.equal(report.workers, 2);
  assert.ok(report.fragments >= 600);
  const each = report.serverCpuMsPerSearchEach as number[];
  assert.equal(each.length, 3, 'two workers, then the primary');
  for (const ms of each.slice(0, 2)) assert.ok(ms > 0, `every worker answered: ${each.join(', ')}`);
  assert.ok(Math.abs(report.serverCpuMsPerSearch - each.reduce((a, b) => a + b, 0)) < 0.05);
});
