/**
 * Per-benchmark k-fold choices (lib/dualg/bench-settings.ts): an index built for a benchmark with a choice runs it,
 * the searcher's identity names it (never mistaken for the defaults), an explicit setting wins, and
 * `benchSettings = false` or another benchmark runs the defaults. End to end through `kf eval retrieval` on our own
 * passages written in the MuSiQue file format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kfInProcess } from '../_shared/cli-in-process';
import { ownScratch } from '../_shared/scratch';
import { BENCH_CHOICES, choiceLabel, withChoice } from '../../lib/dualg/bench-settings';
import { searcherSettings } from '../../lib/dualg/query/searcher-settings';

const PASSAGES = [
  { title: 'Odo Varnholt', text: 'Odo Varnholt was a landscape painter born in Quillan in 1840.' },
  { title: 'Quillan, Brevonia', text: 'This market town of Brevonia lies on the river Sellet, below the Orm hills.' },
  { title: 'Orm Hills', text: 'The Orm Hills are low chalk hills crossed by old drove roads.' },
  { title: 'Tessa Morrow', text: 'Tessa Morrow was a weaver who sold cloth at fairs in Quillan.' },
];

const paragraph = (i: number, supporting: boolean) => ({
  idx: i,
  title: PASSAGES[i].title,
  paragraph_text: PASSAGES[i].text,
  is_supporting: supporting,
});

const QUESTIONS = [
  { id: 'q1', question: 'Which river flows past the birthplace of Odo Varnholt?', answer: 'Sellet', paragraphs: PASSAGES.map((_, i) => paragraph(i, i < 2)) },
  { id: 'q2', question: 'What did Tessa Morrow sell?', answer: 'cloth', paragraphs: PASSAGES.map((_, i) => paragraph(i, i === 3)) },
];

test('withChoice: the choice under explicit settings, an explicit setting wins, and only what is left is named', () => {
  const choice = { benchmark: 'b', settings: { partialLink: 0.5, heuristic: { hub: 1 } }, evidence: 'kf kfold --bench b' };
  const all = withChoice({}, choice);
  assert.deepEqual(all.settings, { partialLink: 0.5, heuristic: { hub: 1 } });
  assert.equal(choiceLabel(all.inForce), 'b k-fold choice (partialLink 0.5, heuristic {"hub":1})');
  const mine = withChoice({ partialLink: 0, heuristic: { bridge: 0.45 } }, choice);
  assert.deepEqual(mine.settings, { partialLink: 0, heuristic: { hub: 1, bridge: 0.45 } });
  assert.deepEqual(mine.inForce?.settings, { heuristic: { hub: 1 } }, 'the overridden partialLink is not claimed');
  assert.equal(withChoice({ partialLink: 0, heuristic: { hub: 0.5 } }, choice).inForce, undefined, 'nothing left: the defaults label');
  assert.equal(choiceLabel(undefined), 'defaults');
  // The shipped MuSiQue choice is valid retriever settings.
  assert.equal(searcherSettings(withChoice({}, BENCH_CHOICES.musique).settings, 'heuristic').partialLink, 0.5);
});

test(
  'kf eval retrieval --retriever dualg --bench musique runs the MuSiQue k-fold choice and says so; opt-out runs the defaults',
  { timeout: 10 * 60_000 },
  async () => {
    const dir = ownScratch('kf-dualg-bench-settings-');
    try {
      const corpus = path.join(dir, 'corpus.json');
      const questions = path.join(dir, 'questions.json');
      fs.writeFileSync(corpus, JSON.stringify(PASSAGES));
      fs.writeFileSync(questions, JSON.stringify(QUESTIONS));
      const run = async (settings: Record<string, unknown>) => {
        const args = ['eval', 'retrieval', '--bench', 'musique', '--retriever', 'dualg', '--corpus', corpus, '--questions', questions, '--k', '2'];
        args.push('--embedder', 'hash', '--cache', path.join(dir, 'indexes'), '--quiet');
        args.push('--retriever-settings', JSON.stringify({ artifacts: path.join(dir, 'artifacts'), ...settings }));
        const r = await kfInProcess(args);
        assert.equal(r.code, 0, r.err);
        return JSON.parse(r.out.trim().split('\n').pop()!) as { system: Record<string, unknown> };
      };
      const chosen = await run({});
      assert.equal(chosen.system.settings, 'musique k-fold choice (partialLink 0.5)');
      assert.match(String(chosen.system.label), /settings: musique k-fold choice \(partialLink 0\.5\)/);
      assert.match(String(chosen.system.settingsFrom), /kf kfold --bench musique/);
      const plain = await run({ benchSettings: false });
      assert.equal(plain.system.settings, 'defaults');
      assert.equal(plain.system.label, 'scorer heuristic (untrained)');
      const explicit = await run({ partialLink: 0 });
      assert.equal(explicit.system.settings, 'defaults', 'an explicit setting replaced the whole choice');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
