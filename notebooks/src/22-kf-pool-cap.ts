// %% [markdown]
// # 22 · Evidence pool: cap and typing (paper §3.4, Appendix B "Pool cap")
//
// The typed, size-bounded pool (30K characters; images 3K, tables 3K,
// examples 2K; top 3 of each search protected) against a plain first-come pool
// of 12K (M4 = plain 12K and no bridge judge), and the two factors apart: M5
// with a plain 12K pool, M5 with a typed pool capped at 12K. Measured: F1,
// whether the gold answer is visible in the final pool, how often the pool was
// trimmed, and F1 on trimmed vs untrimmed questions (the paper: M5 gains on
// both, so the cap itself is neutral).

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const METRIC = 'f1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('22-kf-pool-cap', { params: { preset: PRESET, limit: LIMIT, metric: METRIC }, seed: SEED });
const runs = await kf.notebook.runConfigurations(
  nb,
  [
    { label: 'M4 (plain 12K, no judge)', pipeline: 'M4' },
    { label: 'M5 plain 12K', pipeline: 'M5', overrides: ['pipeline.settings.pool=plain', 'pipeline.settings.plainChars=12000'] },
    { label: 'M5 typed 12K', pipeline: 'M5', overrides: ['pipeline.settings.poolChars=12000'] },
    { label: 'M5 (typed 30K)', pipeline: 'M5' },
  ],
  { preset: PRESET, limit: LIMIT },
);

// %%
nb.table(kf.notebook.summaryRows(runs, { recall: ['R@all', 'docFound', 'answerVisible', 'poolTrimmed'] }), 'summary', {
  decimals: 1,
  caption: 'Pool variants: answer score, gold visible in the final pool, share of trimmed pools (x100)',
});
const paired = kf.notebook.pairedRows(runs, kf.notebook.pairsAgainst(runs, 'M5 (typed 30K)'), { metric: METRIC, seed: SEED });
nb.table(paired, 'paired-vs-M5', { decimals: 1, caption: `${METRIC} (x100): each variant vs M5, flips, exact sign test, 95% paired bootstrap CI` });
const split = kf.notebook.flagSplitRows(runs, METRIC, 'poolTrimmed', 'M5 (typed 30K)');
nb.table(split, 'by-trimmed', { decimals: 1, caption: `${METRIC} (x100) on questions whose M5 pool was trimmed (1) or not (0)` });

// %%
const rows = kf.notebook.summaryRows(runs, { recall: ['answerVisible', 'poolTrimmed'] });
await nb.figure(
  () =>
    kf.barFigure({
      categories: rows.map((r) => String(r.config)),
      series: [
        { name: METRIC, values: rows.map((r) => (r[METRIC] as number | null) ?? null) },
        { name: 'answer visible in pool', values: rows.map((r) => (r.answerVisible as number | null) ?? null) },
        { name: 'pool trimmed', values: rows.map((r) => (r.poolTrimmed as number | null) ?? null) },
      ],
      title: 'Pool cap and typing',
      xTitle: 'pool',
      yTitle: '% (x100)',
    }),
  'pool-variants',
);

// %%
await nb.finish();
