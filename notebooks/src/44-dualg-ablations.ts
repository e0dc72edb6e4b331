// %% [markdown]
// # 44 · DualG-MRAG ablations (paper Table 3: w/o path injection, w/o micro graph, w/o macro graph)
//
// Retrieval (R@2 / R@5, model-free) and answer quality (one-shot reader) of
// the DualG-MRAG retriever variants: the full method (trained GNN), the
// untrained heuristic scorer, personalised PageRank over the same macro graph,
// and the paper's component ablations, each label naming what it removed and
// which scorer ranked. A GNN variant without a checkpoint for the demo graph
// fails with the command that trains one (`kf train gnn`), shown as a note; a
// variant not registered in this checkout is skipped with a note. The paper's Table 3 (MMQA, Qwen3-VL-4B) is the reference.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
// The variants: the plug-ins' 'ablations' series (DualG's rows, lib/dualg/plugin.ts), each searched with the
// retriever its configuration names, then the hybrid baseline under the one-shot reader.
const VARIANTS = [
  ...kf.notebook.notebookSeries('qa', { set: 'ablations' }).map((e) => ({ label: e.label, mode: e.retriever ?? '(none)', settings: {}, pipeline: e.name })),
  { label: 'hybrid (baseline)', mode: 'hybrid', settings: {}, pipeline: 'S4v1' },
];
const nb = kf.notebook.open('44-dualg-ablations', { params: { preset: PRESET, limit: LIMIT, variants: VARIANTS }, seed: SEED });
const names = kf.notebook.harnessRetrieverNames();
const present = VARIANTS.filter((v) => {
  const ok = names.includes(v.mode);
  if (!ok) nb.skip(`variant ${v.label}`, `retriever ${v.mode} is not registered in this checkout`);
  return ok;
});
const world = await kf.ensureDemoWorld({ preset: PRESET });
const bench = kf.loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
const idx = await kf.openIndex(
  (await kf.ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: kf.notebook.demoIndexDir(PRESET), embedder: 'fitted' })).dir,
);
const qs = bench.questions.filter((q) => q.goldDocs.length).slice(0, LIMIT ?? bench.questions.length);
const gold = new Map(qs.map((q) => [q.question, q.goldDocs] as [string, string[]]));
// Path injection happens after retrieval: its retrieval is the full retriever's (as in the paper's Table 3).
const searched = present.filter((v, i) => present.findIndex((w) => w.mode === v.mode && JSON.stringify(w.settings) === JSON.stringify(v.settings)) === i);
const systems = await kf.notebook.harnessRetrievals(idx, [...gold.keys()], searched);
for (const s of systems) if (s.note) nb.skip(`variant ${s.system}`, s.note);

// %% [markdown]
// ## Retrieval

// %%
const recall = kf.notebook.recallTable(systems, gold, [2, 5]);
nb.table(recall, 'retrieval', { decimals: 1, caption: `Demo world (${PRESET}): R@2 / R@5 per variant`, notes: ['index built offline'] });
const paperVariants = ['full', 'w/o path injection', 'w/o micro graph', 'w/o macro graph'];
const ok = recall.filter((r) => r.n);
const cats = [...new Set([...ok.map((r) => String(r.system)), ...paperVariants])];
await nb.figure(
  () =>
    kf.barFigure({
      categories: cats,
      series: [
        { name: 'R@5 this harness (demo)', values: cats.map((c) => (ok.find((r) => r.system === c)?.['R@5'] as number | null) ?? null) },
        {
          name: 'R@5 published (DualG-MRAG Table 3, MMQA)',
          values: cats.map((c) => kf.notebook.paperValue({ paper: 'dualg-mrag', source: 'Table 3', metric: 'R@5', system: c })),
        },
      ],
      title: 'Ablations: retrieval',
      xTitle: 'variant',
      yTitle: 'R@5 x100',
    }),
  'ablation-retrieval',
  { note: 'harness index built offline' },
);

// %% [markdown]
// ## Answer quality: each variant's pipeline (DualG-MRAG family rows; the baseline is the one-shot reader on hybrid)

// %%
const runs = await kf.notebook.runConfigurations(
  nb,
  VARIANTS.map((v) => ({ label: v.label, pipeline: v.pipeline, ...(v.pipeline === 'S4v1' ? { overrides: [`pipeline.settings.mode=${v.mode}`] } : {}) })),
  { preset: PRESET, limit: LIMIT },
);
if (runs.size) {
  nb.table(kf.notebook.summaryRows(runs, { metrics: ['em', 'f1'], recall: ['R@2', 'R@5', 'R@8'] }), 'qa', {
    decimals: 1,
    caption: 'EM / F1 per variant pipeline, and its first-search recall (x100)',
  });
  const qaLabels = [...runs.keys()];
  const qaCi = kf.notebook.metricWithCI(runs, 'f1', { seed: SEED });
  await nb.figure(
    () =>
      kf.barFigure({
        categories: qaLabels,
        series: [
          {
            name: 'F1 this run (demo)',
            values: qaLabels.map((l) => qaCi.get(l)?.mean ?? null),
            lo: qaLabels.map((l) => qaCi.get(l)?.lo ?? null),
            hi: qaLabels.map((l) => qaCi.get(l)?.hi ?? null),
          },
          {
            name: 'F1 published (DualG-MRAG Table 3, MMQA)',
            values: qaLabels.map((l) => kf.notebook.paperValue({ paper: 'dualg-mrag', source: 'Table 3', metric: 'f1', system: l })),
          },
        ],
        title: 'Ablations: answer quality',
        xTitle: 'variant',
        yTitle: 'F1 x100',
      }),
    'ablation-qa',
  );
  const ref = runs.has('full') ? 'full' : [...runs.keys()][0];
  nb.table(kf.notebook.pairedRows(runs, kf.notebook.pairsAgainst(runs, ref), { metric: 'f1', seed: SEED }), 'qa-paired', {
    decimals: 1,
    caption: `F1 (x100): each variant (A) vs ${ref} (B), flips, exact sign test, 95% paired bootstrap CI`,
  });
}

// %%
await nb.finish();
