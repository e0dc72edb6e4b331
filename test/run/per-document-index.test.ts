/**
 * index.perDocument: each question's document gets its own index (built from
 * the corpus restricted to that file, cached per document), so a question's
 * knowledge base holds that document only; a second question of the same
 * document reuses the index, another document gets another one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BenchmarkData, Question } from '../../lib/bench/types';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { loadExperiment } from '../../lib/run/config';
import { asQuestionIndex, indexProviderFromConfig } from '../../lib/run/index-provider';
import { repoRoot } from '../../lib/util/paths';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';

test('one index per document, built once and reused; each view holds its document only', { timeout: 10 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  const state = ownScratch('kf-perdoc-');
  const before = process.env.KF_STATE_DIR;
  process.env.KF_STATE_DIR = state; // the per-document indexes go to this test's own cache
  try {
    const exp = loadExperiment(path.join(repoRoot(), 'experiments', 'knowforge', 'demo', 'M5.toml'), {
      overrides: [...demoPresetOverrides('tiny', world.dir).overrides, 'index.perDocument=true'],
    });
    const config = { ...exp.config, index: { ...exp.config.index!, options: { ingest: { ocr: 'off' } } } };
    const corpusDir = path.join(world.dir, 'corpus');
    const docs = fs
      .readdirSync(corpusDir)
      .filter((f) => /\.(pdf|md|html)$/.test(f))
      .map((f) => f.replace(/\.[^.]+$/, ''))
      .sort()
      .slice(0, 2);
    assert.equal(docs.length, 2);
    const data = { name: 'demo', corpusDir, questions: [] } as unknown as BenchmarkData;
    const ix = indexProviderFromConfig(config, { data })!;
    const q = (id: string, doc: string) => ({ id, benchmark: 'demo', question: 'what is it?', doc }) as unknown as Question;
    const a1 = asQuestionIndex(await ix.provider(q('q1', docs[0])))!;
    assert.deepEqual(
      a1.kb!.documents().map((d) => d.id),
      [docs[0]],
      'the first document only',
    );
    const first = ix.info().perDocument!;
    assert.equal(first.length, 1);
    assert.equal(first[0].built, true);
    const a2 = asQuestionIndex(await ix.provider(q('q2', docs[0])))!;
    assert.deepEqual(
      a2.kb!.documents().map((d) => d.id),
      [docs[0]],
    );
    assert.equal(ix.info().perDocument!.length, 1, 'the same document reuses its index');
    const b = asQuestionIndex(await ix.provider(q('q3', docs[1])))!;
    assert.deepEqual(
      b.kb!.documents().map((d) => d.id),
      [docs[1]],
    );
    const dirs = ix.info().perDocument!.map((p) => p.dir);
    assert.equal(new Set(dirs).size, 2, 'one folder per document');
    // A fresh provider (a rerun) finds both indexes current.
    const again = indexProviderFromConfig(config, { data })!;
    await again.provider(q('q1', docs[0]));
    assert.equal(again.info().perDocument![0].built, false, 'cached per document');
    await assert.rejects(ix.provider({ id: 'x', question: 'q' } as unknown as Question), /names no document/);
  } finally {
    if (before === undefined) delete process.env.KF_STATE_DIR;
    else process.env.KF_STATE_DIR = before;
    fs.rmSync(state, { recursive: true, force: true });
  }
});
