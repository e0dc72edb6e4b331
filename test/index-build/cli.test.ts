/**
 * `kf index build` and `kf eval retrieval` through the CLI entry point: one JSON
 * object on stdout with the documented shape, per-question records, the index
 * cache reused on a second run, and one-line actionable errors.
 */
import { kfInProcess } from '../_shared/cli-in-process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { demoEvalRetrievalArgs, tinyDemoWorld } from '../_shared/scratch';
import { tempDir } from './helpers';
import { nonEmpty } from '../_shared/non-empty';

const kf = kfInProcess;

test('kf eval retrieval prints ONE JSON object (n, recall@k, allFound@k) and writes per-question records; the index is cached', async () => {
  const world = await tinyDemoWorld();
  const dir = tempDir('kf-cli-');
  const args = [
    ...demoEvalRetrievalArgs(world.dir),
    '--embedder',
    'hash',
    '--offline',
    '--ocr',
    'off',
    '--cache',
    path.join(dir, 'cache'),
    '--mode',
    'hybrid',
    '--out',
    path.join(dir, 'out'),
    '--quiet',
    '--json',
  ];
  const r = await kf(args);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trim().split('\n');
  assert.equal(lines.length, 1, 'exactly one line on stdout');
  const j = JSON.parse(lines[0]);
  const questions = JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as { goldDocs: string[] }[];
  assert.equal(j.n, questions.filter((q) => q.goldDocs.length).length);
  assert.deepEqual(Object.keys(j.recall), ['1', '2', '3', '5', '8']);
  for (const k of ['2', '5', '8']) assert.ok(j.allFound[k] >= 0 && j.allFound[k] <= 1);
  for (let i = 1; i < 5; i++) assert.ok(j.recall[['1', '2', '3', '5', '8'][i]] >= j.recall[['1', '2', '3', '5', '8'][i - 1]], 'recall grows with k');
  assert.ok(j.recall['8'] > 0.3, `the hybrid index finds gold documents (R@8 ${j.recall['8']})`);
  assert.equal(j.mode, 'hybrid');
  assert.equal(j.level, 'document');
  assert.equal(j.index.built, true);
  assert.equal(j.index.offline, true);
  const recs = fs
    .readFileSync(path.join(dir, 'out', 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(recs.length, questions.length);
  assert.ok(nonEmpty(recs).every((x) => Array.isArray(x.hits) && typeof x.id === 'string'));
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'out', 'summary.json'), 'utf8')).recall, j.recall);
  // Second run, other mode: the cached index is reused; the records file is replaced, not appended to.
  const r2 = await kf(args.map((a) => (a === 'hybrid' ? 'bm25' : a)).concat(['--k', '2,5']));
  const j2 = JSON.parse(r2.out);
  assert.equal(j2.index.built, false);
  assert.equal(j2.index.dir, j.index.dir);
  assert.deepEqual(Object.keys(j2.recall), ['2', '5']);
  assert.equal(
    fs
      .readFileSync(path.join(dir, 'out', 'records.jsonl'), 'utf8')
      .trim()
      .split('\n').length,
    questions.length,
  );
});

test('kf eval retrieval on passages (2Wiki layout) and kf index build --json; bad arguments fail with one actionable line', async () => {
  const dir = tempDir('kf-cli-');
  const corpus = path.join(dir, 'corpus.json');
  fs.writeFileSync(
    corpus,
    JSON.stringify([
      { title: 'Lothair II', text: 'Lothair II was king of Lotharingia. His mother was Ermengarde of Tours.' },
      { title: 'Ermengarde of Tours', text: 'Ermengarde of Tours died on 20 March 851.' },
      { title: 'Boso the Elder', text: 'Boso the Elder was a Frankish nobleman.' },
    ]),
  );
  const qs = path.join(dir, 'questions.json');
  fs.writeFileSync(
    qs,
    JSON.stringify([{ question: 'When did Ermengarde of Tours, the mother of Lothair II, die?', gold_titles: ['Lothair II', 'Ermengarde of Tours'] }]),
  );
  const r = await kf([
    'eval',
    'retrieval',
    '--bench',
    '2wiki',
    '--corpus',
    corpus,
    '--questions',
    qs,
    '--embedder',
    'hash',
    '--offline',
    '--cache',
    path.join(dir, 'cache'),
    '--quiet',
  ]);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.n, 1);
  assert.equal(j.recall['2'], 1);
  assert.equal(j.allFound['2'], 1);

  const b = await kf(['index', 'build', '--corpus', corpus, '--out', path.join(dir, 'idx'), '--embedder', 'hash', '--offline', '--json', '--quiet']);
  assert.equal(b.code, 0, b.err);
  const s = JSON.parse(b.out);
  assert.equal(s.summary.ok, 3);
  assert.equal(s.offline, true);
  assert.ok(fs.existsSync(path.join(dir, 'idx', 'cost-ledger.md')));

  const missing = await kf(['index', 'build', '--corpus', corpus]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /missing --out/);
  const bad = await kf(['index', 'build', '--corpus', path.join(dir, 'nope'), '--out', path.join(dir, 'x')]);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /does not exist/);
  assert.equal(bad.err.trim().split('\n').length, 1);
  const badK = await kf(['eval', 'retrieval', '--bench', '2wiki', '--k', '0,x']);
  assert.equal(badK.code, 2);
  assert.match(badK.err, /--k/);
});
