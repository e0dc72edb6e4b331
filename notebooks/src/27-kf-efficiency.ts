// %% [markdown]
// # 27 · Efficiency: latency per stage, model calls, tokens, time to first event, corpus scale (paper §5.8)
//
// Per configuration, from the run records and traces: whole-question latency
// (p50 / p90), pipeline and search time, model latency per stage (locator,
// judge, reader, vision, synth, checker), model calls and tokens per question,
// and when the first trace event came. Then one retrieval round on the demo
// presets of growing size (the paper: 0.12 s per round at 200K fragments; 42x
// more corpus costs +7% time). On the offline backend model latency is the
// offline policies' own time: the shape (calls per question) transfers, the
// seconds do not.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const CONFIGS = ['S0', 'S4', 'M4', 'M5', 'P0', 'P1'];
// Corpus-scale presets: tiny only on the quick run; default and scale (3,368 documents, a long first build) otherwise.
const SCALE_PRESETS = (process.env.KF_NB_SCALE_PRESETS ?? (PRESET === 'tiny' ? 'tiny' : 'tiny,default,scale')).split(',') as ('tiny' | 'default' | 'scale')[];
const SCALE_QUERIES = 30;
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('27-kf-efficiency', {
  params: { preset: PRESET, limit: LIMIT, configs: CONFIGS, scalePresets: SCALE_PRESETS, scaleQueries: SCALE_QUERIES },
  seed: SEED,
});
const runs = await kf.notebook.runConfigurations(
  nb,
  CONFIGS.map((c) => ({ label: c })),
  { preset: PRESET, limit: LIMIT },
);

// %% [markdown]
// ## Latency per stage, calls, tokens, time to first event

// %%
const lat = kf.notebook.latencyRows(runs);
nb.table(lat.rows, 'latency', {
  decimals: 2,
  caption: 'Per question: p50/p90 seconds, mean pipeline and search ms, model latency per stage (ms), model calls, tokens, p50 ms to the first trace event',
});
await nb.figure(
  () =>
    kf.notebook.stackedBarFigure({
      categories: lat.rows.map((r) => String(r.config)),
      series: [
        { name: 'search', values: lat.rows.map((r) => (r.searchMs as number | null) ?? 0) },
        ...lat.stages.map((st) => ({ name: `model: ${st}`, values: lat.rows.map((r) => (r[`${st} ms`] as number | null) ?? 0) })),
      ],
      title: "Where a question's time goes (mean ms per question)",
      xTitle: 'configuration',
      yTitle: 'ms per question',
    }),
  'latency-by-stage',
);
await nb.figure(
  () =>
    kf.scatterFigure({
      groups: [
        {
          name: 'configurations',
          x: lat.rows.map((r) => r.callsPerQ as number),
          y: lat.rows.map((r) => (r.pipelineMs as number) / 1000),
          labels: lat.rows.map((r) => String(r.config)),
        },
      ],
      showLabels: true,
      title: 'Latency follows model calls',
      xTitle: 'model calls per question',
      yTitle: 'pipeline seconds per question (mean)',
    }),
  'latency-vs-calls',
);

// %% [markdown]
// ## One retrieval round as the corpus grows (no model call)

// %%
const scale: Record<string, unknown>[] = [];
for (const p of SCALE_PRESETS) scale.push(await kf.notebook.corpusScaleLatency(p, { queries: SCALE_QUERIES }));
const paperRound = kf.notebook.paperNumbers({ paper: 'knowforge', benchmark: '200K fragments' });
nb.table(
  [...scale, { preset: 'paper (200K fragments)', fragments: 200000, p50Ms: 120, ...Object.fromEntries(paperRound.map((p) => [p.metric, p.value])) }],
  'corpus-scale',
  {
    decimals: 2,
    caption:
      "One retrieval round (hybrid + graph, top 8) per demo preset: ms per round (query embedding included), mean ms per stage; the paper's round at 200K fragments for reference",
  },
);
await nb.figure(
  () =>
    kf.lineFigure({
      x: scale.map((r) => r.fragments as number),
      series: [
        { name: 'p50 ms per round', values: scale.map((r) => r.p50Ms as number | null) },
        { name: 'p90 ms per round', values: scale.map((r) => r.p90Ms as number | null) },
      ],
      logX: true,
      title: 'Retrieval round latency vs corpus size (demo presets)',
      xTitle: 'fragments (log)',
      yTitle: 'ms per round',
    }),
  'corpus-scale',
  { note: 'retrieval only (no model call); wall-clock on this machine' },
);

// %%
await nb.finish();
