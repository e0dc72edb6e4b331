/**
 * Notebook figures and tables name the departures from the paper of the runs they draw (issue 32, item 4),
 * as the suite and `kf report` do: the caption line under the title, and the notebook manifest's runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { open } from '../../lib/report/notebook-session';
import { barFigure } from '../../lib/report/figure';
import { summaryRows } from '../../lib/report/notebook-runs';
import { isKfError } from '../../lib/util/errors';
import type { LoadedRun } from '../../lib/run/results';
import type { RunManifest } from '../../lib/run/manifest';
import { ownScratch } from '../_shared/scratch';

function fakeRun(runId: string, departures: RunManifest['departures']): LoadedRun {
  const manifest = {
    runId,
    status: 'completed',
    backend: 'offline',
    models: [],
    experiment: { name: runId },
    pipeline: { name: 'DG' },
    config: { benchmark: { name: 'demo' } },
    departures,
  } as unknown as RunManifest;
  return { runId, dir: `/nowhere/${runId}`, manifest, records: [], badLines: 0, duplicates: [] };
}

test("a notebook's figure caption and tables carry the drawn runs' departures; its manifest lists them per run", async () => {
  const root = ownScratch('kf-nb-departures-');
  const before = process.env.KF_NB_RESULTS;
  process.env.KF_NB_RESULTS = root;
  try {
    const nb = open('departures-check', { verbose: false });
    nb.useRun('DG', fakeRun('r-dg', [{ what: 'DualG: answered from hybrid fallback', count: 14, of: 60 }]));
    nb.useRun('S4', fakeRun('r-s4', [{ what: 'fitted embedder instead of an embeddings endpoint' }]));
    const notes = nb.notes();
    const caption = notes.find((n) => n.startsWith('departures from the paper: '));
    assert.ok(caption, `a departures note among ${JSON.stringify(notes)}`);
    assert.match(caption, /DualG: answered from hybrid fallback/);
    assert.match(caption, /fitted embedder instead of an embeddings endpoint/);
    assert.deepEqual(
      nb.runList.map((r) => r.departures),
      [['DualG: answered from hybrid fallback: 14 of 60 questions'], ['fitted embedder instead of an embeddings endpoint']],
    );
    await nb.figure(barFigure({ title: 'F1 by configuration', categories: ['DG', 'S4'], series: [{ name: 'F1', values: [0.5, 0.4] }] }), 'f1');
    const html = fs.readFileSync(path.join(root, 'departures-check', 'f1.html'), 'utf8');
    assert.match(html, /departures from the paper: DualG: answered from hybrid fallback/, 'the figure caption names them');
    await nb.finish();
  } finally {
    if (before === undefined) delete process.env.KF_NB_RESULTS;
    else process.env.KF_NB_RESULTS = before;
  }
});

test('a figure or table names only the departures of the runs it draws; a helper-built table knows its runs; the manifest lists all', async () => {
  const root = ownScratch('kf-nb-drawn-');
  const before = process.env.KF_NB_RESULTS;
  process.env.KF_NB_RESULTS = root;
  try {
    const nb = open('drawn-check', { verbose: false });
    const m5 = fakeRun('r-m5', [{ what: 'M5: pool trimmed to the cap', count: 3, of: 10 }]);
    const s4 = fakeRun('r-s4', [{ what: 'fitted embedder instead of an embeddings endpoint' }]);
    nb.useRun('M5', m5);
    nb.useRun('S4', s4);
    const dir = path.join(root, 'drawn-check');
    // A figure of S4 alone, named by its label: S4's departure only.
    await nb.figure(barFigure({ title: 'S4 alone', categories: ['S4'], series: [{ name: 'F1', values: [0.4] }] }), 's4-only', { runs: ['S4'] });
    const fig = fs.readFileSync(path.join(dir, 's4-only.html'), 'utf8');
    assert.match(fig, /departures from the paper: fitted embedder instead of an embeddings endpoint/);
    assert.doesNotMatch(fig, /pool trimmed/, "the S4 figure does not name M5's departure");
    assert.match(fig, /offline backend: not model results/, 'the backend note of the drawn run stays');
    // A table of both (given as the map runConfigurations returns): both departures.
    nb.table(
      [
        { config: 'M5', f1: 50 },
        { config: 'S4', f1: 40 },
      ],
      'both',
      {
        runs: new Map([
          ['M5', m5],
          ['S4', s4],
        ]),
      },
    );
    const both = fs.readFileSync(path.join(dir, 'both.md'), 'utf8');
    assert.match(both, /M5: pool trimmed to the cap/);
    assert.match(both, /fitted embedder/);
    // A table straight from a kit helper over M5 alone: the helper tagged its rows, nothing typed.
    nb.table(summaryRows(new Map([['M5', m5]])), 'm5-summary');
    const m5Table = fs.readFileSync(path.join(dir, 'm5-summary.md'), 'utf8');
    assert.match(m5Table, /M5: pool trimmed to the cap/);
    assert.doesNotMatch(m5Table, /fitted embedder/, "the M5 table does not name S4's departure");
    // Without `runs` (rows built by hand): every registered run, as before.
    nb.table([{ x: 1 }], 'untold');
    const untold = fs.readFileSync(path.join(dir, 'untold.md'), 'utf8');
    assert.match(untold, /pool trimmed/);
    assert.match(untold, /fitted embedder/);
    assert.throws(
      () => nb.table([{ x: 1 }], 'typo', { runs: ['S5'] }),
      (e: unknown) => isKfError(e) && /"S5" is not a run this notebook registered/.test(e.message) && /M5, S4/.test(e.hint),
    );
    await nb.finish();
    const { extra } = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
      extra: { runs: { runId: string }[]; drawn: Record<string, string[]> };
    };
    assert.deepEqual(
      extra.runs.map((r) => r.runId),
      ['r-m5', 'r-s4'],
      'the manifest lists every run of the notebook',
    );
    assert.deepEqual(extra.drawn, { 's4-only': ['r-s4'], both: ['r-m5', 'r-s4'], 'm5-summary': ['r-m5'] }, 'and which runs each output draws');
  } finally {
    if (before === undefined) delete process.env.KF_NB_RESULTS;
    else process.env.KF_NB_RESULTS = before;
  }
});
