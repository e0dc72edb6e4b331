// %% [markdown]
// # 23 · Round-cap sweep L+R (paper §5.4, Table 3, Appendix C Table 8)
//
// Locator rounds L and Deep Reader rounds R: the diagonal 0+0 ... 6+6 with
// answer score and retrieval (R@all over every search) on two axes, the
// single-role cuts (4+1, 1+4, 3+4, 4+3) as paired differences from 4+4, and
// 4+4 repeated three times (seeds 0, 1, 2) with its spread. The paper's mid300
// sweep is drawn as a reference series. On the offline backend the three
// repeats are identical by construction (it is deterministic): the spread is
// a model property.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const DIAGONAL = ['0+0', '1+0', '1+1', '2+2', '3+3', '4+4', '5+5', '6+6'];
const CUTS = ['4+1', '1+4', '3+4', '4+3'];
const REPEATS = 3;
const METRIC = 'f1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('23-kf-round-sweep', {
  params: { preset: PRESET, limit: LIMIT, diagonal: DIAGONAL, cuts: CUTS, repeats: REPEATS, metric: METRIC },
  seed: SEED,
});
const capRow = (lr: string) => {
  const [l, r] = lr.split('+');
  return `L${l}R${r}`;
};
const configs = [
  ...[...DIAGONAL, ...CUTS].map((lr) => ({ label: lr, pipeline: capRow(lr) })),
  ...Array.from({ length: Math.max(0, REPEATS - 1) }, (_, i) => ({ label: `4+4 #${i + 2}`, pipeline: 'L4R4', overrides: [`seed=${i + 1}`] })),
];
const runs = await kf.notebook.runConfigurations(nb, configs, { preset: PRESET, limit: LIMIT });
nb.table(kf.notebook.summaryRows(runs, { recall: ['R@1', 'R@8', 'R@all', 'docFound', 'answerVisible'] }), 'summary', {
  decimals: 1,
  caption: `Round caps L+R on the demo world (${PRESET})`,
});

// %% [markdown]
// ## The diagonal: answer score and retrieval on two axes

// %%
const diag = DIAGONAL.filter((d) => runs.has(d));
const rows = kf.notebook.summaryRows(runs, { recall: ['R@all'] });
const val = (label: string, key: string) => (rows.find((r) => r.config === label)?.[key] as number | null | undefined) ?? null;
const paper = kf.notebook.paperSeries({ paper: 'knowforge', benchmark: 'm3docvqa-mid300', metric: METRIC }, diag);
await nb.figure(
  () =>
    kf.notebook.dualAxisFigure({
      x: diag,
      // The paper's sweep was measured on M3DocVQA mid300, not on this world: its own plot, never our axes.
      benchmark: 'demo',
      left: [
        { name: `${METRIC} (this run)`, values: diag.map((d) => val(d, METRIC)) },
        { name: `${METRIC} ${paper.name}, mid300`, values: paper.values, published: paper.published },
      ],
      right: [{ name: 'R@all (this run)', values: diag.map((d) => val(d, 'R@all')) }],
      title: 'Round-cap sweep L+R',
      xTitle: 'L+R (Locator + Deep Reader rounds)',
      yTitle: `${METRIC} x100`,
      y2Title: 'R@all x100 (dashed)',
      yRange: [0, 100],
      y2Range: [0, 100],
    }),
  'sweep-two-axes',
);

// %% [markdown]
// ## Single-role cuts against 4+4 (paired), and the 4+4 spread

// %%
const cuts = kf.notebook.pairedRows(
  runs,
  [...CUTS, '3+3'].map((c) => [c, '4+4'] as [string, string]),
  { metric: METRIC, seed: SEED },
);
nb.table(cuts, 'cuts-vs-4p4', { decimals: 1, caption: `${METRIC} (x100): cut (A) vs 4+4 (B), flips, exact sign test, 95% paired bootstrap CI` });
const reps = ['4+4', ...Array.from({ length: Math.max(0, REPEATS - 1) }, (_, i) => `4+4 #${i + 2}`)].filter((l) => runs.has(l));
const repVals = reps.map((l) => val(l, METRIC)).filter((v): v is number => v !== null);
const spread = repVals.length
  ? {
      runs: repVals.length,
      mean: Math.round((10 * repVals.reduce((a, b) => a + b, 0)) / repVals.length) / 10,
      min: Math.min(...repVals),
      max: Math.max(...repVals),
    }
  : { runs: 0, mean: null, min: null, max: null };
nb.table([{ config: '4+4', ...spread, paperRuns: '51.1 / 50.7 / 50.9 (mid300)' }], 'repeats-4p4', {
  decimals: 1,
  caption: `4+4 repeated ${REPEATS}x (seeds 0..${REPEATS - 1}): ${METRIC} spread`,
});
nb.table(kf.notebook.usageRows(runs, ['locatorRounds', 'readerRounds', 'searches', 'reads']), 'usage', {
  decimals: 2,
  caption: 'Actual usage under each cap (Appendix C shape): mean per question, share with none',
});

// %% [markdown]
// ## How the caps were used (Table 8's columns)
//
// Per cap: the share of questions whose Locator / Deep Reader spent every
// allowed round, the share with no read at all, and the median and 90th
// percentile of the rounds each role used (from the records' usage counters).

// %%
nb.table(kf.method('knowforge').capUsageRows(runs), 'cap-usage', {
  decimals: 1,
  caption: 'Round-cap usage: at-cap shares (%), zero reads (%), p50/p90 rounds per role',
});

// %%
await nb.finish();
