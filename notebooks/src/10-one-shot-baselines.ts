// %% [markdown]
// # 10 · One-shot baselines: S0, S1, S3, S4v1, S4
//
// The KnowForge paper's one-shot configurations (spec "Configurations"):
//
// | config | retrieval | answer template |
// |---|---|---|
// | S0 | none (closed book) | closed book |
// | S1 | dense only, one search | ours |
// | S3 | dense + BM25, one search | ours |
// | S4v1 | dense + BM25 + one-hop graph expansion | ours |
// | S4 | same index | M3DocRAG-style template |
//
// Each: one search -> typed evidence pool -> one synthesizer call -> one format
// checker call. This notebook runs the suite `experiments/suites/demo-one-shot.toml`
// (the same as `kf demo`), then looks at every pair with the **two-sided exact
// sign test** on per-question flips and the **95% paired bootstrap interval** of the
// mean difference (2,000 resamples, seeded). Offline-backend numbers are labelled
// as such: they are not model results.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const METRIC = 'f1';
const MARGIN = 0; // a question is "won" when A - B > MARGIN
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
const out = kf.kit.notebookResultsDir('10-one-shot-baselines');

// %%
// (tslab quirk: write `{ out: out }`, not the shorthand `{ out }`, for variables declared in other cells)
const world = await kf.ensureDemoWorld({ preset: PRESET });
const overrides =
  PRESET === 'default'
    ? []
    : [
        `benchmark.paths.questions=${path.join(world.dir, 'questions.json')}`,
        `benchmark.paths.corpus=${path.join(world.dir, 'corpus')}`,
        `index.dir=${kf.notebook.demoIndexDir(PRESET)}`,
      ];

// %% [markdown]
// ## Run the five configurations (resumable: a rerun skips finished questions)

// %%
const suite = await kf.runSuite(path.join(kf.repoRoot(), 'experiments', 'suites', 'demo-one-shot.toml'), {
  out: out,
  limit: LIMIT,
  overrides: overrides,
  log: () => {},
});
console.log(`suite ${suite.name}: backend ${suite.backend}; runs: ${suite.runs.map((r) => `${r.experiment} (${r.status})`).join(', ')}`);
kf.kit.showMarkdown(require('fs').readFileSync(suite.summary, 'utf8').split('## Files')[0]);

// %% [markdown]
// ## Every pair: flips, sign test, bootstrap interval
// Recomputed here from the records with `compareRuns`, so you can change the
// metric, the margin or the seed interactively.

// %%
const runs = new Map(suite.runs.map((r) => [r.experiment, kf.loadRun(r.dir)] as const));
const names = [...runs.keys()];
const rows: Record<string, unknown>[] = [];
for (let i = 0; i < names.length; i++) {
  for (let j = 0; j < i; j++) {
    const c = kf.compareRuns(runs.get(names[i])!, runs.get(names[j])!, { metric: METRIC, margin: MARGIN, seed: SEED, resamples: 2000 });
    rows.push({
      A: names[i],
      B: names[j],
      n: c.n,
      diff: 100 * c.diff,
      lo: 100 * c.bootstrapCI[0],
      hi: 100 * c.bootstrapCI[1],
      'won:lost:tied': `${c.won}:${c.lost}:${c.tied}`,
      p: c.signTestP.toPrecision(3),
      se: 100 * c.se,
    });
  }
}
const notes = suite.backend === 'offline' ? [kf.OFFLINE_NOTE] : [];
kf.kit.showTable(rows, { decimals: 1, caption: `all pairs on ${METRIC} (x100), margin ${MARGIN}`, notes: notes });
const pairs = kf.writeTable(rows, {
  dir: out,
  name: 'all-pairs',
  decimals: 1,
  caption: `All pairs on ${METRIC} (x100): paired bootstrap 95% CI, exact sign test`,
  notes: notes,
});

// %% [markdown]
// ## Paired differences against closed book, with intervals

// %%
const vsS0 = rows
  .filter((r) => r.B === 'demo-S0' || r.A === 'demo-S0')
  .map((r) => (r.B === 'demo-S0' ? r : { ...r, A: r.B, B: r.A, diff: -(r.diff as number), lo: -(r.hi as number), hi: -(r.lo as number) }));
const fig = await kf.writeFigure(
  kf.barFigure({
    categories: vsS0.map((r) => `${r.A} - S0`),
    series: [
      { name: `${METRIC} difference`, values: vsS0.map((r) => r.diff as number), lo: vsS0.map((r) => r.lo as number), hi: vsS0.map((r) => r.hi as number) },
    ],
    title: `Gain over closed book (${METRIC}, 95% paired bootstrap CI)`,
    xTitle: 'pair',
    yTitle: 'x100',
    note: notes[0],
  }),
  { dir: out, name: 'gain-over-closed-book' },
);
await kf.kit.showFigure(fig);

// %% [markdown]
// ## Where the gains come from: by hop count and by modality
// A danfojs DataFrame of every question of every run (`kf.frames.recordsFrame`):
// group, filter and pivot interactively. Multi-valued buckets (image+table
// evidence) are their own group here; `kf report --by modality` counts such a
// question in each bucket instead (the benchmarks' protocol).

// %%
const df = kf.frames.recordsFrame([...runs.values()], { fields: ['hops', 'modality'] });
console.log(`frame: ${df.shape[0]} rows x ${df.shape[1]} columns`);
const byField: { csv: string; md: string }[] = [];
for (const field of ['hops', 'modality']) {
  const g = kf.frames.groupMeans(df, ['run', field], [METRIC]);
  kf.kit.showTable(g, { decimals: 3, caption: `mean ${METRIC} by run and ${field}` });
  byField.push(kf.writeTable(g, { dir: out, name: `${METRIC}-by-${field}`, decimals: 3, notes: notes }));
}
const manifestFile = kf.writeManifest(
  out,
  kf.resultManifest({ config: { preset: PRESET, limit: LIMIT, metric: METRIC, margin: MARGIN, seed: SEED }, seed: SEED, backend: suite.backend }),
  [pairs, fig, ...byField],
);
console.log(`manifest: ${manifestFile}`);

// %%
await kf.kit.closeFigures();
await kf.closeSharedExporter();
