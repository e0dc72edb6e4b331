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
