// %% [markdown]
// # 43 · Efficiency vs effectiveness (paper Figure 5: R@5 vs time per query, log time axis) and latency breakdown
//
// Each retriever of this harness: mean seconds per query against R@5 on the
// 2Wiki dev questions (6,119 passages; the demo world when ../shared/bench is
// absent), on a log time axis, with the paper's published points (DualG-MRAG
// 0.44 s, MMGraphRAG 40.5 s on MMQA) as their own group. Then where a query's
// time goes, stage by stage, from each retriever's own timings (the paper:
// 59.95% micro-matching, 39.40% macro reasoning for DualG-MRAG).

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('43-dualg-efficiency', { params: { preset: PRESET }, seed: SEED });
const names = kf.notebook.harnessRetrieverNames();
// The plug-ins' retrieval series (DualG's graph retrievers): each one named there is searched below, or said missing.
for (const g of kf.notebook.notebookSeries('retrieval')) if (!names.includes(g.name)) nb.skip(`retriever ${g.name}`, 'not registered in this checkout');
const wiki = kf.notebook.load2WikiShared();
let corpusName = '2Wiki dev';
let gold: Map<string, string[]>;
let idx;
if (wiki) {
  gold = new Map(wiki.questions.map((q) => [q.question, q.goldDocs] as [string, string[]]));
  idx = await kf.notebook.passagesIndex(wiki);
} else {
  corpusName = `demo ${PRESET}`;
  const world = await kf.ensureDemoWorld({ preset: PRESET });
  const b = kf.loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
  gold = new Map(b.questions.filter((q) => q.goldDocs.length).map((q) => [q.question, q.goldDocs] as [string, string[]]));
  idx = await kf.openIndex(
    (await kf.ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: kf.notebook.demoIndexDir(PRESET), embedder: 'fitted' })).dir,
  );
}
const systems = await kf.notebook.harnessRetrievals(idx, [...gold.keys()], names);
for (const s of systems) if (s.note) nb.skip(`retriever ${s.system}`, s.note);

// %%
const recall = kf.notebook.recallTable(systems, gold, [5], { times: true }).filter((r) => r.n);
nb.table(
  recall.map((r) => ({ retriever: r.system, 'R@5': r['R@5'], msPerQuery: r.msPerQuery })),
  'efficiency',
  { decimals: 1, caption: `${corpusName}: R@5 and mean ms per query (this machine, one process, sequential)`, notes: ['times vary between runs and machines'] },
);
const pubPts = ['DualG-MRAG', 'MMGraphRAG']
  .map((s) => ({
    s: s,
    t: kf.notebook.paperValue({ paper: 'dualg-mrag', metric: 'secondsPerQuery', system: s }),
    r: kf.notebook.paperValue({ paper: 'dualg-mrag', benchmark: 'mmqa', metric: 'R@5', system: s }),
  }))
  .filter((p) => p.t !== null && p.r !== null);
await nb.figure(
  () =>
    kf.notebook.logScatterFigure({
      groups: [
        {
          name: `this harness (${corpusName})`,
          x: recall.map((r) => (r.msPerQuery as number) / 1000),
          y: recall.map((r) => r['R@5'] as number),
          labels: recall.map((r) => String(r.system)),
        },
        {
          name: 'published (DualG-MRAG paper, MMQA)',
          published: { benchmark: 'mmqa' },
          x: pubPts.map((p) => p.t as number),
          y: pubPts.map((p) => p.r as number),
          labels: pubPts.map((p) => p.s),
        },
      ],
      // Measured here on another corpus than the paper's MMQA: the published points get their own plot.
      benchmark: corpusName,
      title: 'Efficiency vs effectiveness',
      xTitle: 'seconds per query (log)',
      yTitle: 'R@5 x100',
    }),
  'efficiency-vs-effectiveness',
  { note: 'harness index built offline; published points are on MMQA' },
);

// %% [markdown]
// ## Latency breakdown per retriever (mean ms per query, by stage)

// %%
const timed = systems.filter((s) => s.stageMs && Object.keys(s.stageMs).length);
const stages = [...new Set(timed.flatMap((s) => Object.keys(s.stageMs ?? {})))].filter((k) => k !== 'totalMs' && k !== 'roundMs').sort();
nb.table(
  timed.map((s) => ({ retriever: s.system, ...Object.fromEntries(stages.map((k) => [k, Math.round(100 * (s.stageMs?.[k] ?? 0)) / 100])) })),
  'latency-breakdown',
  { decimals: 2, caption: 'Mean ms per query by stage (RankedEvidence timings)' },
);
if (timed.length && stages.length) {
  await nb.figure(
    () =>
      kf.notebook.stackedBarFigure({
        categories: timed.map((s) => s.system),
        series: stages.map((k) => ({ name: k, values: timed.map((s) => Math.round(100 * (s.stageMs?.[k] ?? 0)) / 100) })),
        title: "Where a query's retrieval time goes",
        xTitle: 'retriever',
        yTitle: 'ms per query',
      }),
    'latency-breakdown',
    { note: 'harness index built offline' },
  );
} else nb.skip('latency breakdown figure', 'no retriever reported stage timings');

// %%
await nb.finish();
