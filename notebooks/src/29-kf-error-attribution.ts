// %% [markdown]
// # 29 · Error attribution (paper Appendix G)
//
// A seeded random sample of failures (F1 < 0.5) of the main run, each with its
// question, gold, prediction, retrieval flags, trace pointer and a **class**.
// The paper's classes (A wrong field, B wrong row/column, C image not read, D
// multi-hop assembly, E granularity, F refusal with gold in text, G other) were
// assigned by an LLM and checked by a second one; here the class is a
// rule-based first pass from the record (retrieval miss, answer not in the
// pool, refusal [F], partial / granularity [E], reading or assembly [A-D]),
// so that the researcher starts from a sorted sample and opens the traces.
//
// The paper's two stages follow: a classifier assigns A-G, a reviewer checks
// it, and their agreement is reported (share and Cohen's kappa). With
// ATTRIBUTION = 'models' both stages are chat calls to the configured judge
// endpoint (KF_BASE_URL...); by default they are the rule-based offline stages,
// labelled as such: their agreement is that of two rule sets, not of models.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const CONFIG = 'M5'; // no stand-in: when M5 cannot run here the notebook says so and skips, never runs S4 under M5's name
const SAMPLE = 20;
const METRIC = 'f1';
const THRESHOLD = 0.5;
const ATTRIBUTION = (process.env.KF_NB_ATTRIBUTION ?? 'rules') as 'rules' | 'models';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const knowforge = kf.method('knowforge'); // KnowForge's notebook kit: its error attribution stages
const nb = kf.notebook.open('29-kf-error-attribution', {
  params: { preset: PRESET, limit: LIMIT, config: CONFIG, sample: SAMPLE, metric: METRIC, threshold: THRESHOLD },
  seed: SEED,
});
const runs = await kf.notebook.runConfigurations(nb, [{ label: CONFIG }], { preset: PRESET, limit: LIMIT });
const run = runs.get(CONFIG);

// %%
const sample = run ? kf.notebook.failureSample(run, { n: SAMPLE, seed: SEED, metric: METRIC, threshold: THRESHOLD }) : [];
nb.table(sample, 'failure-sample', {
  decimals: 1,
  caption: `Seeded sample of ${sample.length} failures (${METRIC} < ${THRESHOLD}) of ${CONFIG}, with a rule-based class`,
});
const counts = kf.notebook.classCounts(sample);
nb.table(counts, 'class-counts', { caption: 'Failures per class in the sample' });
if (counts.length) {
  await nb.figure(
    () =>
      kf.barFigure({
        categories: counts.map((c) => String(c.class)),
        series: [{ name: 'failures in the sample', values: counts.map((c) => c.n as number) }],
        title: `Error attribution: ${CONFIG}, ${sample.length} sampled failures`,
        xTitle: 'class (rule-based)',
        yTitle: 'questions',
      }),
    'classes',
  );
} else nb.skip('class figure', 'no failures in the sample');

// %% [markdown]
// ## Classifier and reviewer stages (Appendix G), with their agreement

// %%
const failed = run ? sample.map((s) => run.records.find((r) => r.id === s.id)!).filter(Boolean) : [];
const router = ATTRIBUTION === 'models' ? kf.createModelRouter({}) : undefined;
const stages = router
  ? { classify: knowforge.modelClassifier(router.forStage('judge')), review: knowforge.modelReviewer(router.forStage('judge')) }
  : { classify: knowforge.ruleClassifier, review: knowforge.ruleReviewer };
const how = router ? 'model stages (judge endpoint)' : 'rule-based (offline) stages';
const attributed = await knowforge.attributeErrors(failed, stages);
await router?.close();
nb.table(
  attributed.map((a) => ({ ...a, classifierName: knowforge.ATTRIBUTION_CLASSES[a.classifier], reviewerName: knowforge.ATTRIBUTION_CLASSES[a.reviewer] })),
  'attribution',
  { caption: `Classes A-G of the sampled failures: classifier, then reviewer (${how})` },
);
const agreement = knowforge.attributionAgreement(attributed);
nb.table([{ stages: how, ...agreement }], 'attribution-agreement', {
  decimals: 2,
  caption: `Agreement of the classifier and the reviewer (${how}): share of equal classes and Cohen's kappa`,
});

// %% [markdown]
// ## The first sampled failure's trace

// %%
const firstId = sample.length ? String(sample[0].id) : undefined;
const rec = run && firstId ? run.records.find((r) => r.id === firstId) : undefined;
if (run && rec)
  nb.table(kf.notebook.traceRows(kf.notebook.readTraceEvents(run, rec)), 'first-failure-trace', { caption: `Trace of ${rec.id}: ${rec.question}` });

// %%
await nb.finish();
