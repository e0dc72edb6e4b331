// %% [markdown]
// # 21 · Role ablation: S4, P1, P0, M5 (paper §5.2, Tables 2 and 6)
//
// What each job is worth: **P1 - S4** = iterative retrieval (Locator + bridge
// judge) without a reader; **M5 - P1** = the Deep Reader; **M5 - P0** = role
// separation (two agents with disjoint tools vs one agent with every tool and
// 8 rounds). Beside the F1 differences: how the agents used their tools
// (searches, reads, share of questions that never read), because the paper's
// point is behavioural (P0 keeps searching instead of reading).

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const CONFIGS = ['S4', 'P1', 'P0', 'M5'];
const PAIRS: [string, string][] = [
  ['P1', 'S4'],
  ['M5', 'P1'],
  ['M5', 'P0'],
  ['M5', 'S4'],
];
const METRIC = 'f1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('21-kf-role-ablation', { params: { preset: PRESET, limit: LIMIT, configs: CONFIGS, pairs: PAIRS, metric: METRIC }, seed: SEED });
const runs = await kf.notebook.runConfigurations(
  nb,
  CONFIGS.map((c) => ({ label: c })),
  { preset: PRESET, limit: LIMIT },
);
nb.table(kf.notebook.summaryRows(runs), 'summary', { decimals: 1, caption: `Role ablation on the demo world (${PRESET})` });

// %% [markdown]
// ## What each role is worth (paired)

// %%
const paired = kf.notebook.pairedRows(runs, PAIRS, { metric: METRIC, seed: SEED });
nb.table(paired, 'paired', { decimals: 1, caption: `${METRIC} (x100): A vs B, flips won:lost:tied, exact sign test, 95% paired bootstrap CI` });
const published = kf.notebook.paperSeries({ paper: 'knowforge', benchmark: 'm3docvqa', metric: METRIC }, [...runs.keys()]);
const ci = kf.notebook.metricWithCI(runs, METRIC, { seed: SEED });
await nb.figure(
  () =>
    kf.barFigure({
      categories: [...runs.keys()],
      series: [
        {
          name: `this run (demo ${PRESET})`,
          values: [...runs.keys()].map((c) => ci.get(c)?.mean ?? null),
          lo: [...runs.keys()].map((c) => ci.get(c)?.lo ?? null),
          hi: [...runs.keys()].map((c) => ci.get(c)?.hi ?? null),
        },
        { name: `${published.name}, M3DocVQA`, values: published.values },
      ],
      title: `Role ablation: ${METRIC} by configuration`,
      xTitle: 'configuration',
      yTitle: `${METRIC} x100`,
    }),
  'f1-by-role',
);

// %% [markdown]
// ## How the roles used their tools
// Mean per answered question, and the share of questions where the count is zero.

// %%
const usage = kf.notebook.usageRows(runs, ['searches', 'reads', 'locatorRounds', 'readerRounds', 'judgeCalls', 'poolChars']);
nb.table(usage, 'usage', { decimals: 2, caption: 'Tool usage per question (searches, reads, rounds) and share of questions with none' });
await nb.figure(
  () =>
    kf.barFigure({
      categories: usage.map((r) => String(r.config)),
      series: [
        { name: 'searches / question', values: usage.map((r) => r.searches as number | null) },
        { name: 'reads / question', values: usage.map((r) => r.reads as number | null) },
      ],
      title: 'Searches and reads per question',
      xTitle: 'configuration',
      yTitle: 'calls per question',
    }),
  'usage',
);

// %%
await nb.finish();
