// %% [markdown]
// # 40 · DualG-MRAG main QA table (paper Table 1: MMQA EM / F1)
//
// The DualG-MRAG pipeline (`DG`: DualG search, evidence pool, decoded paths
// serialised into the prompt, synthesizer, checker; `DG-nopaths` without the
// paths), and, for a fair retriever comparison, the same one-shot reader
// (S4v1: one search, typed pool, synthesizer, checker) fed by each retriever of
// this harness: none (closed book, the paper's "Base LLM"), the engine's
// dense / hybrid / hybrid + graph, and every registered graph retriever
// (`dualg-gnn`, `dualg` with its untrained heuristic scorer, `ppr`; skipped with a note where absent), on the
// demo world. The paper's Table 1 (Qwen3-VL-4B generator, MMQA) is the
// reference series; the demo world is not MMQA.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const READER = 'S4v1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
// The plug-ins' series (DualG's: lib/dualg/plugin.ts): graph retrievers under the reader, whole-pipeline rows beside them.
const GRAPH_RETRIEVERS = kf.notebook.notebookSeries('retrieval').map((e) => e.name);
const DG_PIPELINES = kf.notebook.notebookSeries('qa', { set: 'beside-retrievers' }).map((e) => e.name);
const nb = kf.notebook.open('40-dualg-main-qa', {
  params: { preset: PRESET, limit: LIMIT, graphRetrievers: GRAPH_RETRIEVERS, dgPipelines: DG_PIPELINES, reader: READER },
  seed: SEED,
});
const registered = kf.notebook.harnessRetrieverNames();
for (const g of GRAPH_RETRIEVERS)
  if (!registered.includes(g)) nb.skip(`retriever ${g}`, 'not registered in this checkout (DualG-MRAG retrievers are being built)');
const configs = [
  { label: 'no retrieval', pipeline: 'S0' },
  ...['dense', 'hybrid', 'hybrid+graph'].map((m) => ({ label: m, pipeline: READER, overrides: [`pipeline.settings.mode=${m}`] })),
  ...GRAPH_RETRIEVERS.filter((g) => registered.includes(g)).map((g) => ({ label: g, pipeline: READER, overrides: [`pipeline.settings.retriever=${g}`] })),
  ...DG_PIPELINES.map((p) => ({ label: p, pipeline: p })),
];
const runs = await kf.notebook.runConfigurations(nb, configs, { preset: PRESET, limit: LIMIT });

// %%
nb.table(kf.notebook.summaryRows(runs, { metrics: ['em', 'f1'], recall: ['R@1', 'R@3', 'R@8'] }), 'qa-table', {
  decimals: 1,
  caption: `One-shot reader ${READER} with each retriever, demo world (${PRESET}): EM / F1 and first-search recall (x100)`,
});
const pairs = [...runs.keys()].filter((l) => l !== 'hybrid').map((l) => [l, 'hybrid'] as [string, string]);
nb.table(kf.notebook.pairedRows(runs, pairs, { metric: 'f1', seed: SEED }), 'paired-vs-hybrid', {
  decimals: 1,
  caption: 'F1 (x100): each retriever (A) vs hybrid (B), flips, exact sign test, 95% paired bootstrap CI',
});

// %%
const paperName = (l: string) => (l === 'no retrieval' ? 'Base LLM (no retrieval)' : l === 'DG' ? 'DualG-MRAG' : null);
const published = ['VisRAG', 'VLM2Vec-V2.0', 'CoRe-MMRAG', 'ViDoRAG', 'HM-RAG', 'MMGraphRAG'];
const labels = [...runs.keys()];
const cats = [...labels, ...published.map((p) => `${p} (published only)`)];
const ours = kf.notebook.metricWithCI(runs, 'f1', { seed: SEED });
const pub = kf.notebook.paperSeries({ paper: 'dualg-mrag', benchmark: 'mmqa', metric: 'f1', model: 'Qwen3-VL-4B' }, [...labels.map(paperName), ...published]);
await nb.figure(
  () =>
    kf.barFigure({
      categories: cats,
      series: [
        {
          name: `F1 this run (demo ${PRESET})`,
          values: cats.map((c) => ours.get(c)?.mean ?? null),
          lo: cats.map((c) => ours.get(c)?.lo ?? null),
          hi: cats.map((c) => ours.get(c)?.hi ?? null),
        },
        { name: `${pub.name}, MMQA F1`, values: pub.values },
      ],
      title: 'Main QA: retrievers under one reader, with the published Table 1',
      xTitle: 'retriever / system',
      yTitle: 'F1 x100',
    }),
  'qa-vs-published',
);

// %%
await nb.finish();
