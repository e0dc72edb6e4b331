// %% [markdown]
// # 20 · KnowForge main comparison (paper Table 6 / headline, M3DocVQA F1)
//
// Every KnowForge configuration that exists in this checkout (one-shot S0-S4,
// agent pipelines M4, M5, M5OFF (M5 answering with the M3DocRAG-style
// template), P0, P1) on the **demo world**, beside the paper's
// published M3DocVQA numbers (Qwen3.6-35B-A3B) and the published M3DocRAG
// system as a **reference series**. The demo world is not M3DocVQA: the
// reference series shows the shape to expect, not a number to match. Each
// configuration is compared with S4 (one shot, same index) on per-question F1:
// flips won:lost:tied, exact sign test, 95% paired bootstrap interval.
//
// With no model endpoint configured, every model step runs on the offline
// backend: figures and tables say so, and those numbers are not model results.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const REFERENCE = 'S4';
const METRIC = 'f1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
// The rows: the main 'qa' series of the loaded plug-ins (KnowForge's, lib/knowforge/plugin.ts).
const CONFIGS = kf.notebook.notebookSeries('qa').map((e) => e.name);
const nb = kf.notebook.open('20-kf-main-comparison', {
  params: { preset: PRESET, limit: LIMIT, configs: CONFIGS, reference: REFERENCE, metric: METRIC },
  seed: SEED,
});
const runs = await kf.notebook.runConfigurations(
  nb,
  CONFIGS.map((c) => ({ label: c })),
  { preset: PRESET, limit: LIMIT },
);

// %% [markdown]
// ## Summary (x100)

// %%
nb.table(kf.notebook.summaryRows(runs), 'summary', { decimals: 1, caption: `KnowForge configurations on the demo world (${PRESET})` });

// %% [markdown]
// ## Against the published numbers

// %%
const labels = [...runs.keys()];
const ci = kf.notebook.metricWithCI(runs, METRIC, { seed: SEED });
// The published M3DocRAG system used another model (ColPali + Qwen2-VL-7B): its category says so.
const cats = [...labels, 'M3DocRAG (ColPali + Qwen2-VL-7B)'];
const published = kf.notebook.paperSeries({ paper: 'knowforge', benchmark: 'm3docvqa', metric: METRIC }, [...labels, 'M3DocRAG']);
nb.table(
  cats.map((c, i) => ({ config: c, demo: ci.get(c)?.mean ?? null, lo: ci.get(c)?.lo ?? null, hi: ci.get(c)?.hi ?? null, published: published.values[i] })),
  'vs-published',
  {
    decimals: 1,
    caption: `${METRIC} x100: this run (demo world, 95% bootstrap CI) and ${published.name} on M3DocVQA`,
  },
);
await nb.figure(
  () =>
    kf.barFigure({
      categories: cats,
      series: [
        {
          name: `this run (demo ${PRESET})`,
          values: cats.map((c) => ci.get(c)?.mean ?? null),
          lo: cats.map((c) => ci.get(c)?.lo ?? null),
          hi: cats.map((c) => ci.get(c)?.hi ?? null),
        },
        { name: `${published.name}, M3DocVQA`, values: published.values },
      ],
      title: `KnowForge configurations: ${METRIC} with the published numbers`,
      xTitle: 'configuration',
      yTitle: `${METRIC} x100`,
    }),
  'f1-vs-published',
);

// %% [markdown]
// ## Paired comparisons against S4

// %%
const paired = kf.notebook.pairedRows(runs, kf.notebook.pairsAgainst(runs, REFERENCE), { metric: METRIC, seed: SEED });
nb.table(paired, 'paired-vs-S4', {
  decimals: 1,
  caption: `${METRIC} (x100), each configuration (A) vs ${REFERENCE} (B): flips, two-sided exact sign test, 95% paired bootstrap CI (2,000 resamples)`,
});
await nb.figure(
  () =>
    kf.barFigure({
      categories: paired.map((r) => `${r.A} - ${r.B}`),
      series: [
        {
          name: 'A - B',
          values: paired.map((r) => r.diff as number | null),
          lo: paired.map((r) => r.ciLow as number | null),
          hi: paired.map((r) => r.ciHigh as number | null),
        },
      ],
      title: `Paired difference against ${REFERENCE} (${METRIC}, 95% paired bootstrap CI)`,
      xTitle: 'pair',
      yTitle: 'difference x100',
    }),
  'paired-vs-S4',
);

// %%
await nb.finish();
