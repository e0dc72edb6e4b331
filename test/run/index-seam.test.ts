import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runExperiment } from '../../lib/run/runner';
import { readRecords } from '../../lib/run/records';
import { readRunManifest } from '../../lib/run/manifest';
import { KfError } from '../../lib/util/errors';
import { experiment, fakePipeline, fakeRouter, makeQuestions, tmpDir, writeBench } from './helpers';

const TOPICS = [
  'volcanoes erupt molten basalt',
  'glaciers carve valleys of granite',
  'coral reefs shelter tropical fish',
  'desert dunes migrate with wind',
  'rainforest canopies trap humidity',
];

/** The demo-format questions over five small Markdown documents whose text matches their questions. */
function setup() {
  const dir = tmpDir('kf-ix-');
  const qs = makeQuestions(10).map((q, i) => ({ ...q, question: `Which document says ${TOPICS[i % 5]}?` }));
  const files = writeBench(dir, qs);
  TOPICS.forEach((t, i) => fs.writeFileSync(path.join(files.corpus, `d${i}.md`), `# Document ${i}\n\nThis document explains that ${t}. ${t}.\n`));
  return { dir, files, results: path.join(dir, 'results') };
}

test('index.build = "ensure": the run builds the index from the corpus, opens it, and each question searches it', async () => {
  const { dir, files, results } = setup();
  const ixDir = path.join(dir, 'index');
  const exp = experiment(files, { index: { dir: ixDir, build: 'ensure', embedder: 'hash' } });
  const out = await runExperiment({ experiment: exp, runId: 'ix', resultsDir: results, router: fakeRouter('offline', 'offline'), pipeline: fakePipeline() });
  assert.equal(out.status, 'completed');
  const m = readRunManifest(path.join(results, 'ix'))!;
  assert.equal(m.index!.built, true);
  assert.equal(m.index!.dir, ixDir);
  assert.equal(m.index!.offline, true);
  const recs = readRecords(path.join(results, 'ix', 'records.jsonl')).records;
  assert.equal(recs.length, 10);
  for (const r of recs) {
    assert.equal(r.timings.searches, 1, r.id);
    assert.equal(r.retrievalStats!.firstSearchDocs[0], `d${Number(r.id.slice(1)) % 5}`, `${r.id}: the matching document ranks first`);
    assert.equal(r.retrieval!['R@1'], 1);
  }
  // A second run finds the index current and does not rebuild it.
  const again = await runExperiment({ experiment: exp, runId: 'ix2', resultsDir: results, router: fakeRouter('offline', 'offline'), pipeline: fakePipeline() });
  assert.equal(again.manifest.index!.built, false);
});

test('index.build = "never" with no built index: the run fails before the first question, manifest says why', async () => {
  const { dir, files, results } = setup();
  const exp = experiment(files, { index: { dir: path.join(dir, 'nothing-here') } });
  await assert.rejects(
    runExperiment({ experiment: exp, runId: 'noix', resultsDir: results, router: fakeRouter('offline', 'offline'), pipeline: fakePipeline() }),
    (e: unknown) => e instanceof KfError && e.code === 'index_missing' && /kf index build/.test(e.hint),
  );
  const m = readRunManifest(path.join(results, 'noix'))!;
  assert.equal(m.status, 'failed');
  assert.match(m.statusDetail!, /^index: no built index/);
  assert.equal(readRecords(path.join(results, 'noix', 'records.jsonl')).records.length, 0);
});
