/**
 * A plug-in written against the contract alone (fixtures/toy-plugin.ts), loaded by KF_PLUGINS
 * without touching any other file: its retriever runs through `kf eval retrieval --retriever toy`,
 * its configuration (toy-S3: the one-shot S3 over the toy retriever) through `kf run`, and both
 * score the same ranked evidence; its notebook series join the built-in ones in the listing the
 * comparison notebooks read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { kfInProcess as kf } from '../_shared/cli-in-process';
import { ensureDemoWorld } from '../../lib/demo';
import { notebookSeries } from '../../lib/report/notebook-series';

// Compiled tests (npm test) load the built .js beside this file; the fast loop on sources loads the .ts.
const FIXTURE = path.join(__dirname, 'fixtures', `toy-plugin${path.extname(__filename)}`);

test('a toy plug-in adds a retriever and a configuration that kf eval retrieval and kf run use', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-toy-'));
  const world = await ensureDemoWorld({ preset: 'tiny', dir: path.join(tmp, 'world') });
  const before = process.env.KF_PLUGINS;
  process.env.KF_PLUGINS = FIXTURE;
  try {
    const corpus = path.join(world.dir, 'corpus');
    const questionsFile = path.join(world.dir, 'questions.json');
    const ev = await kf([
      'eval',
      'retrieval',
      '--bench',
      'demo',
      '--corpus',
      corpus,
      '--questions',
      questionsFile,
      '--retriever',
      'toy',
      '--embedder',
      'hash',
      '--offline',
      '--ocr',
      'off',
      '--index',
      path.join(tmp, 'index'),
      '--out',
      path.join(tmp, 'eval'),
      '--quiet',
    ]);
    assert.equal(ev.code, 0, ev.err);
    const summary = JSON.parse(ev.out);
    assert.equal(summary.mode, 'toy');
    assert.ok(summary.n > 0, 'questions with gold were scored');
    const evalRecs = fs
      .readFileSync(path.join(tmp, 'eval', 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.ok(
      evalRecs.some((r) => r.hits.length > 0),
      'the toy found fragments',
    );

    const bad = await kf(['eval', 'retrieval', '--bench', 'demo', '--corpus', corpus, '--questions', questionsFile, '--retriever', 'tyo', '--quiet']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /did you mean "toy"/);
    const evalArgs = ['eval', 'retrieval', '--bench', 'demo', '--corpus', corpus, '--questions', questionsFile, '--retriever', 'toy'];
    const cached = ['--embedder', 'hash', '--offline', '--ocr', 'off', '--index', path.join(tmp, 'index'), '--quiet'];
    const badSettings = await kf([...evalArgs, ...cached, '--retriever-settings', '[1]']);
    assert.equal(badSettings.code, 1);
    assert.match(badSettings.err, /--retriever-settings must be a JSON object/);

    const exp = path.join(tmp, 'toy.toml');
    fs.writeFileSync(
      exp,
      [
        'name = "toy-S3"',
        'seed = 0',
        '[benchmark]',
        'name = "demo"',
        `paths = { questions = ${JSON.stringify(questionsFile)}, corpus = ${JSON.stringify(corpus)} }`,
        '[pipeline]',
        'name = "toy-S3"',
        '[index]',
        `dir = ${JSON.stringify(path.join(tmp, 'index'))}`,
        'build = "ensure"',
        'embedder = "hash"',
        'options = { ingest = { ocr = "off" } }',
        '[models.cache]',
        'mode = "off"',
      ].join('\n'),
    );
    const run = await kf(['run', exp, '--out', path.join(tmp, 'results'), '--run-id', 'toy', '--json']);
    assert.equal(run.code, 0, run.err);
    const recs = fs
      .readFileSync(path.join(tmp, 'results', 'toy', 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(recs.length, evalRecs.length);
    const evalDocs = new Map(evalRecs.map((r) => [r.id, r.hits.map((h: { docId: string }) => h.docId)]));
    let compared = 0;
    for (const r of recs) {
      assert.equal(r.error, null, `${r.id}: ${JSON.stringify(r.error)}`);
      assert.equal(r.timings.searches, 1);
      if (!evalDocs.get(r.id)?.length) continue;
      assert.deepEqual(r.retrievalStats.firstSearchDocs, evalDocs.get(r.id), `${r.id}: kf run searched the toy as kf eval did`);
      compared++;
    }
    assert.ok(compared > 0, 'at least one question compared');
  } finally {
    if (before === undefined) delete process.env.KF_PLUGINS;
    else process.env.KF_PLUGINS = before;
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("a toy plug-in's notebook series join the built-in ones in the notebooks' listing", () => {
  const before = process.env.KF_PLUGINS;
  process.env.KF_PLUGINS = FIXTURE;
  try {
    const retrieval = notebookSeries('retrieval');
    assert.deepEqual(
      retrieval.map((e) => `${e.plugin}:${e.name}`),
      ['dualg:dualg-gnn', 'dualg:dualg', 'dualg:ppr', 'toy:toy'],
      'built-in series first (load order), then the toy retriever',
    );
    const qa = notebookSeries('qa');
    assert.deepEqual(qa.at(-1), { plugin: 'toy', name: 'toy-S3', label: 'toy one-shot', known: true, retriever: 'toy' });
    assert.equal(qa.filter((e) => e.plugin === 'knowforge').length, 10, "KnowForge's main comparison rows");
    assert.deepEqual(
      notebookSeries('qa', { set: 'ablations' }).map((e) => e.retriever),
      ['dualg-gnn', 'dualg-gnn', 'dualg-gnn', 'dualg-gnn-no-micro', 'dualg-no-macro', 'dualg', 'ppr'],
      'each DualG ablation row names the retriever it searches with',
    );
    assert.deepEqual(notebookSeries('qa', { set: 'no-such-set' }), []);
    const unknown = [...retrieval, ...qa, ...notebookSeries('qa', { set: 'index-factors' }), ...notebookSeries('qa', { set: 'beside-retrievers' })].filter(
      (e) => !e.known,
    );
    assert.deepEqual(unknown, [], 'every series names a registered retriever or configuration');
  } finally {
    if (before === undefined) delete process.env.KF_PLUGINS;
    else process.env.KF_PLUGINS = before;
  }
});
