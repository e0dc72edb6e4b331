// %% [markdown]
// # 42 · Retrieval R@2 / R@5 (paper Figure 4 / Table 3 retrieval columns)
//
// Model-free document recall of every retriever of this harness on the demo
// world's questions (gold documents known) and, when ../shared/bench is
// present, on the 2Wiki dev questions: R@k = share of gold documents among the
// first k distinct documents of one search. Each row is one system, labelled
// with the scorer that ranked (and the GNN checkpoint, its training data,
// preset and size); a GNN retriever without a checkpoint shows the command
// that trains one instead of numbers. The paper's MMQA / WebQA R@2 and
// R@5 (DualG-MRAG, MMGraphRAG, VLM2Vec) are the reference series; GFM-RAG's
// published 2Wiki numbers are the text multi-hop anchor.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const KS = [2, 5];
const WITH_2WIKI = process.env.KF_NB_2WIKI !== '0';
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('42-dualg-retrieval', { params: { preset: PRESET, ks: KS, with2wiki: WITH_2WIKI }, seed: SEED });
const names = kf.notebook.harnessRetrieverNames();
// The plug-ins' retrieval series (DualG's graph retrievers): each one named there is searched below, or said missing.
for (const g of kf.notebook.notebookSeries('retrieval')) if (!names.includes(g.name)) nb.skip(`retriever ${g.name}`, 'not registered in this checkout');
const world = await kf.ensureDemoWorld({ preset: PRESET });
const demoBench = kf.loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
const demoIdx = await kf.openIndex(
  (await kf.ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: kf.notebook.demoIndexDir(PRESET), embedder: 'fitted' })).dir,
);
const demoGold = new Map(demoBench.questions.filter((q) => q.goldDocs.length).map((q) => [q.question, q.goldDocs] as [string, string[]]));
const demoSystems = await kf.notebook.harnessRetrievals(demoIdx, [...demoGold.keys()], names);
for (const s of demoSystems) if (s.note) nb.skip(`retriever ${s.system} on the demo world`, s.note);
const demoRecall = kf.notebook.recallTable(demoSystems, demoGold, KS);
nb.table(demoRecall, 'recall-demo', {
  decimals: 1,
  caption: `Demo world (${PRESET}, ${demoGold.size} questions with gold documents): R@2 / R@5 per retriever`,
  notes: ['index built offline; k counts distinct documents'],
});

// %%
const wiki = WITH_2WIKI ? kf.notebook.load2WikiShared() : null;
if (WITH_2WIKI && !wiki) nb.skip('2Wiki', 'data not found under ../shared/bench');
const wikiGold = new Map((wiki?.questions ?? []).map((q) => [q.question, q.goldDocs] as [string, string[]]));
const wikiSystems = wiki ? await kf.notebook.harnessRetrievals(await kf.notebook.passagesIndex(wiki), [...wikiGold.keys()], names) : [];
const wikiRecall = kf.notebook.recallTable(wikiSystems, wikiGold, KS);
if (wiki)
  nb.table(wikiRecall, 'recall-2wiki', {
    decimals: 1,
    caption: `2Wiki dev (${wikiGold.size} questions): R@2 / R@5 per retriever`,
    notes: ['index built offline; GFM-RAG published 2Wiki R@2/R@5: 90.1 / 93.6'],
  });

// %%
const pub = (sys: string, bench: string, k: number) => kf.notebook.paperNumbers({ benchmark: bench, metric: `R@${k}`, system: sys })[0]?.value ?? null;
const usable = demoRecall.filter((r) => r.n);
const cats = [
  ...usable.map((r) => `demo: ${r.system}`),
  ...wikiRecall.filter((r) => r.n).map((r) => `2wiki: ${r.system}`),
  'MMQA: DualG-MRAG',
  'MMQA: MMGraphRAG',
  'WebQA: DualG-MRAG',
  '2wiki: GFM-RAG',
];
const value = (c: string, k: number): number | null => {
  const [where, sys] = c.split(': ');
  if (where === 'demo') return (usable.find((r) => r.system === sys)?.[`R@${k}`] as number | null) ?? null;
  if (where === '2wiki' && sys !== 'GFM-RAG') return (wikiRecall.find((r) => r.system === sys)?.[`R@${k}`] as number | null) ?? null;
  return null;
};
const published = (c: string, k: number): number | null => {
  const [where, sys] = c.split(': ');
  if (where === 'MMQA') return pub(sys, 'mmqa', k);
  if (where === 'WebQA') return pub(sys, 'webqa', k);
  if (where === '2wiki' && sys === 'GFM-RAG') return pub(sys, '2wiki', k);
  return null;
};
// Nothing dropped silently: retrievers without numbers are named (with why), and a bar at 0 is said to be a measured 0.
const notShown = [...demoRecall.map((r) => ['demo', r] as const), ...wikiRecall.map((r) => ['2wiki', r] as const)]
  .filter(([, r]) => !r.n)
  .map(([where, r]) => `${where}: ${r.system}`);
const why = [
  ...new Set(
    [...demoRecall, ...wikiRecall]
      .filter((r) => !r.n)
      .map((r) =>
        String(r.note ?? 'no numbers')
          .split(' (')[0]
          .replace(/^failed: retriever \S+ /, ''),
      ),
  ),
];
const zeros = cats.filter((c) => KS.every((k) => value(c, k) === 0));
await nb.figure(
  () => ({
    ...kf.barFigure({
      categories: cats,
      series: [
        ...KS.map((k) => ({ name: `R@${k} this harness`, values: cats.map((c) => value(c, k)) })),
        ...KS.map((k) => ({ name: `R@${k} published (DualG-MRAG / GFM-RAG papers)`, values: cats.map((c) => published(c, k)) })),
      ],
      title: 'Retrieval R@2 / R@5: harness retrievers and published systems',
      xTitle: 'corpus: retriever',
      yTitle: 'recall x100',
    }),
    height: 650, // room for the notes above and the wrapped retriever labels below
  }),
  'recall-r2-r5',
  {
    note: [
      'harness indexes built offline (no model)',
      ...(notShown.length ? [`not shown: ${notShown.join(', ')} (${why.join('; ')})`] : []),
      ...(zeros.length ? [`a measured 0, not a missing bar: ${zeros.join(', ')}`] : []),
    ],
  },
);

// %%
await nb.finish();
