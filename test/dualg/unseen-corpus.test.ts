/**
 * `kf eval retrieval --retriever dualg` on a corpus and questions it has never seen: the shipped default runs
 * with nothing but the corpus (index, then the DualG graph prepared as an artifact), prints the usual JSON
 * with the scorer that ranked, and a second evaluation reuses the cached graph instead of rebuilding it.
 * The fixture is written here (our own passages, in the 2Wiki file format).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kfInProcess } from '../_shared/cli-in-process';
import { ownScratch } from '../_shared/scratch';
import { PAINTER_PASSAGES, PAINTER_QUESTIONS } from './painter-world.helper';

const PASSAGES = PAINTER_PASSAGES;
const QUESTIONS = PAINTER_QUESTIONS;

test('kf eval retrieval --retriever dualg on an unseen corpus: prepares from the corpus alone, same JSON, graph cached', { timeout: 10 * 60_000 }, async () => {
  const dir = ownScratch('kf-dualg-unseen-');
  try {
    const corpus = path.join(dir, 'corpus.json');
    const questions = path.join(dir, 'questions.json');
    fs.writeFileSync(corpus, JSON.stringify(PASSAGES));
    fs.writeFileSync(questions, JSON.stringify(QUESTIONS));
    const args = [
      'eval',
      'retrieval',
      '--bench',
      '2wiki',
      '--retriever',
      'dualg',
      '--corpus',
      corpus,
      '--questions',
      questions,
      '--k',
      '2,5',
      '--embedder',
      'hash',
      '--cache',
      path.join(dir, 'indexes'),
      '--retriever-settings',
      JSON.stringify({ artifacts: path.join(dir, 'artifacts') }),
      '--quiet',
    ];
    const first = await kfInProcess(args);
    assert.equal(first.code, 0, first.err);
    const r = JSON.parse(first.out.trim().split('\n').pop()!);
    assert.equal(r.questions, 3);
    assert.equal(typeof r.recall['2'], 'number', JSON.stringify(r));
    assert.equal(typeof r.allFound['5'], 'number');
    assert.equal(r.system.scorer, 'heuristic', 'the shipped default names its scorer');
    assert.equal(r.system.label, 'scorer heuristic (untrained)');
    assert.match(String(r.system.pattern), /stand-in/, 'no pattern stage in a retrieval evaluation: the rule stand-in, labelled');
    const graphs = fs.readdirSync(path.join(dir, 'artifacts')).flatMap((k) => fs.readdirSync(path.join(dir, 'artifacts', k)).map((x) => `${k}/${x}`));
    assert.ok(
      graphs.some((g) => g.startsWith('dualg-graph/')),
      `the graph is an artifact: ${graphs.join(', ')}`,
    );
    const before = graphs.length;
    const second = await kfInProcess(args);
    assert.equal(second.code, 0, second.err);
    const r2 = JSON.parse(second.out.trim().split('\n').pop()!);
    assert.equal(r2.index.built, false, 'the index is reused');
    assert.deepEqual([r2.recall, r2.allFound], [r.recall, r.allFound], 'the same figures from the cached graph');
    const after = fs.readdirSync(path.join(dir, 'artifacts')).flatMap((k) => fs.readdirSync(path.join(dir, 'artifacts', k)));
    assert.equal(after.length, before, 'no second graph built');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
