// %% [markdown]
// # 44 · DualG-MRAG ablations (paper Table 3: w/o path injection, w/o micro graph, w/o macro graph)
//
// Retrieval (R@2 / R@5, model-free) and answer quality of the paper's four rows -- full, w/o path, w/o
// micro, w/o macro -- beside the published Table 3 (MMQA, Qwen3-VL-4B), in the same order in both panels,
// so like is compared with like. Labels are short; what scored each row is named in the captions: the
// harness rows rank with `SCORER` ("heuristic": the untrained heuristic scorer, a stand-in for the trained
// GNN the demo graph has no checkpoint of; "gnn": the trained GNN, which must have been trained first with
// `kf train gnn`), the query pattern comes from the offline rule parser and the answers from the offline
// backend -- not model results. The other variants (PPR, the heuristic beside the GNN, the earlier
// generators, the hybrid baseline) are in a second figure.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const SCORER = (process.env.KF_NB_DG_SCORER ?? 'heuristic') as 'heuristic' | 'gnn';
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
const gnn = SCORER === 'gnn';
// The paper's four rows, in Table 3's order: short label, the published row, the configuration, its retriever.
const PAPER_ROWS = [
  { label: 'full', paper: 'full', pipeline: 'DG', mode: gnn ? 'dualg-gnn' : 'dualg' },
  { label: 'w/o path', paper: 'w/o path injection', pipeline: 'DG-nopaths', mode: gnn ? 'dualg-gnn' : 'dualg' },
  { label: 'w/o micro', paper: 'w/o micro graph', pipeline: 'DG-nomicro', mode: gnn ? 'dualg-gnn-no-micro' : 'dualg-no-micro' },
  { label: 'w/o macro', paper: 'w/o macro graph', pipeline: 'DG-nomacro', mode: 'dualg-no-macro' },
];
// The other variants: not in the paper's table.
const OTHER_ROWS = [
  { label: gnn ? 'heuristic' : 'trained GNN', pipeline: gnn ? 'DG-heuristic' : 'DG', mode: gnn ? 'dualg' : 'dualg-gnn' },
  { label: 'PPR', pipeline: 'DG-ppr', mode: 'ppr' },
  { label: 'text gen', pipeline: 'DG-textgen', mode: gnn ? 'dualg-gnn' : 'dualg' },
  { label: 'KF-checked gen', pipeline: 'DG-checked', mode: gnn ? 'dualg-gnn' : 'dualg' },
  { label: 'hybrid', pipeline: 'S4v1', mode: 'hybrid' },
];
const SCORER_CAPTION = gnn
  ? 'harness: trained GNN scorer (its checkpoint named in the retrieval table)'
  : 'harness: untrained heuristic scorer standing in for the trained GNN (no demo checkpoint)';
const STAND_INS = 'pattern: offline rule parser; answers: offline backend (not model results); index built offline';
const nb = kf.notebook.open('44-dualg-ablations', { params: { preset: PRESET, limit: LIMIT, scorer: SCORER }, seed: SEED });
const names = kf.notebook.harnessRetrieverNames();
const world = await kf.ensureDemoWorld({ preset: PRESET });
const bench = kf.loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
const idx = await kf.openIndex(
  (await kf.ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: kf.notebook.demoIndexDir(PRESET), embedder: 'fitted' })).dir,
);
const qs = bench.questions.filter((q) => q.goldDocs.length).slice(0, LIMIT ?? bench.questions.length);
const gold = new Map(qs.map((q) => [q.question, q.goldDocs] as [string, string[]]));
const rows = [...PAPER_ROWS, ...OTHER_ROWS].filter((v) => {
  const ok = names.includes(v.mode);
  if (!ok) nb.skip(`variant ${v.label}`, `retriever ${v.mode} is not registered in this checkout`);
  return ok;
});
// Each retriever searched once: path injection and the generators act after retrieval, so their retrieval is the
// full row's (as in the paper's Table 3, where w/o path has the full method's recall).
const searched = rows.filter((v, i) => rows.findIndex((w) => w.mode === v.mode) === i);
const systems = await kf.notebook.harnessRetrievals(idx, [...gold.keys()], searched);
const scorerOf = new Map(systems.map((s) => [s.name, s.system]));
for (const s of systems) if (s.note) nb.skip(`variant ${s.name}`, s.note);
// Short labels on the axes; the full identity of what ranked stays in the table's `ranked by` column.
const byMode = new Map(searched.map((v, i) => [v.mode, systems[i]]));
const recallOf = new Map(
  kf.notebook
    .recallTable(
      systems.map((s) => ({ ...s, system: s.name })),
      gold,
      [2, 5],
    )
    .map((r) => [String(r.system), r]),
);
const rowRecall = (v: (typeof rows)[number]) => recallOf.get(byMode.get(v.mode)?.name ?? '');

// %% [markdown]
// ## Retrieval

// %%
nb.table(
  rows.map((v) => ({
    variant: v.label,
    'R@2': rowRecall(v)?.['R@2'] ?? null,
    'R@5': rowRecall(v)?.['R@5'] ?? null,
    'ranked by': scorerOf.get(byMode.get(v.mode)?.name ?? '') ?? '',
  })),
  'retrieval',
  { decimals: 1, caption: `Demo world (${PRESET}): R@2 / R@5 per variant (x100)`, notes: [SCORER_CAPTION, STAND_INS] },
);
const paperCats = PAPER_ROWS.map((v) => v.label);
const harnessR5 = (v: { mode: string }) => (recallOf.get(byMode.get(v.mode)?.name ?? '')?.['R@5'] as number | undefined) ?? null;
await nb.figure(
  () =>
    kf.barFigure({
      categories: paperCats,
      series: [
        { name: 'R@5 harness (demo)', values: PAPER_ROWS.map(harnessR5) },
        {
          name: 'R@5 published (Table 3, MMQA)',
          values: PAPER_ROWS.map((v) => kf.notebook.paperValue({ paper: 'dualg-mrag', source: 'Table 3', metric: 'R@5', system: v.paper })),
        },
      ],
      title: "The paper's four rows: retrieval",
      xTitle: 'variant',
      yTitle: 'R@5 x100',
    }),
  'ablation-retrieval',
  { note: [SCORER_CAPTION, STAND_INS] },
);
await nb.figure(
  () =>
    kf.barFigure({
      categories: OTHER_ROWS.map((v) => v.label),
      series: [{ name: 'R@5 harness (demo)', values: OTHER_ROWS.map(harnessR5) }],
      title: 'Other variants: retrieval (not in the paper)',
      xTitle: 'variant',
      yTitle: 'R@5 x100',
    }),
  'other-variants-retrieval',
  { note: [STAND_INS, 'text gen and KF-checked gen retrieve as the full row'] },
);

// %% [markdown]
// ## Answer quality: each row's pipeline (the DualG-MRAG rows; the baseline is the one-shot reader on hybrid)

// %%
const override = (v: { pipeline: string; mode: string }) =>
  v.pipeline === 'S4v1'
    ? [`pipeline.settings.mode=${v.mode}`]
    : v.pipeline === 'DG-nomacro' || v.pipeline === 'DG-ppr'
      ? []
      : [`pipeline.settings.retriever=${v.mode}`];
const runs = await kf.notebook.runConfigurations(
  nb,
  rows.map((v) => ({ label: v.label, pipeline: v.pipeline, overrides: override(v) })),
  { preset: PRESET, limit: LIMIT },
);
if (runs.size) {
  nb.table(kf.notebook.summaryRows(runs, { metrics: ['em', 'f1'], recall: ['R@2', 'R@5', 'R@8'] }), 'qa', {
    decimals: 1,
    caption: 'EM / F1 per variant pipeline, and its first-search recall (x100)',
    notes: [SCORER_CAPTION, STAND_INS],
  });
  const qaCi = kf.notebook.metricWithCI(runs, 'f1', { seed: SEED });
  const ci = (l: string) => qaCi.get(l);
  await nb.figure(
    () =>
      kf.barFigure({
        categories: paperCats,
        series: [
          {
            name: 'F1 harness (demo)',
            values: paperCats.map((l) => ci(l)?.mean ?? null),
            lo: paperCats.map((l) => ci(l)?.lo ?? null),
            hi: paperCats.map((l) => ci(l)?.hi ?? null),
          },
          {
            name: 'F1 published (Table 3, MMQA)',
            values: PAPER_ROWS.map((v) => kf.notebook.paperValue({ paper: 'dualg-mrag', source: 'Table 3', metric: 'f1', system: v.paper })),
          },
        ],
        title: "The paper's four rows: answer quality",
        xTitle: 'variant',
        yTitle: 'F1 x100',
      }),
    'ablation-qa',
    { note: [SCORER_CAPTION, STAND_INS] },
  );
  const ref = runs.has('full') ? 'full' : [...runs.keys()][0];
  nb.table(kf.notebook.pairedRows(runs, kf.notebook.pairsAgainst(runs, ref), { metric: 'f1', seed: SEED }), 'qa-paired', {
    decimals: 1,
    caption: `F1 (x100): each variant (A) vs ${ref} (B), flips, exact sign test, 95% paired bootstrap CI`,
  });
}

// %%
await nb.finish();
