import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { experimentFromObject } from '../../lib/run/config';
import { loadConfiguredBenchmark, selectQuestions } from '../../lib/run/questions';
import { runExperiment } from '../../lib/run/runner';
import { readRecords } from '../../lib/run/records';
import { paperSubset } from '../../lib/bench/subsets';
import { benchDir } from '../../lib/util/paths';
import { fakePipeline, fakeRouter, tmpDir } from './helpers';

test('real MultiHop-RAG files: the paper smoke subset selects, runs and scores with the official accuracy', async (t) => {
  if (!fs.existsSync(benchDir('multihop-rag', 'queries500.json')) || !fs.existsSync(benchDir('knowforge-subsets', 'mhr_sets.json'))) {
    t.skip(`MultiHop-RAG files not found under ${benchDir()} (set KF_SHARED to the shared folder)`);
    return;
  }
  const exp = experimentFromObject({ name: 'mhr-smoke', benchmark: { name: 'multihop-rag', subset: 'smoke' }, pipeline: { name: 'fake' } });
  const { data, files } = loadConfiguredBenchmark(exp.config);
  assert.equal(files.queries, benchDir('multihop-rag', 'queries500.json'));
  const sel = selectQuestions(data, exp.config);
  const ids = paperSubset('multihop-rag', 'smoke');
  assert.equal(sel.questions.length + sel.missingIds.length, ids.length);
  assert.ok(sel.questions.length > 0);
  assert.deepEqual(
    sel.questions.map((q) => q.id),
    ids.filter((id) => !sel.missingIds.includes(id)),
    'subset order is kept',
  );

  const results = path.join(tmpDir(), 'results');
  const out = await runExperiment({ experiment: exp, runId: 'mhr', resultsDir: results, router: fakeRouter('offline', 'offline'), pipeline: fakePipeline() });
  assert.equal(out.status, 'completed');
  assert.equal(out.manifest.benchmark.missingIds, sel.missingIds.length);
  assert.equal(out.manifest.benchmark.subset, 'smoke');
  const recs = readRecords(path.join(results, 'mhr', 'records.jsonl')).records;
  assert.equal(recs.length, sel.questions.length);
  for (const r of recs) {
    assert.ok(r.scores.acc === 0 || r.scores.acc === 1, `${r.id}: ${JSON.stringify(r.scores)}`);
    assert.equal(r.backend, 'offline');
  }
  // The fake pipeline answers the gold string when it is "right": official accuracy agrees.
  for (const r of recs) if (r.finalAnswer === r.gold) assert.equal(r.scores.acc, 1);
});
