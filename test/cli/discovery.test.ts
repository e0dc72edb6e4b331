/**
 * Discovery and feedback: `kf experiments`, short experiment names (with the
 * choice made visible and suggestions for a miss), did-you-mean on flags and
 * paths, the headline table at the end of `kf run` / `kf report`, `kf compare`
 * in the tables' units (x100), and `kf trace` opening with the question's record
 * and DualG's decoded paths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { experimentCatalog, resolveExperimentName } from '../../lib/cli/experiment-catalog';
import { nearestPath } from '../../lib/cli/path-hint';
import { resolveSuiteFile } from '../../lib/cli/commands/suite';
import { runExperiment } from '../../lib/run/runner';
import { traceFileName } from '../../lib/run/records';
import { repoRoot } from '../../lib/util/paths';
import { isKfError } from '../../lib/util/errors';
import { kfInProcess } from '../_shared/cli-in-process';
import { experiment, fakePipeline, fakeRouter, makeQuestions, tmpDir, writeBench } from '../run/helpers';

/** A fake experiments/ tree: the same name on the demo world and on two benchmarks, and one name only on benchmarks. */
function fakeExperiments(): string {
  const dir = tmpDir('kf-exps-');
  for (const f of [
    'knowforge/demo/M5.toml',
    'knowforge/m3docvqa/M5.toml',
    'knowforge/multihop-rag/M5.toml',
    'a/X.toml',
    'b/X.toml',
    'a/_base.toml',
    'suites/s.toml',
  ]) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '# fixture\n');
  }
  return dir;
}

function kfError(fn: () => unknown): { message: string; hint: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(isKfError(e), `expected a KfError, got ${e}`);
    return e as { message: string; hint: string };
  }
  assert.fail('expected an error');
}

test('short names: a unique tail resolves; a tie goes to the demo world and names the others; a miss suggests the nearest', () => {
  const dir = fakeExperiments();
  const notes: string[] = [];
  const m5 = resolveExperimentName('M5', (l) => notes.push(l), dir);
  assert.equal(m5, path.join(dir, 'knowforge', 'demo', 'M5.toml'));
  assert.equal(notes.length, 1);
  assert.match(notes[0], /also knowforge\/m3docvqa\/M5, knowforge\/multihop-rag\/M5 -- name one by its path/);
  assert.equal(resolveExperimentName('m3docvqa/M5', undefined, dir), path.join(dir, 'knowforge', 'm3docvqa', 'M5.toml'));
  assert.equal(resolveExperimentName('multihop-rag/M5.toml', undefined, dir), path.join(dir, 'knowforge', 'multihop-rag', 'M5.toml'));
  const tie = kfError(() => resolveExperimentName('X', undefined, dir));
  assert.match(tie.message, /"X" names 2 experiments: a\/X, b\/X/);
  const miss = kfError(() => resolveExperimentName('M6', undefined, dir));
  assert.match(miss.message, /no experiment file "M6"/);
  assert.match(miss.hint, /did you mean "M5"\?.*kf experiments lists them/);
  assert.match(kfError(() => resolveExperimentName('_base', undefined, dir)).message, /no experiment file "_base"/, 'shared layers are not experiments');
  // A path that exists is left to loadExperiment.
  assert.equal(resolveExperimentName(path.join(dir, 'a', 'X.toml'), undefined, dir), undefined);
});

test("the project's own names: kf run M5 means experiments/knowforge/demo/M5.toml", () => {
  const notes: string[] = [];
  const f = resolveExperimentName('M5', (l) => notes.push(l));
  assert.equal(
    path
      .relative(repoRoot(), f ?? '')
      .split(path.sep)
      .join('/'),
    'experiments/knowforge/demo/M5.toml',
  );
  assert.match(notes.join('\n'), /knowforge\/m3docvqa\/M5/);
  const rows = experimentCatalog();
  const dg = rows.find((r) => r.ref === 'dualg/demo/DG');
  assert.ok(dg, 'dualg/demo/DG is listed');
  assert.equal(dg.benchmark, 'demo');
  assert.equal(dg.family, 'dualg');
  assert.ok(
    rows.every((r) => !r.ref.startsWith('suites/') && !path.basename(r.ref).startsWith('_')),
    'no suites, no shared layers',
  );
});

test('kf experiments: family, benchmark, description and the name kf run takes; filters with suggestions', async () => {
  const r = await kfInProcess(['experiments', '--benchmark', 'demo']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^name \(kf run <name>\)\s+family\s+benchmark\s+description$/m);
  assert.match(r.out, /^knowforge\/demo\/M5\s+knowforge-agents\s+demo\s+M5: full pipeline/m);
  assert.match(r.out, /^demo\/S4\s+knowforge-one-shot\s+demo\s+/m);
  assert.doesNotMatch(r.out, /m3docvqa/);
  const bad = await kfInProcess(['experiments', '--benchmark', 'm3docvqq']);
  assert.equal(bad.code, 1);
  assert.match(bad.err, /--benchmark m3docvqq matches no experiment -- did you mean m3docvqa\?/);
});

test('did-you-mean on a mistyped flag and on a mistyped path', async () => {
  const r = await kfInProcess(['run', 'M5', '--limt', '3']);
  assert.equal(r.code, 2);
  assert.match(r.err, /unknown option '--limt' for 'kf run' \(did you mean --limit\?\) \(see kf run --help\)/);
  const dir = tmpDir('kf-paths-');
  fs.mkdirSync(path.join(dir, 'knowforge', 'demo'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'knowforge', 'demo', 'M5.toml'), '');
  assert.equal(nearestPath(path.join(dir, 'knowforg', 'demo', 'M5.toml')), path.join(dir, 'knowforge', 'demo', 'M5.toml'));
  assert.equal(nearestPath(path.join(dir, 'knowforge', 'demo', 'M6.toml')), path.join(dir, 'knowforge', 'demo', 'M5.toml'));
  assert.equal(nearestPath(path.join(dir, 'nothing-like-it', 'x')), undefined);
  const suite = kfError(() => resolveSuiteFile('demo-mian'));
  assert.match(suite.hint, /did you mean .*experiments\/suites\/demo-main\.toml\?/);
  assert.equal(path.basename(resolveSuiteFile('demo-main')), 'demo-main.toml');
});

async function twoRuns() {
  const dir = tmpDir('kf-disc-');
  const files = writeBench(dir, makeQuestions(12));
  const results = path.join(dir, 'results');
  for (const [runId, seed] of [
    ['A', 1],
    ['B', 2],
  ] as const)
    await runExperiment({
      experiment: experiment(files, { seed }),
      runId,
      resultsDir: results,
      router: fakeRouter('offline', 'offline'),
      pipeline: fakePipeline(),
    });
  return { dir, results };
}

test('kf report ends with the headline table; kf compare prints x100 as the tables do', async () => {
  const { dir, results } = await twoRuns();
  const rep = await kfInProcess(['report', 'A', 'B', '--results', results, '--out', path.join(dir, 'rep')]);
  assert.equal(rep.code, 0, rep.err);
  const lines = rep.out.split('\n');
  const head = lines.findIndex((l) => /^run\s+pipeline\s+n\s+answered\s+failed\s+EM\s+F1/.test(l));
  assert.ok(head > 0, `headline table at the end:\n${rep.out}`);
  assert.match(lines[head + 1], /^A\s+\S+\s+12\s+\d+\s+\d+\s+\d+\.\d\s+\d+\.\d/);
  assert.match(lines.at(-1) ?? '', /in %.*offline backend: not model results/);
  const json = await kfInProcess(['compare', 'A', 'B', '--metric', 'f1', '--json', '--results', results]);
  const j = JSON.parse(json.out);
  const cmp = await kfInProcess(['compare', 'A', 'B', '--metric', 'f1', '--results', results]);
  assert.equal(cmp.code, 0, cmp.err);
  assert.match(cmp.out, /^f1 \(in %, x100 as in the tables\):/);
  const all = /^all\s+n=12\s+(\S+) vs\s+(\S+)/m.exec(cmp.out);
  assert.ok(all, cmp.out);
  assert.equal(all[1], (100 * j.meanA).toFixed(1));
  assert.equal(all[2], (100 * j.meanB).toFixed(1));
});

test('kf trace opens with question, gold, prediction and scores, then DualG decoded paths', async () => {
  const { results } = await twoRuns();
  const runDir = path.join(results, 'A');
  const rec = JSON.parse(fs.readFileSync(path.join(runDir, 'records.jsonl'), 'utf8').split('\n')[0]);
  // A DualG-style trace: a graph search that traced its decoded paths.
  const steps = [{ from: 'Novrem', relation: 'mentions', to: 'Kraenmox', source: { docId: 'novrem' } }];
  fs.mkdirSync(path.join(runDir, 'traces'), { recursive: true });
  fs.writeFileSync(
    path.join(runDir, 'traces', traceFileName(rec.id)),
    JSON.stringify({ id: rec.id, events: [{ kind: 'search', by: 'dualg', paths: [{ score: 1.5, steps, docs: ['novrem'] }] }] }),
  );
  const r = await kfInProcess(['trace', runDir, rec.id]);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.equal(lines[0], `question    ${rec.question}`);
  assert.match(lines[1], /^gold {8}\S/);
  assert.match(lines[2], /^final {7}/);
  assert.match(lines[3], /^prediction {2}/);
  assert.match(lines[4], /^scores {6}.*f1 \d+\.\d.*\(in %\)/);
  assert.match(r.out, /^decoded paths \(DualG\):\n {2}Path 1 \(score 1\.500\):/m);
  const miss = await kfInProcess(['trace', runDir, `${rec.id}x`]);
  assert.equal(miss.code, 1);
  assert.match(miss.err, new RegExp(`did you mean "${rec.id}"\\?`));
});
