/**
 * The proof of issue 30: a third method (this folder) loads through its manifest alone (KF_PLUGINS)
 * and runs `kf run`, `kf ask`, `kf trace`, `kf score`, its own command and a notebook series, with
 * its own pipeline, retriever, prompt, trace line, published number and notebook kit, while no file of lib/ names it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { kfInProcess as kf } from '../_shared/cli-in-process';
import { nonEmpty } from '../_shared/non-empty';
import { ownScratch, tinyDemoWorld } from '../_shared/scratch';
import { demoPresetOverrides } from '../../lib/bench/benchmarks/demo';
import { notebookSeries } from '../../lib/report/notebook-series';
import { paperLabel, paperValue } from '../../lib/report/paper-numbers';
import { NotebookSession } from '../../lib/report/notebook-session';
import { runConfigurations } from '../../lib/report/notebook-runs';
import { repoRoot } from '../../lib/util/paths';
import * as harness from '../../lib/harness';
import { isKfError } from '../../lib/util/errors';
import { withEnv } from '../_shared/env';

// Compiled tests (npm test) load the built .js beside this file; the fast loop on sources loads the .ts.
const MANIFEST = path.join(__dirname, `plugin${path.extname(__filename)}`);
const FOLDER = path.join(repoRoot(), 'test', 'third-method');

/** Run with the third method's manifest in KF_PLUGINS (and `env`), as a user who adds it would. */
const withPlugin = <T>(env: Record<string, string>, f: () => Promise<T>): Promise<T> => withEnv({ KF_PLUGINS: MANIFEST, ...env }, f);

const records = (dir: string) =>
  fs
    .readFileSync(path.join(dir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

test('no file of lib/, prompts/ or experiments/ names the third method', () => {
  const named: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/third-overlap|third-method|third-answer/.test(fs.readFileSync(p, 'utf8'))) named.push(path.relative(repoRoot(), p));
    }
  };
  for (const d of ['lib', 'prompts', 'experiments']) walk(path.join(repoRoot(), d));
  assert.deepEqual(named, []);
  assert.ok(fs.existsSync(path.join(FOLDER, 'prompts', 'third-answer.txt')), 'its prompt lives in its folder');
});

test('the third method runs kf run, kf trace, kf score, kf ask and its command through its manifest alone', { timeout: 10 * 60_000 }, async () => {
  const world = await tinyDemoWorld();
  const tmp = ownScratch('kf-third-');
  try {
    await withPlugin({ KF_STATE_DIR: path.join(tmp, 'state') }, async () => {
      const hello = await kf(['third', 'hello']);
      assert.equal(hello.code, 0, hello.err);
      assert.match(hello.out, /configuration T1 over retriever third-overlap/);

      const { overrides } = demoPresetOverrides('tiny', world.dir);
      const exp = path.join(FOLDER, 'experiments', 'T1.toml');
      const sets = overrides.flatMap((o) => ['--override', o]);
      const run = await kf(['run', exp, ...sets, '--limit', '4', '--out', path.join(tmp, 'results'), '--run-id', 't1', '--json']);
      assert.equal(run.code, 0, run.err);
      const recs = nonEmpty(records(path.join(tmp, 'results', 't1')), 'T1 records');
      for (const r of recs) {
        assert.equal(r.error, null, `${r.id}: ${JSON.stringify(r.error)}`);
        assert.equal(r.pipeline, 'T1');
        assert.equal(r.benchmark, 'third-qa');
        assert.deepEqual(Object.keys(r.scores).sort(), ['hit', 'refused'], 'scored by its own benchmark');
        assert.equal(r.backend, 'offline', 'answered by its own offline policy, labelled offline');
        assert.match(r.prediction, /FINAL ANSWER: /);
        assert.equal(r.retrievalStats.searches ?? r.timings.searches, 1);
      }

      const trace = await kf(['trace', path.join(tmp, 'results', 't1'), recs[0].id]);
      assert.equal(trace.code, 0, trace.err);
      assert.match(trace.out, /third read /, 'its trace section writes its event');

      const preds = path.join(tmp, 'predictions.jsonl');
      fs.writeFileSync(preds, recs.map((r) => JSON.stringify({ id: r.id, final: r.finalAnswer })).join('\n') + '\n');
      const score = await kf(['score', '--bench', 'third-qa', '--predictions', preds, '--questions', path.join(world.dir, 'questions.json')]);
      assert.equal(score.code, 0, score.err);
      const summary = JSON.parse(score.out);
      assert.equal(summary.n, recs.length, 'kf score scores its answers');
      assert.equal(summary.bench ?? summary.benchmark, 'third-qa', score.out);

      const q = recs[0].question as string;
      const ask = await kf(['ask', '--preset', 'tiny', '--config', 'T1', q, '--trace', path.join(tmp, 'ask.json')]);
      assert.equal(ask.code, 0, ask.err);
      assert.equal(ask.out.match(/^FINAL ANSWER:/gm)?.length, 1, ask.out);
      assert.match(ask.out, /offline backend: not model results/);
      assert.match(ask.err, /third read /, 'its trace line among the progress lines');
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('the third method joins a notebook series and the published numbers', { timeout: 10 * 60_000 }, async () => {
  const tmp = ownScratch('kf-third-nb-');
  try {
    await withPlugin({ KF_NB_RESULTS: path.join(tmp, 'nb'), KF_STATE_DIR: path.join(tmp, 'state') }, async () => {
      const qa = notebookSeries('qa').filter((e) => e.plugin === 'third');
      assert.deepEqual(qa, [{ plugin: 'third', name: 'T1', label: 'third method', known: true }]);
      assert.deepEqual(
        notebookSeries('retrieval')
          .filter((e) => e.plugin === 'third')
          .map((e) => [e.name, e.known]),
        [['third-overlap', true]],
      );
      const nb = new NotebookSession('third-series', { verbose: false });
      const runs = await runConfigurations(
        nb,
        qa.map((e) => ({ label: e.label, pipeline: e.name })),
        { preset: 'tiny', limit: 3, runsDir: path.join(tmp, 'runs') },
      );
      const t1 = runs.get('third method');
      assert.ok(t1, 'the series entry ran');
      assert.equal(nonEmpty(t1.records, 'notebook run records').length, 3);
      assert.ok(t1.records.every((r) => r.error === null && r.pipeline === 'T1'));

      assert.equal(paperValue({ paper: 'third', system: 'T1', metric: 'hit' }), 42.5);
      assert.equal(paperLabel('third', 'toy-model'), 'published (third, toy-model)');

      // A notebook (`import * as kf from '../dist/lib/harness'`) reaches the method's kit through its manifest, as KnowForge's.
      assert.equal(harness.method('third').sharedWords('Who built the Old Mill?', 'The old mill was built in 1820'), 4);
      assert.equal(typeof harness.method('knowforge').capUsageRows, 'function');
      assert.throws(
        () => harness.method('thrid'),
        (e: unknown) => isKfError(e) && e.code === 'method_unknown' && /did you mean "third"/.test(e.hint),
      );
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
