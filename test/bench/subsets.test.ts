/**
 * Subsets: the seeded stratified sampler and the `kf subset` command (paper
 * lists on the real files when present; sampling on fixtures always).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Question } from '../../lib/bench/types';
import { readIdList, selectSubset, stratifiedSample } from '../../lib/bench/subsets';
import { parseFor } from '../../lib/cli/main';
import { command as subsetCommand } from '../../lib/cli/commands/subset';
import { errorMessage } from '../../lib/util/errors';
import { benchDir, repoRoot } from '../../lib/util/paths';
import { KfError } from '../../lib/util/errors';
import { commandContext } from '../../lib/cli/command-context';

function q(id: string, type: string, modality: Question['modality'] = ['text']): Question {
  return { id, benchmark: 'x', question: '?', answer: 'a', format: 'span', goldDocs: [], evidence: [], modality, type, meta: {} };
}

const pool: Question[] = [
  ...Array.from({ length: 60 }, (_, i) => q(`a${i}`, 'inference')),
  ...Array.from({ length: 30 }, (_, i) => q(`b${i}`, 'comparison')),
  ...Array.from({ length: 10 }, (_, i) => q(`c${i}`, 'null')),
];

test('stratified sample: proportional by field, seeded, input order kept, strata reported', () => {
  const s = stratifiedSample(pool, { n: 20, by: 'type', seed: 5 });
  assert.equal(s.ids.length, 20);
  assert.deepEqual(s.strata, { comparison: { size: 30, taken: 6 }, inference: { size: 60, taken: 12 }, null: { size: 10, taken: 2 } });
  assert.deepEqual(stratifiedSample(pool, { n: 20, by: 'type', seed: 5 }).ids, s.ids);
  assert.notDeepEqual(stratifiedSample(pool, { n: 20, by: 'type', seed: 6 }).ids, s.ids);
  const order = new Map(pool.map((x, i) => [x.id, i]));
  assert.deepEqual(
    [...s.ids].sort((x, y) => order.get(x)! - order.get(y)!),
    s.ids,
  );
  // Largest remainders: 7 of 100 -> 4.2, 2.1, 0.7 -> 4, 2, 1.
  assert.deepEqual(
    Object.values(stratifiedSample(pool, { n: 7, by: 'type', seed: 1 }).strata).map((x) => x.taken),
    [2, 4, 1],
  );
  // n beyond the pool takes everything; no field = one stratum.
  assert.equal(stratifiedSample(pool, { n: 500, seed: 1 }).ids.length, 100);
  assert.deepEqual(Object.keys(stratifiedSample(pool, { n: 5, seed: 1 }).strata), ['all']);
  assert.throws(() => stratifiedSample(pool, { n: 0, seed: 1 }), KfError);
  // Multi-valued fields stratify by the combination.
  const mm = [q('m1', 't', ['table', 'image']), q('m2', 't', ['image', 'table']), q('m3', 't', ['text'])];
  assert.deepEqual(Object.keys(stratifiedSample(mm, { n: 2, by: 'modality', seed: 1 }).strata), ['image+table', 'text']);
});

test('selectSubset keeps list order and reports ids not in the file', () => {
  const r = selectSubset(pool, ['b3', 'zz', 'a1']);
  assert.deepEqual(
    r.questions.map((x) => x.id),
    ['b3', 'a1'],
  );
  assert.deepEqual(r.missing, ['zz']);
});

/**
 * Run `kf subset` the way lib/cli/main.ts does (parse with its parser; usage errors exit 2, others 1),
 * without loading every other command file of the CLI.
 */
async function runKf(args: string[]): Promise<{ code: number; out: string; err: string }> {
  assert.equal(args[0], 'subset');
  const out: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => out.push(a.join(' '));
  try {
    let parsed;
    try {
      parsed = parseFor(subsetCommand, args.slice(1));
    } catch (e) {
      return { code: 2, out: out.join('\n'), err: (e as Error).message };
    }
    try {
      await subsetCommand.run(parsed, commandContext());
      return { code: 0, out: out.join('\n'), err: '' };
    } catch (e) {
      return { code: 1, out: out.join('\n'), err: errorMessage(e) };
    }
  } finally {
    console.log = log;
  }
}

test('kf subset: stratified sample of an official-format file; a Question-list file; argument errors are one line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-subset-'));
  const fx = path.join(repoRoot(), 'test', '__fixtures__', 'bench');
  // The same sample twice (seed 3) must give the same ids.
  const sampleArgs = (to: string) => [
    'subset',
    '--bench',
    'multihop-rag',
    '--questions',
    path.join(fx, 'multihop-rag', 'MultiHopRAG.json'),
    '--n',
    '2',
    '--by',
    'type',
    '--seed',
    '3',
    '--out',
    to,
  ];
  const out = path.join(dir, 'mhr.json');
  const r = await runKf(sampleArgs(out));
  assert.equal(r.code, 0, r.err);
  const rec = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(rec.ids.length, 2);
  assert.equal(rec.by, 'type');
  assert.equal(rec.seed, '3');
  assert.deepEqual(readIdList(out), rec.ids);
  const again = path.join(dir, 'again.json');
  await runKf(sampleArgs(again));
  assert.deepEqual(JSON.parse(fs.readFileSync(again, 'utf8')).ids, rec.ids);
  // A file already in Question shape.
  const demoOut = path.join(dir, 'demo.json');
  const d = await runKf(['subset', '--bench', 'demo', '--questions', path.join(fx, 'demo', 'questions.json'), '--n', '1', '--by', 'format', '--out', demoOut]);
  assert.equal(d.code, 0, d.err);
  assert.equal(JSON.parse(fs.readFileSync(demoOut, 'utf8')).ids.length, 1);
  // Errors.
  const e1 = await runKf(['subset', '--bench', 'multihop-rag', '--questions', path.join(fx, 'multihop-rag', 'MultiHopRAG.json'), '--out', out]);
  assert.equal(e1.code, 1);
  assert.match(e1.err, /--n N/);
  const e2 = await runKf(['subset', '--bench', 'nope', '--n', '2', '--out', out]);
  assert.equal(e2.code, 2);
  assert.match(e2.err, /--bench must be one of/);
  const e3 = await runKf(['subset', '--bench', 'webqa', '--questions', path.join(dir, 'absent.json'), '--n', '2', '--out', out]);
  assert.equal(e3.code, 1);
  assert.match(e3.err, /absent\.json/);
  const e4 = await runKf(['subset', '--bench', 'm3docvqa', '--paper', 'smoke', '--n', '3', '--out', out]);
  assert.equal(e4.code, 1);
  assert.match(e4.err, /cannot be combined/);
});

test(
  'kf subset --paper on the real files: the paper ids, with the ones held back listed',
  {
    skip:
      fs.existsSync(benchDir('knowforge-subsets')) && fs.existsSync(benchDir('mmqa')) ? false : `real benchmark files absent: ${benchDir('knowforge-subsets')}`,
  },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-subset-'));
    const out = path.join(dir, 'smoke.json');
    const r = await runKf(['subset', '--bench', 'm3docvqa', '--paper', 'smoke', '--out', out]);
    assert.equal(r.code, 0, r.err);
    const rec = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(rec.ids.length, 30);
    assert.equal(rec.found, 23);
    assert.equal(rec.missing.length, 7);
  },
);
