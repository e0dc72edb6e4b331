// %% [markdown]
// # 25 · Model axis: two endpoints, or one stage overridden (paper §5.6-5.7, Table 6 Flash rows)
//
// The same configuration answered by two model set-ups, A and B, compared per
// question. A set-up is a list of config overrides on the `models` block: a
// whole endpoint (`models.defaults.baseUrl=...`, `models.defaults.model=...`)
// or one stage (`models.stages.synth.model=...`; stages: locator, judge,
// reader, vision, synth, checker, ...). Every override inherits the rest of its
// endpoint (base URL, key, request extras, timeout).
//
// **By default both A and B are the offline backend** (no endpoint is
// reachable in CI): the comparison then shows the machinery only, every
// question ties, and nothing here is a model result. Set KF_NB_MODEL_A /
// KF_NB_MODEL_B (and KF_NB_BASE_URL_A / _B) before starting Jupyter, or edit
// the parameters, to compare real models.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const PIPELINE = 'M5';
const endpoint = (model?: string, baseUrl?: string) =>
  model ? [`models.defaults.model=${model}`, ...(baseUrl ? [`models.defaults.baseUrl=${baseUrl}`] : [])] : ['models.defaults.backend=offline'];
const SETUP_A = endpoint(process.env.KF_NB_MODEL_A, process.env.KF_NB_BASE_URL_A);
const SETUP_B = process.env.KF_NB_STAGE_B
  ? [`models.stages.${process.env.KF_NB_STAGE_B}.model=${process.env.KF_NB_MODEL_B ?? ''}`]
  : endpoint(process.env.KF_NB_MODEL_B, process.env.KF_NB_BASE_URL_B);
const METRIC = 'f1';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('25-kf-model-axis', {
  params: { preset: PRESET, limit: LIMIT, pipeline: PIPELINE, setupA: SETUP_A, setupB: SETUP_B, metric: METRIC },
  seed: SEED,
});
const bothOffline = SETUP_A.includes('models.defaults.backend=offline') && SETUP_B.includes('models.defaults.backend=offline');
if (bothOffline)
  nb.say('**Both set-ups are the offline backend (the default):** the two runs are the same run; this shows the machinery, not a model comparison.');
const runs = await kf.notebook.runConfigurations(
  nb,
  [
    // No stand-in configuration: a set-up whose PIPELINE cannot run here is skipped with its reason, never run as S4 under PIPELINE's name.
    { label: 'A', pipeline: PIPELINE, overrides: SETUP_A },
    { label: 'B', pipeline: PIPELINE, overrides: SETUP_B },
  ],
  { preset: PRESET, limit: LIMIT },
);

// %%
const summary = kf.notebook.summaryRows(runs);
nb.table(
  summary.map((r) => ({ ...r, models: nb.runList.find((x) => x.runId === r.run)?.models.join(', ') ?? '' })),
  'summary',
  { decimals: 1, caption: `${PIPELINE} under set-ups A and B${bothOffline ? ' (both offline: machinery only)' : ''}` },
);
const paired = kf.notebook.pairedRows(runs, [['B', 'A']], { metric: METRIC, seed: SEED });
nb.table(paired, 'paired-B-vs-A', { decimals: 1, caption: `${METRIC} (x100): B vs A, flips, exact sign test, 95% paired bootstrap CI` });
const pub = kf.notebook.paperNumbers({ paper: 'knowforge', benchmark: 'm3docvqa', metric: METRIC, system: 'M5' });
await nb.figure(
  () =>
    kf.barFigure({
      categories: [...summary.map((r) => `set-up ${r.config}`), ...pub.map((p) => `M5 (${p.model})`)],
      // Ours (the demo world) and the paper's (M3DocVQA) in separate plots: never one axis.
      benchmark: 'demo',
      series: [
        { name: `${METRIC} (this run)`, values: [...summary.map((r) => (r[METRIC] as number | null) ?? null), ...pub.map(() => null)] },
        { name: `${METRIC} published (KnowForge)`, values: [...summary.map(() => null), ...pub.map((p) => p.value)], published: { benchmark: 'm3docvqa' } },
      ],
      title: `Model axis: ${PIPELINE} ${METRIC} by set-up, with the published M5 by model`,
      xTitle: 'set-up',
      yTitle: `${METRIC} x100`,
    }),
  'model-axis',
);

// %%
await nb.finish();
