/**
 * Table 11's rows: per question type and over all, means x100 of R@k and
 * R@all over the scored questions (null questions counted, not scored); and
 * the loader says what is missing when the article corpus is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as os from 'node:os';
import { multihopRagShared, retrievalByType } from '../../lib/knowforge/reports/retrieval-by-type';
import type { PipelineRetrievalRecord } from '../../lib/run/pipeline-retrieval';

const rec = (id: string, scores: Record<string, number> | null): PipelineRetrievalRecord => ({
  id,
  question: id,
  gold: [],
  excluded: !scores,
  scores,
  searches: [],
});

test('means per question type and over all; unscored questions counted, not averaged', () => {
  const types: Record<string, string> = { a: 'inference_query', b: 'inference_query', c: 'comparison_query', d: 'null_query' };
  const rows = retrievalByType(
    [
      rec('a', { 'R@1': 1, 'R@3': 1, 'R@8': 1, 'R@all': 1 }),
      rec('b', { 'R@1': 0, 'R@3': 0.5, 'R@8': 1, 'R@all': 1 }),
      rec('c', { 'R@1': 0, 'R@3': 0, 'R@8': 0.5, 'R@all': 0.5 }),
      rec('d', null),
    ],
    (id) => types[id],
  );
  const by = Object.fromEntries(rows.map((r) => [r.type, r]));
  assert.deepEqual(Object.keys(by), ['comparison_query', 'inference_query', 'null_query', 'all']);
  assert.deepEqual(by.inference_query, { type: 'inference_query', questions: 2, scored: 2, 'R@1': 50, 'R@3': 75, 'R@8': 100, 'R@all': 100 });
  assert.deepEqual(by.null_query, { type: 'null_query', questions: 1, scored: 0, 'R@1': null, 'R@3': null, 'R@8': null, 'R@all': null });
  assert.equal(by.all.questions, 4);
  assert.equal(by.all.scored, 3);
  assert.equal(by.all['R@8'], 83.3);
});

test('without the article corpus the loader names the file and what to do', () => {
  const r = multihopRagShared(path.join(os.tmpdir(), 'no-such-dir-kf', 'corpus.json'));
  assert.equal(r.data, undefined);
  assert.match(r.missing ?? '', /corpus\.json.*not here.*download/);
});
