// %% [markdown]
// # 30 · Worked example: one question through S4, P1, P0 and M5 (paper Appendix F)
//
// The paper follows one M3DocVQA question (the answer sits in a results table
// stored as an image) through the one-shot S4, the reader-less P1, the
// single-agent P0 and the full M5. Here: one multi-hop demo question whose
// evidence is in a chart image, chosen by a fixed rule (or by QUESTION_ID),
// with each configuration's answer, score and condensed trace side by side.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const CONFIGS = ['S4', 'P1', 'P0', 'M5'];
const QUESTION_ID = process.env.KF_NB_QUESTION ?? ''; // empty: the first 2-hop image question all runs answered
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('30-kf-worked-example', { params: { preset: PRESET, configs: CONFIGS, question: QUESTION_ID }, seed: SEED });
const runs = await kf.notebook.runConfigurations(
  nb,
  CONFIGS.map((c) => ({ label: c })),
  { preset: PRESET },
);
const all = [...runs.values()];
const candidates = all.length ? all[0].records.filter((r) => all.every((x) => x.records.some((y) => y.id === r.id && !y.error))) : [];
const pick = QUESTION_ID
  ? candidates.find((r) => r.id === QUESTION_ID)
  : ([...candidates]
      .sort((a, b) => a.id.localeCompare(b.id))
      .find((r) => (r.buckets.hops ?? []).some((h) => h !== '1-hop') && (r.buckets.modality ?? []).includes('image')) ??
    [...candidates].sort((a, b) => a.id.localeCompare(b.id))[0]);
if (!pick) nb.skip('the worked example', 'no question answered by every configuration');
else console.log(`question ${pick.id}: ${pick.question}\ngold: ${JSON.stringify(pick.gold)}`);

// %% [markdown]
// ## Answers side by side

// %%
const answers = pick
  ? [...runs].map(([label, run]) => {
      const r = run.records.find((x) => x.id === pick.id)!;
      return {
        config: label,
        final: r.finalAnswer ?? '',
        f1: Math.round(1000 * (r.scores.f1 ?? 0)) / 10,
        searches: r.counters.searches ?? 0,
        reads: r.counters.reads ?? 0,
        modelCalls: r.usage.calls,
        ms: r.timings.totalMs,
      };
    })
  : [];
nb.table(answers, 'answers', { decimals: 1, caption: pick ? `${pick.id}: ${pick.question} (gold ${JSON.stringify(pick.gold)})` : 'no question' });

// %% [markdown]
// ## Traces side by side (searches, tool steps, judge, pool, answer)

// %%
const traces = pick
  ? [...runs].map(([label, run]) => ({
      label: label,
      rows: kf.notebook.traceRows(
        kf.notebook.readTraceEvents(
          run,
          run.records.find((x) => x.id === pick.id)!,
        ),
      ),
    }))
  : [];
const depth = Math.max(0, ...traces.map((t) => t.rows.length));
const side = Array.from({ length: depth }, (_, i) =>
  Object.fromEntries([['step', i + 1], ...traces.map((t) => [t.label, t.rows[i] ? `${t.rows[i].kind}: ${t.rows[i].what}` : ''])]),
);
nb.table(side, 'traces-side-by-side', { caption: 'One row per trace step, one column per configuration' });
for (const t of traces) nb.table(t.rows, `trace-${t.label}`, { caption: `${t.label}: full condensed trace (t = ms after start)`, runs: [t.label] });
if (answers.length) {
  await nb.figure(
    () =>
      kf.barFigure({
        categories: answers.map((a) => a.config),
        series: [
          { name: 'searches', values: answers.map((a) => a.searches) },
          { name: 'reads', values: answers.map((a) => a.reads) },
          { name: 'model calls', values: answers.map((a) => a.modelCalls) },
        ],
        title: `Worked example ${pick?.id}: what each configuration did`,
        xTitle: 'configuration',
        yTitle: 'count',
      }),
    'worked-example',
  );
}

// %%
await nb.finish();
