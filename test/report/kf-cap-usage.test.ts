/**
 * Table 8's usage columns from the records' counters: at-cap shares per role,
 * zero-read share, p50/p90 of the rounds used; failed questions left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capsOfLabel, capUsageRows } from '../../lib/knowforge/reports/cap-usage';
import type { LoadedRun } from '../../lib/run/results';
import type { RunRecord } from '../../lib/run/records';

const rec = (counters: Record<string, number>, error?: unknown) => ({ id: 'q', counters, ...(error ? { error } : {}) }) as unknown as RunRecord;
const run = (records: RunRecord[]) => ({ runId: 'r', dir: '/tmp/r', records, badLines: 0, duplicates: [] }) as LoadedRun;

test('cap labels: 4+4 and L4R4', () => {
  assert.deepEqual(capsOfLabel('4+1'), { locator: 4, reader: 1 });
  assert.deepEqual(capsOfLabel('L0R0'), { locator: 0, reader: 0 });
  assert.deepEqual(capsOfLabel('4+4 #2'), { locator: 4, reader: 4 });
  assert.equal(capsOfLabel('M5'), undefined);
});

test('at-cap shares, zero reads and p50/p90 per role', () => {
  const runs = new Map<string, LoadedRun>([
    [
      '2+2',
      run([
        rec({ locatorRounds: 2, readerRounds: 1, reads: 1 }),
        rec({ locatorRounds: 1, readerRounds: 2, reads: 0 }),
        rec({ locatorRounds: 2, readerRounds: 2, reads: 3 }),
        rec({ locatorRounds: 1, readerRounds: 0, reads: 0 }),
        rec({ locatorRounds: 2, readerRounds: 2, reads: 2 }, { kind: 'transport' }),
      ]),
    ],
    ['M5', run([rec({ locatorRounds: 3 })])],
    ['0+0', run([rec({})])],
  ]);
  const rows = capUsageRows(runs);
  assert.equal(rows.length, 2, 'rows only for labels that name caps');
  const r = rows[0];
  assert.equal(r.n, 4, 'the failed question is left out');
  assert.equal(r['locator at cap %'], 50);
  assert.equal(r['reader at cap %'], 50);
  assert.equal(r['zero reads %'], 50);
  assert.equal(r['locator p50'], 1.5);
  assert.equal(r['reader p50'], 1.5);
  assert.ok(Math.abs((r['reader p90'] as number) - 2) < 1e-9);
  assert.equal(rows[1]['locator at cap %'], null, 'a cap of 0: the role never ran');
});
