/**
 * `kf ask` for one configuration of each pipeline family on the tiny demo world
 * (the compiled CLI, as a user runs it): S4 (one-shot), M5 and P1 (KnowForge
 * agents), DG (DualG-MRAG). Each builds what it needs, says it is loading the
 * index, exits 0 and prints exactly one FINAL ANSWER line; DG prints its decoded
 * paths. The output helpers are checked on both pool-trace shapes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { citedFragments, withoutFinalAnswerLine } from '../../lib/cli/ask-output';
import { decodedPaths } from '../../lib/dualg/trace-section';
import { demoExperimentFile } from '../../lib/cli/commands/ask';
import { repoRoot } from '../../lib/util/paths';
import { nonEmpty } from '../_shared/non-empty';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { cannotRunCompiled, kf } from './helpers';

test('citations resolve through a listed pool (agents) or the rendered pool text (one-shot, DualG); FINAL ANSWER is stripped for printing once', () => {
  const agentPool = [{ kind: 'pool', blocks: [{ n: 2, id: 'novrem#3', kind: 'table' }] }];
  assert.deepEqual(citedFragments('Novrem [2], see also [7].', agentPool), ['[2] novrem#3 (table)', '[7] (not in the pool)']);
  const statsOnly = [{ kind: 'pool', blocks: 2, chars: 80 }];
  const poolText = '[1] Novrem › History: founded in 1802\n\n[fig 2] Chart of Kraenmox population';
  assert.deepEqual(citedFragments('It is Kraenmox [fig 2] [1] [fig 2].', statsOnly, poolText), [
    '[fig 2] Chart of Kraenmox population',
    '[1] Novrem › History: founded in 1802',
  ]);
  assert.equal(withoutFinalAnswerLine('Because [1].\nFINAL ANSWER: Novrem'), 'Because [1].');
  assert.equal(withoutFinalAnswerLine('**Final Answer:** 3'), '');
});

test('decoded paths come from graph searches only', () => {
  assert.equal(decodedPaths([{ kind: 'search', by: 'oneshot', hits: [] }]), undefined);
  const steps = [{ from: 'Novrem', relation: 'mentions', to: 'Kraenmox', source: { docId: 'novrem' } }];
  const text = decodedPaths([{ kind: 'search', by: 'dualg', paths: [{ score: 1.5, steps, docs: ['novrem'] }] }]);
  assert.match(text ?? '', /Path 1 \(score 1\.500\):\n {2}Novrem -mentions-> Kraenmox \[novrem\]/);
});

test('decoded paths of several searches are printed best score first', () => {
  const step = (to: string) => [{ from: 'Novrem', relation: 'mentions', to, source: { docId: 'novrem' } }];
  const text = decodedPaths([
    { kind: 'search', by: 'dualg', paths: [{ score: 0.2, steps: step('Low'), docs: ['novrem'] }] },
    {
      kind: 'search',
      by: 'dualg',
      paths: [
        { score: 0.9, steps: step('High'), docs: ['novrem'] },
        { score: 0.5, steps: step('Mid'), docs: ['novrem'] },
      ],
    },
  ]);
  const order = [...(text ?? '').matchAll(/^Path \d \(score ([\d.]+)\):\n {2}Novrem -mentions-> (\w+)/gm)].map((m) => `${m[2]} ${m[1]}`);
  assert.deepEqual(order, ['High 0.900', 'Mid 0.500', 'Low 0.200']);
});

test('a configuration name finds its demo-world experiment', () => {
  for (const [name, dir] of [
    ['S4', 'demo'],
    ['M5', 'knowforge/demo'],
    ['DG', 'dualg/demo'],
  ])
    assert.equal(path.relative(path.join(repoRoot(), 'experiments'), demoExperimentFile(name) ?? '').replace(/\\/g, '/'), `${dir}/${name}.toml`);
  assert.equal(demoExperimentFile('NO-SUCH'), undefined);
});

test('kf ask on the tiny demo: S4, M5, P1 and DG exit 0 with one FINAL ANSWER line (DG with its decoded paths)', { timeout: 15 * 60_000 }, async (t) => {
  const why = cannotRunCompiled();
  if (why) {
    t.skip(why);
    return;
  }
  const world = await tinyDemoWorld();
  const questions = JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as { question: string; hops?: number }[];
  const question = nonEmpty(questions, 'tiny demo questions').find((q) => (q.hops ?? 1) >= 2) ?? questions[0];
  for (const config of ['S4', 'M5', 'P1', 'DG']) {
    if (config === 'DG') {
      // Training is never implicit: without --train the missing checkpoint is refused with its estimate.
      // Fresh artifact and checkpoint folders: a checkpoint an earlier test run trained (shared scratch) would be used instead.
      const fresh = { KF_ARTIFACTS: ownScratch('kf-ask-artifacts-'), KF_GNN_CHECKPOINTS: ownScratch('kf-ask-gnn-') };
      const refused = await kf(['ask', '--preset', 'tiny', '--config', config, question.question], { timeoutMs: 5 * 60_000, env: fresh });
      assert.notEqual(refused.code, 0, `kf ask --config DG without --train trains nothing\n${refused.stdout}\n${refused.stderr}`);
      assert.match(refused.stderr, /gnn_training_not_asked|kf run and kf ask never start that on their own/, refused.stderr);
      assert.match(refused.stderr, /--train/, 'the refusal names --train');
    }
    const r = await kf(['ask', '--preset', 'tiny', '--config', config, ...(config === 'DG' ? ['--train'] : []), question.question], { timeoutMs: 5 * 60_000 });
    const label = `kf ask --config ${config}`;
    assert.equal(r.code, 0, `${label} exit code\n${r.stdout}\n${r.stderr}`);
    assert.equal(r.stdout.match(/^FINAL ANSWER:/gm)?.length, 1, `${label}: exactly one FINAL ANSWER line\n${r.stdout}`);
    assert.match(r.stdout, /^cited: /m, `${label}: says what it cited`);
    assert.match(r.stdout, /offline backend: not model results/, `${label}: offline answers are labelled`);
    assert.match(r.stderr, /^loading index /m, `${label}: a loading-index line during warm-up\n${r.stderr}`);
    assert.doesNotMatch(r.stderr, /TypeError|^\s+at /m, `${label}: no crash\n${r.stderr}`);
    if (config === 'DG') assert.match(r.stdout, /^decoded paths:\nPath 1 \(score/m, `${label}: the decoded paths\n${r.stdout}`);
  }
});
