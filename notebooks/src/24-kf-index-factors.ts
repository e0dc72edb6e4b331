// %% [markdown]
// # 24 · Index factors: dense-only (M5VEC) and no graph expansion (M5S3) (paper §5.5, Table 6)
//
// Inside the full pipeline: M5 searches hybrid + one-hop graph expansion;
// M5VEC searches dense only; M5S3 searches dense + BM25 without expansion. The
// same factors in one shot: S1 (dense), S3 (hybrid), S4v1 (hybrid + graph).
// The paper: hybrid retrieval is worth 2.5 F1 inside the pipeline, the typed
// graph expansion is neutral. First-search recall shows the index itself.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const METRIC = 'f1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
// The one-shot factors: the plug-ins' 'index-factors' series (KnowForge's, lib/knowforge/plugin.ts), each
// compared with the series' last row (search with everything on).
const ONE_SHOT = kf.notebook.notebookSeries('qa', { set: 'index-factors' });
const nb = kf.notebook.open('24-kf-index-factors', { params: { preset: PRESET, limit: LIMIT, metric: METRIC }, seed: SEED });
const runs = await kf.notebook.runConfigurations(
  nb,
  [
    ...ONE_SHOT.map((e) => ({ label: e.label, pipeline: e.name })),
    { label: 'M5VEC', alternatives: [{ pipeline: 'M5', overrides: ['pipeline.settings.mode=dense'] }] },
    { label: 'M5S3', alternatives: [{ pipeline: 'M5', overrides: ['pipeline.settings.mode=hybrid'] }] },
    { label: 'M5' },
  ],
  { preset: PRESET, limit: LIMIT },
);
nb.table(kf.notebook.summaryRows(runs), 'summary', { decimals: 1, caption: `Index factors on the demo world (${PRESET})` });

// %%
const paired = kf.notebook.pairedRows(
  runs,
  [['M5VEC', 'M5'], ['M5S3', 'M5'], ...ONE_SHOT.slice(0, -1).map((e) => [e.label, ONE_SHOT.at(-1)!.label] as [string, string])],
  { metric: METRIC, seed: SEED },
);
nb.table(paired, 'paired', { decimals: 1, caption: `${METRIC} (x100): A vs B, flips, exact sign test, 95% paired bootstrap CI` });
const labels = [...runs.keys()];
const rows = kf.notebook.summaryRows(runs);
const pub = kf.notebook.paperSeries({ paper: 'knowforge', benchmark: 'm3docvqa', metric: 'R@8' }, labels);
await nb.figure(
  () =>
    kf.barFigure({
      categories: labels,
      series: [
        { name: `${METRIC} (this run)`, values: labels.map((l) => (rows.find((r) => r.config === l)?.[METRIC] as number | null) ?? null) },
        { name: 'R@8 first search (this run)', values: labels.map((l) => (rows.find((r) => r.config === l)?.['R@8'] as number | null) ?? null) },
        { name: `R@8 ${pub.name}, M3DocVQA`, values: pub.values },
      ],
      title: 'Index factors: answer score and first-search recall',
      xTitle: 'configuration',
      yTitle: 'x100',
    }),
  'index-factors',
);

// %%
await nb.finish();
