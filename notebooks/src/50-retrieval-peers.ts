// %% [markdown]
// # 50 · Retrieval side by side with the peers on 2Wiki
//
// The fast-graphrag benchmark recorded what four systems retrieved for the 2Wiki
// dev questions shipped in `../shared/bench/text-multihop/peers/` (vectordb,
// LightRAG, nano-GraphRAG, fast-graphrag: about 8 titles per question). This
// notebook scores those **recorded** retrievals and **every retriever of this
// harness** (the engine's bm25 / dense / hybrid / hybrid+graph, plus every
// registered retriever such as DualG-MRAG's `dualg`, `ppr`, `dualg-gnn`
// once they exist) on the same questions over the same 6,119-passage corpus,
// model-free: R@k = share of gold titles among the first k distinct documents,
// allFound@k = all of them. Published reference: spec-dualg.md quotes allFound
// at ~8 of 0.42 / 0.45 / 0.73 / 0.93 on the 101-question set.
//
// No model is called: the index is built offline (knowledge points and
// relations from the offline backend, corpus-fitted encoder), so these are
// retrieval numbers of the offline index, labelled as such. Caution: the
// settings of the offline DualG-MRAG scorers were chosen by k-fold
// cross-validation on these same dev questions (kf kfold (lib/dualg/kfold.ts)); the
// held-back 2Wiki questions are the independent measurement.

// %% tags=["parameters"]
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined; // questions (all 61 by default)
const KS = [2, 5, 8];
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('50-retrieval-peers', { params: { limit: LIMIT, ks: KS }, seed: SEED });
const data = kf.notebook.load2WikiShared();
if (!data)
  nb.skip(
    'the whole comparison (every table and figure below)',
    `2Wiki dev data and the peers' recorded retrievals not found under ${kf.benchDir('text-multihop')}: put the shared benchmark folder beside the checkout (../shared/bench) or point KF_SHARED at a copy (data/README.md)`,
  );

// %% [markdown]
// ## The systems: recorded peers and the harness's retrievers (searched now)

// %%
const questions = data ? data.questions.slice(0, LIMIT ?? data.questions.length) : [];
const gold = new Map(questions.map((q) => [q.question, q.goldDocs] as [string, string[]]));
const peers = kf.notebook.loadPeerRetrievals();
const names = kf.notebook.harnessRetrieverNames();
console.log(`${questions.length} questions; peers: ${peers.map((p) => p.system).join(', ') || 'none'}; harness retrievers: ${names.join(', ')}`);
const idx = data ? await kf.notebook.passagesIndex(data) : undefined;
const mine = idx ? await kf.notebook.harnessRetrievals(idx, [...gold.keys()], names) : [];
const systems = [...peers, ...mine];
nb.input('questions', kf.benchDir('text-multihop', '2wiki_questions.dev.json'));
nb.input('peers', kf.notebook.peersDir());
if (idx) nb.input('index', { dir: idx.dir, generation: idx.manifest.generation, embedder: idx.manifest.embedder.id, offline: idx.manifest.offline });
nb.useSource('recorded (peer files)');
for (const s of mine) if (s.note) nb.skip(`retriever ${s.system}`, s.note);

// %% [markdown]
// ## Recall table (x100)

// %%
const recall = kf.notebook.recallTable(systems, gold, KS);
nb.table(recall, 'recall', {
  decimals: 1,
  caption: `2Wiki dev (${questions.length} questions): document recall of recorded peer retrievals and live harness retrievers`,
  notes: ['harness index built offline (no model); k counts distinct documents'],
});

// %%
const times = kf.notebook.recallTable(mine, gold, [8], { times: true }).map((r) => ({ system: r.system, msPerQuery: r.msPerQuery }));
nb.table(times, 'search-times', { decimals: 1, caption: 'Mean ms per question of each harness retriever (this machine; varies between runs)' });
const usable = recall.filter((r) => r.n);
await nb.figure(
  () =>
    kf.barFigure({
      categories: usable.map((r) => String(r.system)),
      series: KS.map((k) => ({ name: `R@${k}`, values: usable.map((r) => r[`R@${k}`] as number | null) })),
      title: '2Wiki: recall of peers (recorded) and harness retrievers (live)',
      xTitle: 'system',
      yTitle: 'recall x100',
    }),
  'recall-by-system',
  { note: 'harness index built offline (no model)' },
);

// %%
const published = kf.notebook.paperNumbers({ paper: 'fast-graphrag', metric: 'allFound@8' });
const cats = usable.map((r) => String(r.system));
await nb.figure(
  () =>
    kf.barFigure({
      categories: cats,
      series: [
        { name: 'allFound@8 (this notebook)', values: usable.map((r) => r['allFound@8'] as number | null) },
        { name: 'published (fast-graphrag benchmark, 101 questions)', values: cats.map((c) => published.find((p) => p.system === c)?.value ?? null) },
      ],
      title: '2Wiki: all gold titles among the first 8',
      xTitle: 'system',
      yTitle: '% of questions',
    }),
  'all-found-8',
  { note: 'harness index built offline (no model)' },
);

// %% [markdown]
// ## Paired: each harness retriever against each peer (allFound@8 flips, exact sign test, bootstrap CI)

// %%
const pairs: [string, string][] = mine.filter((m) => m.ranked.size).flatMap((m) => peers.map((p) => [m.system, p.system] as [string, string]));
const paired = kf.notebook.pairedFound(systems, gold, pairs, { k: 8, seed: SEED });
nb.table(paired, 'paired-all-found-8', {
  decimals: 1,
  caption: 'allFound@8, harness retriever (A) vs peer (B): won:lost:tied per question, two-sided exact sign test, 95% paired bootstrap CI (2,000 resamples)',
});
const perQ = kf.notebook.perQuestionFound(systems, gold, 8);
nb.table(perQ, 'per-question-all-found-8', { caption: 'per question: 1 = every gold title among the first 8' });

// %%
await nb.finish();
