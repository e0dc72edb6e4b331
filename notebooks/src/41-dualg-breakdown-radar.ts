// %% [markdown]
// # 41 · Fine-grained breakdown with a radar chart (paper Table 2 / Figure 3, ScienceQA)
//
// ScienceQA's questions and images are not obtainable here (only a small
// fixture for the loader), so this breakdown uses **the demo world's own
// buckets**: evidence modality (text / table / image) and hop count, per
// retriever under the same one-shot reader (the runs of notebook 40, reused).
// The paper's ScienceQA radar (subject NAT/SOC/LAN, context TXT/IMG/NO, grade
// G1-6/G7-12) is drawn beside it from its published Table 2.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const METRIC = 'f1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
// The engine's hybrid modes, then the plug-ins' retrieval series (DualG's graph retrievers, as in notebook 40).
const RETRIEVERS = ['hybrid', 'hybrid+graph', ...kf.notebook.notebookSeries('retrieval').map((e) => e.name)];
const nb = kf.notebook.open('41-dualg-breakdown-radar', {
  params: { preset: PRESET, limit: LIMIT, retrievers: RETRIEVERS, metric: METRIC, buckets: 'demo world: modality + hops' },
  seed: SEED,
});
const registered = kf.notebook.harnessRetrieverNames();
const engine: string[] = [...kf.notebook.ENGINE_MODES];
const configs = RETRIEVERS.filter((r) => {
  const ok = registered.includes(r);
  if (!ok) nb.skip(`retriever ${r}`, 'not registered in this checkout');
  return ok;
}).map((r) => ({ label: r, pipeline: 'S4v1', overrides: [engine.includes(r) ? `pipeline.settings.mode=${r}` : `pipeline.settings.retriever=${r}`] }));
const runs = await kf.notebook.runConfigurations(nb, configs, { preset: PRESET, limit: LIMIT });

// %%
const axesOf = (field: string) => [...new Set([...runs.values()].flatMap((r) => Object.keys(kf.summarizeByBucket(r, field))))].sort();
const axes = [...axesOf('modality').map((b) => `modality: ${b}`), ...axesOf('hops').map((b) => `hops: ${b}`)];
const rows = [...runs].map(([label, run]) => {
  const row: Record<string, string | number | null> = { retriever: label };
  for (const field of ['modality', 'hops']) {
    const b = kf.summarizeByBucket(run, field);
    for (const k of Object.keys(b)) row[`${field}: ${k}`] = Math.round(1000 * (b[k].scores[METRIC] ?? 0)) / 10;
  }
  return row;
});
nb.table(rows, 'breakdown', { decimals: 1, caption: `${METRIC} (x100) by demo-world bucket (a question with several modalities counts in each)` });
if (rows.length && axes.length >= 3) {
  await nb.figure(
    () =>
      kf.notebook.radarFigure({
        axes: axes,
        series: rows.map((r) => ({ name: String(r.retriever), values: axes.map((a) => (r[a] as number | undefined) ?? null) })),
        title: `Breakdown by demo-world bucket (${METRIC})`,
        yTitle: `${METRIC} x100`,
        range: [0, 100],
      }),
    'radar-demo',
  );
} else nb.skip('demo radar', 'fewer than 3 buckets or no runs');

// %% [markdown]
// ## The paper's ScienceQA radar (published numbers, Qwen3-VL-8B)

// %%
const sq = kf.notebook.SCIENCEQA_BUCKETS.filter((b) => b !== 'avg');
const systems = ['Human', 'GPT-4 (CoT)', 'VLM2Vec-V2.0', 'HM-RAG', 'DualG-MRAG'];
const pubRows = systems.map((s) => ({
  system: s,
  ...Object.fromEntries(
    kf.notebook.SCIENCEQA_BUCKETS.map((b) => [b, kf.notebook.paperValue({ paper: 'dualg-mrag', benchmark: 'scienceqa', metric: `acc:${b}`, system: s })]),
  ),
}));
nb.table(pubRows, 'scienceqa-published', {
  decimals: 2,
  caption: 'ScienceQA accuracy by subject, context and grade: published (DualG-MRAG paper, Table 2)',
  notes: ['published numbers, not measured here'],
  sessionNotes: false,
});
await nb.figure(
  () =>
    kf.notebook.radarFigure({
      axes: [...sq],
      series: systems.map((s) => ({
        name: s,
        values: sq.map((b) => kf.notebook.paperValue({ paper: 'dualg-mrag', benchmark: 'scienceqa', metric: `acc:${b}`, system: s })),
      })),
      title: 'ScienceQA (published, DualG-MRAG Table 2)',
      yTitle: 'accuracy',
      range: [65, 100],
    }),
  'radar-scienceqa-published',
  { note: 'published numbers (DualG-MRAG paper), not measured here', sessionNotes: false },
);

// %%
await nb.finish();
