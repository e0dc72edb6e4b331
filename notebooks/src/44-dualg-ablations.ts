// %% [markdown]
// # 44 · DualG-MRAG ablations (paper Table 3: w/o path injection, w/o micro graph, w/o macro graph)
//
// Retrieval (R@2 / R@5, model-free) and answer quality (one-shot reader) of
// the DualG-MRAG retriever variants: the full retriever, its heuristic scorer
// (no trained GNN), personalised PageRank over the same macro graph, and the
// paper's component ablations as retriever settings. A variant that does not
// exist yet (not registered, or a setting the retriever does not know) is
// skipped with a note. The paper's Table 3 (MMQA, Qwen3-VL-4B) is the reference.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const VARIANTS = [
  { label: 'full', mode: 'dualg', settings: {} },
  { label: 'w/o micro graph', mode: 'dualg', settings: { micro: false } },
  { label: 'w/o macro graph', mode: 'dualg', settings: { macro: false } },
  { label: 'heuristic scorer', mode: 'dualg-heuristic', settings: {} },
  { label: 'PPR', mode: 'ppr', settings: {} },
  { label: 'hybrid (baseline)', mode: 'hybrid', settings: {} },
];
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('44-dualg-ablations', { params: { preset: PRESET, limit: LIMIT, variants: VARIANTS }, seed: SEED });
const names = kf.notebook.harnessRetrieverNames();
const present = VARIANTS.filter((v) => { const ok = names.includes(v.mode); if (!ok) nb.skip(`variant ${v.label}`, `retriever ${v.mode} is not registered in this checkout`); return ok; });
const world = await kf.ensureDemoWorld({ preset: PRESET });
const bench = kf.loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
const idx = await kf.openIndex((await kf.ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: kf.notebook.demoIndexDir(PRESET), embedder: 'fitted' })).dir);
const qs = bench.questions.filter((q) => q.goldDocs.length).slice(0, LIMIT ?? bench.questions.length);
const gold = new Map(qs.map((q) => [q.question, q.goldDocs] as [string, string[]]));
const systems = await kf.notebook.harnessRetrievals(idx, [...gold.keys()], present);
for (const s of systems) if (s.note) nb.skip(`variant ${s.system}`, s.note);

// %% [markdown]
// ## Retrieval

// %%
const recall = kf.notebook.recallTable(systems, gold, [2, 5]);
nb.table(recall, 'retrieval', { decimals: 1, caption: `Demo world (${PRESET}): R@2 / R@5 per variant`, notes: ['index built offline'] });
const paperVariants = ['full', 'w/o path injection', 'w/o micro graph', 'w/o macro graph'];
const ok = recall.filter((r) => r.n);
const cats = [...new Set([...ok.map((r) => String(r.system)), ...paperVariants])];
await nb.figure(() => kf.barFigure({
  categories: cats,
  series: [
    { name: 'R@5 this harness (demo)', values: cats.map((c) => (ok.find((r) => r.system === c)?.['R@5'] as number | null) ?? null) },
    { name: 'R@5 published (DualG-MRAG Table 3, MMQA)', values: cats.map((c) => kf.notebook.paperValue({ paper: 'dualg-mrag', source: 'Table 3', metric: 'R@5', system: c })) },
  ],
  title: 'Ablations: retrieval', xTitle: 'variant', yTitle: 'R@5 x100',
}), 'ablation-retrieval', { note: 'harness index built offline' });

// %% [markdown]
// ## Answer quality under the one-shot reader (registered retrievers only; settings variants need a pipeline setting and are retrieval-only here)

// %%
const engine: string[] = [...kf.notebook.ENGINE_MODES];
const qaVariants = present.filter((v) => Object.keys(v.settings).length === 0);
const runs = await kf.notebook.runConfigurations(nb, qaVariants.map((v) => ({ label: v.label, pipeline: 'S4v1', overrides: [engine.includes(v.mode) ? `pipeline.settings.mode=${v.mode}` : `pipeline.settings.retriever=${v.mode}`] })), { preset: PRESET, limit: LIMIT });
if (runs.size) {
  nb.table(kf.notebook.summaryRows(runs, { metrics: ['em', 'f1'], recall: ['R@8'] }), 'qa', { decimals: 1, caption: 'EM / F1 per variant (one-shot reader S4v1)' });
  if (runs.has('hybrid (baseline)')) nb.table(kf.notebook.pairedRows(runs, kf.notebook.pairsAgainst(runs, 'hybrid (baseline)'), { metric: 'f1', seed: SEED }), 'qa-paired', { decimals: 1, caption: 'F1 (x100): variant vs hybrid, flips, exact sign test, 95% paired bootstrap CI' });
}

// %%
await nb.finish();
