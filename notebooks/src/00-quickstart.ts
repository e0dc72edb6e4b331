// %% [markdown]
// # 00 · Quickstart: the demo world end to end
//
// This notebook drives the harness the way a researcher would: it generates (or
// reuses) the bundled **demo world**, builds its **knowledge-point index**, runs
// one **search**, answers a few questions with the one-shot pipeline **S4**, and
// writes a small table and a Plotly figure into `results/00-quickstart/`.
//
// All logic lives in `lib/` (compiled to `dist/`, `npm run build`); this notebook
// only calls it. With no model endpoint configured every model step runs on the
// **offline backend**: its numbers show the harness working, they are *not* model
// results. Set `OPENAI_BASE_URL` / `KF_MODEL` before starting Jupyter to use a model.

// %% tags=["parameters"]
// Parameters (headless runs: `kf notebooks` uses these defaults; override with env vars).
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = Number(process.env.KF_NB_LIMIT ?? 30); // questions to answer
const PIPELINE = 'S4';

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
const out = kf.kit.notebookResultsDir('00-quickstart');
console.log(`results go to ${out}`);

// %% [markdown]
// ## 1. The demo world
// Fictional entities (so no model can answer from memory), rendered as Markdown,
// HTML and PDF documents with tables, charts whose values exist only as text drawn
// in the image, and worked examples; questions with gold documents, pages,
// modality, hop count and answer format. Deterministic by seed.

// %%
const world = await kf.ensureDemoWorld({ preset: PRESET });
console.log(`${world.generated ? 'generated' : 'reused'} ${world.dir}`);
const bench = kf.loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
kf.kit.showTable(
  bench.questions
    .slice(0, 6)
    .map((q) => ({ id: q.id, question: q.question, answer: JSON.stringify(q.answer), hops: q.hops, modality: q.modality.join('+'), format: q.format })),
);

// %% [markdown]
// ## 2. The knowledge-point index
// Ingestion into typed fragments (text / image / table / example), offline
// descriptions of media (caption + OCR text + table rows), sentence-level
// knowledge points and similarity relations, BM25 + dense HNSW. Built once,
// cached under `.kf-cache/`, incremental on change.

// %%
const ensured = await kf.ensureIndex({
  corpusDir: path.join(world.dir, 'corpus'),
  outDir: kf.notebook.demoIndexDir(PRESET),
  embedder: 'fitted',
});
const index = await kf.openIndex(ensured.dir);
const m = index.manifest as unknown as Record<string, unknown>;
console.log(`index ${ensured.built ? 'built' : 'reused'}: ${ensured.dir}`);
console.log(JSON.stringify(m.counts ?? {}, null, 0));

// %% [markdown]
// One retrieval round (no model call except the query embedding), with its per-stage timings.

// %%
const q0 = bench.questions.find((q) => (q.hops ?? 1) >= 2) ?? bench.questions[0];
const res = await index.retriever.search(q0.question, { mode: 'hybrid+graph', topk: 8 });
console.log(`Q: ${q0.question}\ngold docs: ${q0.goldDocs.join(', ')}`);
kf.kit.showTable(
  res.hits.map((h) => ({ rank: h.rank, doc: h.docId, kind: h.kind, via: h.via, score: h.score, text: h.text.slice(0, 90) })),
  { decimals: 3 },
);
kf.kit.showTable([{ ...res.timings }], { decimals: 2, caption: 'timings (ms)' });

// %% [markdown]
// ## 3. Answer questions with the one-shot pipeline
// `runExperiment` is what `kf run` uses: concurrent, resumable, one record per
// question (prediction, final line, scores, retrieval, usage, trace).

// %%
const experiment = kf.loadExperiment(path.join(kf.repoRoot(), 'experiments', 'demo', `${PIPELINE}.toml`), {
  overrides: [
    `benchmark.paths.questions=${path.join(world.dir, 'questions.json')}`,
    `benchmark.paths.corpus=${path.join(world.dir, 'corpus')}`,
    `index.dir=${ensured.dir}`,
    `limits.maxQuestions=${LIMIT}`,
  ],
});
const outcome = await kf.runExperiment({ experiment: experiment, resultsDir: path.join(out, 'runs'), log: () => {} });
const run = kf.loadRun(outcome.dir);
const s = kf.summarizeRun(run);
console.log(`${outcome.runId}: ${outcome.status}, ${s.n} questions, backend ${s.backend}`);

// %% [markdown]
// ## 4. A table and a figure (written to `results/00-quickstart/`)

// %%
const byModality = kf.summarizeByBucket(run, 'modality');
const rows = Object.entries(byModality).map(([bucket, b]) => ({
  modality: bucket,
  n: b.n,
  em: 100 * (b.scores.em ?? 0),
  f1: 100 * (b.scores.f1 ?? 0),
  'R@8': 100 * (b.retrieval['R@8'] ?? 0),
}));
const notes = s.backend === 'offline' ? [kf.OFFLINE_NOTE] : [];
const table = kf.writeTable(rows, {
  dir: out,
  name: 'summary-by-modality',
  decimals: 1,
  caption: `${PIPELINE} on the demo world (${PRESET}), by evidence modality`,
  notes: notes,
});
kf.kit.showTable(rows, { decimals: 1, notes: notes });
// A bucket figure shows n and a 95% bootstrap interval on every bar (few questions per bucket: the interval says how few).
const bucketSeries = (name: string, valueOf: (r: (typeof run.records)[number]) => number | undefined) => {
  const per = rows.map((row) =>
    run.records
      .filter((r) => (r.buckets?.modality ?? []).includes(row.modality))
      .map(valueOf)
      .filter((v): v is number => typeof v === 'number'),
  );
  const cis = per.map((xs) => (xs.length ? kf.pairedBootstrapCI(xs, { seed: `0/${name}`, resamples: 2000 }) : null));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    name,
    values: per.map((xs) => (xs.length ? 100 * mean(xs) : null)),
    lo: cis.map((c) => (c ? 100 * c[0] : null)),
    hi: cis.map((c) => (c ? 100 * c[1] : null)),
    n: per.map((xs) => (xs.length ? xs.length : null)),
  };
};
const fig = await kf.writeFigure(
  kf.barFigure({
    categories: rows.map((r) => r.modality),
    series: [bucketSeries('F1', (r) => (r.error ? 0 : r.scores.f1)), bucketSeries('R@8', (r) => r.retrieval?.['R@8'])],
    bucket: true,
    title: `${PIPELINE}: F1 and R@8 by modality (n per bucket, 95% bootstrap CI)`,
    xTitle: 'evidence modality',
    yTitle: 'x100',
    note: notes[0],
  }),
  { dir: out, name: 'f1-by-modality' },
);
await kf.kit.showFigure(fig);
kf.writeManifest(out, kf.resultManifest({ config: { preset: PRESET, limit: LIMIT, pipeline: PIPELINE, runId: outcome.runId }, seed: 0, backend: s.backend }), [
  table,
  fig,
]);
console.log(`wrote ${table.csv}, ${table.md}, ${[fig.html, fig.png, fig.svg].filter(Boolean).join(', ')}`);

// %%
await kf.kit.closeFigures();
await kf.closeSharedExporter();
