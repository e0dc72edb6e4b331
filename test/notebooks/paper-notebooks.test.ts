/**
 * The notebook machinery without a kernel: notebook sources type-check as tslab
 * runs them, published numbers are labelled, configuration runs are reused and
 * missing ones skipped with a note, tables are identical on a rerun, figures
 * carry traces, axis titles, legends and the offline note, the manifest names
 * the runs, peers' recorded retrievals are scored like the harness's.
 * Everything writes into temporary folders (KF_NB_RESULTS, KF_NB_RUNS).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot, benchDir } from '../../lib/util/paths';
import { typecheckNotebookSources } from './typecheck';
import { figureProblems, csvColumns, folderProblems } from './written-files';
import { PAPER_NUMBERS, paperSeries, paperValue } from '../../lib/report/paper-numbers';
import { open } from '../../lib/report/notebook-session';
import { runConfigurations, summaryRows, pairedRows, pairsAgainst } from '../../lib/report/notebook-runs';
import { recallTable, pairedFound, loadPeerRetrievals, load2WikiShared, type SystemRetrieval } from '../../lib/report/notebook-retrieval';
import { failureSample, classCounts, latencyRows } from '../../lib/report/notebook-analysis';
import { acquireKernelStart } from '../../lib/report/notebook-kernel-lock';
import { barFigure, findChromium, closeSharedExporter } from '../../lib/report/figure';
import { OFFLINE_NOTE } from '../../lib/run/result-manifest';
import { closeFigures } from '../../lib/report/notebook-kit';

const root = repoRoot();

function tmpEnv(): { results: string; runs: string; restore(): void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-nb-lib-'));
  const old = { r: process.env.KF_NB_RESULTS, u: process.env.KF_NB_RUNS };
  process.env.KF_NB_RESULTS = path.join(base, 'results');
  process.env.KF_NB_RUNS = path.join(base, 'runs');
  return {
    results: process.env.KF_NB_RESULTS,
    runs: process.env.KF_NB_RUNS,
    restore() {
      if (old.r === undefined) delete process.env.KF_NB_RESULTS;
      else process.env.KF_NB_RESULTS = old.r;
      if (old.u === undefined) delete process.env.KF_NB_RUNS;
      else process.env.KF_NB_RUNS = old.u;
      fs.rmSync(base, { recursive: true, force: true });
    },
  };
}

test('notebook sources type-check as one module each (tsc, no kernel)', { timeout: 10 * 60_000 }, () => {
  const r = typecheckNotebookSources(root);
  assert.ok(fs.readdirSync(path.join(root, 'notebooks', 'src')).filter((f) => f.endsWith('.ts')).length >= 19, 'the paper notebooks are there');
  assert.equal(r.errors.length, 0, `type errors in notebook sources:\n${r.errors.join('\n')}`);
});

test('published numbers name their paper, table and model; reference series leave gaps', () => {
  assert.ok(PAPER_NUMBERS.length > 100);
  for (const n of PAPER_NUMBERS) assert.ok(n.paper && n.source && n.model && n.benchmark && n.metric && Number.isFinite(n.value), JSON.stringify(n));
  assert.equal(paperValue({ paper: 'knowforge', benchmark: 'm3docvqa', metric: 'f1', system: 'M5' }), 47.5);
  assert.equal(paperValue({ paper: 'dualg-mrag', benchmark: 'mmqa', metric: 'R@5', system: 'DualG-MRAG' }), 61.9);
  const s = paperSeries({ paper: 'knowforge', benchmark: 'm3docvqa', metric: 'f1' }, ['S4', 'not-in-paper', null]);
  assert.deepEqual(s.values, [40.4, null, null]);
  assert.match(s.name, /KnowForge, Qwen3\.6-35B-A3B/);
});

test('configuration runs: reused by config, missing ones skipped, identical tables on a rerun, figures and manifest', { timeout: 10 * 60_000 }, async () => {
  const env = tmpEnv();
  try {
    const write = async () => {
      const nb = open('t-roles', { params: { limit: 6 }, seed: 0, verbose: false });
      const runs = await runConfigurations(nb, [{ label: 'S0' }, { label: 'S4' }, { label: 'NO-SUCH-CONFIG' }], { preset: 'tiny', limit: 6 });
      nb.table(summaryRows(runs), 'summary');
      nb.table(pairedRows(runs, pairsAgainst(runs, 'S0'), { metric: 'f1' }), 'paired');
      nb.table(
        latencyRows(runs).rows.map((r) => ({ config: r.config, callsPerQ: r.callsPerQ })),
        'calls',
      );
      const sample = failureSample(runs.get('S0')!, { n: 3, seed: 0 });
      nb.table(classCounts(sample), 'classes');
      await nb.figure(
        () =>
          barFigure({
            categories: [...runs.keys()],
            series: [{ name: 'f1', values: summaryRows(runs).map((r) => r.f1 as number) }],
            title: 'f1',
            xTitle: 'config',
            yTitle: 'x100',
          }),
        'f1',
      );
      await nb.figure(() => barFigure({ categories: [], series: [], title: 'nothing' }), 'empty');
      await nb.finish();
      return { nb, runs, fig: nb.output('f1') as { html?: string } | undefined, empty: nb.output('empty') };
    };
    const first = await write();
    assert.equal(first.runs.size, 2);
    assert.ok(
      first.nb.skips.some((s) => s.what.includes('NO-SUCH-CONFIG') && /not registered/.test(s.why)),
      'the missing configuration is skipped with a note',
    );
    assert.equal(first.empty, undefined, 'an empty figure is skipped, not an error');
    assert.ok(first.nb.skips.some((s) => s.what === 'figure empty'));
    const dir = path.join(env.results, 't-roles');
    assert.deepEqual(
      csvColumns(path.join(dir, 'summary.csv')).slice(0, 6),
      ['config', 'run', 'n', 'errors', 'em', 'f1'],
      fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8'),
    );
    assert.ok(csvColumns(path.join(dir, 'paired.csv')).includes('signTestP'));
    const chromium = !!findChromium();
    assert.deepEqual(figureProblems(first.fig!.html!, { chromium, offlineNote: OFFLINE_NOTE }), []);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    assert.equal(manifest.backend, 'offline');
    assert.equal(manifest.seed, 0);
    assert.equal(manifest.extra.runs.length, 2);
    assert.ok(manifest.extra.skipped.length >= 2);
    assert.deepEqual(folderProblems(dir, { chromium }).problems, []);
    const before = Object.fromEntries(
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.csv'))
        .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
    );
    const second = await write();
    assert.deepEqual(
      [...second.runs.values()].map((r) => r.runId),
      [...first.runs.values()].map((r) => r.runId),
      'the same configuration finds its run again',
    );
    for (const [f, text] of Object.entries(before)) assert.equal(fs.readFileSync(path.join(dir, f), 'utf8'), text, `${f} is identical on a rerun`);
  } finally {
    await closeFigures();
    await closeSharedExporter();
    env.restore();
  }
});

test('a table with no rows is skipped with a note, not written headerless (notebook 50 without ../shared)', async () => {
  const env = tmpEnv();
  try {
    const nb = open('t-empty', { seed: 0, verbose: false });
    const dir = path.join(env.results, 't-empty');
    fs.writeFileSync(path.join(dir, 'recall.csv'), 'system,n\nold,3\n');
    nb.table([], 'recall');
    assert.equal(nb.output('recall'), undefined, 'nothing written');
    assert.ok(nb.skips.some((s) => s.what === 'table recall' && /no rows/.test(s.why)));
    assert.equal(fs.existsSync(path.join(dir, 'recall.csv')), false, 'a stale copy from an earlier run is removed');
    nb.table([{ system: 'a', n: 1 }], 'kept');
    assert.ok(nb.output('kept'));
    await nb.finish();
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    assert.ok(
      manifest.extra.skipped.some((s: { what: string }) => s.what === 'table recall'),
      'the skip is in the manifest',
    );
    assert.deepEqual(folderProblems(dir, { chromium: false }).problems, []);
    assert.deepEqual(csvColumns(path.join(dir, 'kept.csv')), ['system', 'n']);
  } finally {
    await closeFigures();
    env.restore();
  }
});

test('recall of recorded and live systems: distinct documents, common questions, paired flips', () => {
  const gold = new Map([
    ['q1', ['a', 'b']],
    ['q2', ['c']],
    ['q3', ['d']],
  ]);
  const sys = (system: string, kind: SystemRetrieval['kind'], lists: Record<string, string[]>): SystemRetrieval => ({
    system,
    name: system,
    kind,
    ranked: new Map(Object.entries(lists)),
  });
  const systems = [
    sys('peer', 'recorded', { q1: ['a', 'a', 'x', 'b'], q2: ['c'], q3: ['x'] }),
    sys('mine', 'harness', { q1: ['x', 'y', 'z', 'a'], q2: ['y', 'c'], q3: ['d'] }),
  ];
  const rows = recallTable(systems, gold, [2, 5]);
  assert.equal(rows[0].n, 3);
  assert.equal(rows[0]['R@2'], Math.round(1000 * ((1 / 2 + 1 + 0) / 3)) / 10, 'duplicates count once: a, x are the first two documents');
  assert.equal(rows[0]['allFound@5'], Math.round(1000 * (2 / 3)) / 10);
  assert.equal(rows[1]['allFound@2'], Math.round(1000 * (2 / 3)) / 10);
  assert.equal('msPerQuery' in rows[0], false, 'times only when asked (tables stay identical on a rerun)');
  const p = pairedFound(systems, gold, [['mine', 'peer']], { k: 5 });
  assert.equal(p.length, 1);
  assert.equal(`${p[0].won}:${p[0].lost}:${p[0].tied}`, '1:1:1');
});

test("peers' recorded 2Wiki retrievals load and score as published (skips without ../shared/bench)", (t) => {
  const data = load2WikiShared();
  const peers = loadPeerRetrievals();
  if (!data || !peers.length) {
    t.skip(`2Wiki data or peers not found under ${benchDir('text-multihop')}`);
    return;
  }
  assert.deepEqual(
    peers.map((p) => p.system),
    ['fast-graphrag', 'lightrag', 'nano-graphrag', 'vectordb'],
  );
  const gold = new Map(data.questions.map((q) => [q.question, q.goldDocs] as [string, string[]]));
  const rows = recallTable(peers, gold, [8]);
  assert.ok(rows.every((r) => (r.n as number) > 0));
  const fast = rows.find((r) => r.system === 'fast-graphrag')!;
  assert.ok((fast['allFound@8'] as number) > 85, `fast-graphrag finds all gold titles on most questions (published 0.93), got ${fast['allFound@8']}`);
});

test('kernel starts are serialised: a second start waits for the first to release', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kf-lock-')), 'kernel.lock');
  const release1 = await acquireKernelStart({ file });
  let second = false;
  const p = acquireKernelStart({ file }).then((rel) => {
    second = true;
    return rel;
  });
  await new Promise((r) => setTimeout(r, 600));
  assert.equal(second, false, 'waits while the lock is held');
  release1();
  const release2 = await p;
  assert.equal(second, true);
  release2();
  assert.equal(fs.existsSync(file), false);
});
