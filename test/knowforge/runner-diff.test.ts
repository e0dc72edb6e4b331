/**
 * The differential test of issue 31: the authors' released runner (run from a temporary copy of
 * ../shared/reference/knowforge-bench) and the harness in runner mode, against ONE scripted model
 * (replies a deterministic function of the request, every request recorded) and ONE `kf serve kb`
 * over per-document indexes of MMLongBench-Doc PDFs (built once into the shared test folder, offline,
 * OCR off). For S4, M5, P1 and P0 on the 12 questions of the two smallest documents and the 5 of
 * watch_d.pdf (figures, so read_media sends images): every model request the harness sends equals
 * the runner's, in the same order (vision calls, which the runner runs concurrently, as a set), and
 * the final answers are equal. One runner process per configuration answers every question.
 *
 * Skipped, with the reason, when the runner checkout, python3 + requests, or the benchmark is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchDir, repoRoot } from '../../lib/util/paths';
import { runComparison } from '../../lib/knowforge/commands/runner-diff/comparison';
import { createModelRouter } from '../../lib/models/router';
import { runnerUnavailable } from '../../lib/knowforge/commands/runner-diff/released-runner';
import { sharedScratch } from '../_shared/scratch';
import { nonEmpty } from '../_shared/non-empty';

const CHECKOUT = process.env.KF_KNOWFORGE_BENCH ?? path.resolve(repoRoot(), '..', 'shared', 'reference', 'knowforge-bench');
const BENCH = benchDir('mmlongbench-doc');
const MMLB_EVAL = path.resolve(repoRoot(), '..', 'shared', 'reference', 'MMLongBench-Doc');

test('runner mode equals the released runner: S4, M5, P1, P0 on 17 MMLongBench-Doc questions, request for request', async (t) => {
  const why = runnerUnavailable(CHECKOUT) ?? (fs.existsSync(path.join(BENCH, 'samples.dev.json')) ? undefined : `MMLongBench-Doc is absent at ${BENCH}`);
  if (why) {
    t.skip(why);
    return;
  }
  // With MMLongBench-Doc's eval checkout, the scores are compared too (else said, and the requests alone).
  const scoring = fs.existsSync(path.join(MMLB_EVAL, 'eval', 'eval_score.py'));
  if (!scoring) t.diagnostic(`no MMLongBench-Doc eval checkout at ${MMLB_EVAL}: scores not compared`);
  const results = await runComparison({
    checkout: CHECKOUT,
    benchDir: BENCH,
    mmlbRepo: scoring ? MMLB_EVAL : undefined,
    modes: ['S4', 'M5', 'P1', 'P0'],
    limit: 12,
    docs: ['watch_d.pdf'],
    work: sharedScratch('runner-diff'),
    models: createModelRouter,
  });
  assert.equal(results.length, 4 * 17);
  for (const r of nonEmpty(results, 'the compared questions')) {
    const where = `${r.mode} ${r.qid} (${r.doc})`;
    assert.ok(r.runnerRequests >= 2, `${where}: the runner sent ${r.runnerRequests} requests`);
    assert.equal(r.harnessError, undefined, `${where}: the harness failed`);
    assert.equal(r.first, undefined, `${where}: request ${(r.first?.index ?? 0) + 1} differs (- runner, + harness):\n${r.first?.diff}`);
    assert.equal(r.harnessResponse, r.runnerResponse, `${where}: final answers differ`);
    if (scoring) {
      // The runner's scorer and kf score (judge: the scripted model), each on both sides' answers.
      const s = r.scores ?? {};
      assert.equal(typeof s.runnerOnRunner, 'number', `${where}: the runner's scorer gave no score`);
      for (const [k, v] of Object.entries(s))
        assert.equal(v, s.runnerOnRunner, `${where}: ${k} = ${v}, the runner's scorer on its answers = ${s.runnerOnRunner}`);
    }
  }
  if (scoring)
    assert.ok(
      results.some((r) => (r.scores?.kfOnHarness ?? 0) > 0),
      'every score is 0',
    );
  // The script reaches the loop's guidance paths: some agent question ran more calls than the S4 pair.
  assert.ok(results.some((r) => r.mode !== 'S4' && r.runnerRequests >= 8));
  // Every tool of the catalogue ran somewhere, and read_media sent images to the vision model.
  const called = new Set(results.flatMap((r) => r.runnerTools));
  for (const tool of [
    'search_knowledge',
    'fragment_context',
    'read_media',
    'media_context',
    'find_figure',
    'list_media',
    'list_books',
    'book_toc',
    'list_tables',
    'query_table',
    'get_table',
  ])
    assert.ok(called.has(tool), `no question called ${tool}`);
  assert.ok(
    results.some((r) => r.runnerVision > 0),
    'no vision request',
  );
});
