/**
 * The project holds only its own wording (house rule "our own words only"): no
 * prompt file, comment or message shares a run of 12 words with either paper.
 * The papers are read from ../shared/seeds at test time (skipped, with the
 * reason, when absent). Column and row labels of the papers' tables and figures
 * may stay: they are names, not sentences, and are listed below.
 *
 * The texts and code of the released runner (its kfbench/*.py files) are compared too: the checkout
 * KF_KNOWFORGE_BENCH names, else ../shared/reference/knowforge-bench (skipped, with the reason, when absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { repoRoot } from '../../lib/util/paths';
import { sharedRuns, wordRuns, wordsOf } from '../../lib/util/shared-wording';
import { nonEmpty } from '../_shared/non-empty';

const SEEDS = path.resolve(repoRoot(), '..', 'shared', 'seeds');
const PAPERS = ['knowforge-paper.txt', 'dualg-mrag-paper.txt'];

/** Labels of the papers' tables and figures that the project reuses as labels (allowed to match). */
const LABELS = [
  // KnowForge Table 9 (index construction cost): the column header of lib/index/report.ts.
  'corpus source docs markdown chars images ocr pages embeddings pre proc tokens extraction tokens text m total tokens',
  // DualG-MRAG Table 3: the ablation variants.
  'dualg mrag full w o path injection w o micro graph w o macro graph',
  // KnowForge Figure 1: the Locator's tool names.
  'search knowledge list books book toc list tables query table get table list media find figure',
  // The knowledge-base API's endpoint paths (the README's `kf serve kb` section lists them): names, not sentences.
  'api v2 kb uuid card overview sources search fragment context book toc list media find figure media context tables query table table download',
  // File extensions and their MIME types (the knowledge-base download's table): names, not sentences.
  'png image png jpg image jpeg jpeg image jpeg webp image webp gif image gif bmp image bmp tif image tiff tiff image tiff pdf application pdf',
].map((l) => wordsOf(l).join(' '));

const TEXT_FILE = /\.(ts|js|mjs|md|txt|toml|json|py|ipynb)$/;

function projectFiles(): string[] {
  const out = execFileSync('git', ['ls-files'], { cwd: repoRoot(), encoding: 'utf8' });
  return out
    .split('\n')
    .filter((f) => TEXT_FILE.test(f) && f !== 'package-lock.json' && !f.startsWith('test/__fixtures__/bench/'))
    .filter((f) => fs.existsSync(path.join(repoRoot(), f)));
}

function isLabel(run: string): boolean {
  return LABELS.some((l) => l.includes(run));
}

function copiedRuns(reference: Set<string>, skip: (f: string) => boolean = () => false): string[] {
  const found: string[] = [];
  for (const f of nonEmpty(projectFiles(), 'tracked project files').filter((x) => !skip(x))) {
    const text = fs.readFileSync(path.join(repoRoot(), f), 'utf8');
    for (const run of sharedRuns(text, reference)) if (!isLabel(run)) found.push(`${f}: "${run}"`);
  }
  return found;
}

test('own words: no tracked file shares a 12-word run with either paper (table labels aside)', (t) => {
  const missing = PAPERS.filter((p) => !fs.existsSync(path.join(SEEDS, p)));
  if (missing.length) {
    t.skip(`the papers are not at ${SEEDS} (${missing.join(', ')} missing): nothing to compare against`);
    return;
  }
  const reference = new Set<string>();
  for (const p of PAPERS) for (const r of wordRuns(fs.readFileSync(path.join(SEEDS, p), 'utf8'))) reference.add(r);
  assert.ok(reference.size > 1000, 'the papers gave too few word runs to be a real comparison');
  const found = copiedRuns(reference);
  assert.deepEqual(found, [], `copied wording (rewrite it in our own words):\n${found.slice(0, 20).join('\n')}`);
});

test('own words: no tracked file shares a 12-word run with the released runner (its texts and code)', (t) => {
  const dir = process.env.KF_KNOWFORGE_BENCH ?? path.resolve(repoRoot(), '..', 'shared', 'reference', 'knowforge-bench');
  if (!fs.existsSync(path.join(dir, 'kfbench'))) {
    t.skip(`no checkout of metask-ai/knowforge-bench at ${dir} (set KF_KNOWFORGE_BENCH): the runner comparison is skipped`);
    return;
  }
  const reference = new Set<string>();
  // Every Python file of the checkout (kfbench/ and its score/ folder) and its README.
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((x) => x.endsWith('.py') || /README(\.[\w-]+)?\.md$/.test(x));
  for (const f of files) for (const r of wordRuns(fs.readFileSync(path.join(dir, f), 'utf8'))) reference.add(r);
  const found = copiedRuns(reference);
  assert.deepEqual(found, [], `copied runner wording:\n${found.slice(0, 20).join('\n')}`);
});

test('own words: the comparison itself finds a copied run and ignores punctuation and case', () => {
  const ref = wordRuns('One two three four five six seven eight nine ten eleven twelve thirteen.');
  assert.deepEqual(sharedRuns('x ONE two, three four five six seven eight nine ten eleven twelve y', ref), [
    'one two three four five six seven eight nine ten eleven twelve',
  ]);
  assert.deepEqual(sharedRuns('one two three four five six seven eight nine ten eleven', ref), []);
  assert.equal(wordsOf('知识库 ab').length, 4);
});
