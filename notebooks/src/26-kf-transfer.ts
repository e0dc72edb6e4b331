// %% [markdown]
// # 26 · Transfer: MultiHop-RAG and MMLongBench-Doc with buckets (paper §5.1, Appendix E Tables 10-11)
//
// What can run here: MultiHop-RAG's 500 queries come WITHOUT their 609-article
// corpus (../shared/bench/multihop-rag), so only closed-book S0 answers them
// (official accuracy, refusals mapped to "Insufficient information"), by
// question type. MMLongBench-Doc has its 62 PDFs: closed-book S0 on its
// questions always; the retrieval configurations (S4, M5, P1) need its index
// (OCR of every page, long): set RUN_MMLB_INDEX to build it and run them.
// Published accuracies are the reference series.

// %% tags=["parameters"]
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : (process.env.KF_NB_PRESET ?? 'tiny') === 'tiny' ? 40 : undefined;
const RUN_MMLB_INDEX = process.env.KF_NB_MMLB_INDEX === '1';
const SEED = 0;

// %%
import * as fs from 'fs';
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('26-kf-transfer', { params: { limit: LIMIT, runMmlbIndex: RUN_MMLB_INDEX }, seed: SEED });
const has = (p: string) => fs.existsSync(kf.benchDir(p));

// %% [markdown]
// ## MultiHop-RAG (closed book only: no corpus here)

// %%
const mhr = has('multihop-rag')
  ? await kf.notebook.runConfigurations(nb, [{ label: 'MultiHop-RAG S0', config: { benchmark: { name: 'multihop-rag' }, pipeline: { name: 'S0' } } }], {
      limit: LIMIT,
    })
  : new Map();
if (!has('multihop-rag')) nb.skip('MultiHop-RAG', `no data under ${kf.benchDir('multihop-rag')}`);
if (mhr.size) {
  nb.table(kf.notebook.summaryRows(mhr, { metrics: ['acc'] }), 'multihop-rag-summary', {
    decimals: 1,
    caption: 'MultiHop-RAG, closed book (official accuracy x100)',
  });
  const byType = kf.summarizeByBucket([...mhr.values()][0], 'type');
  const types = Object.keys(byType).sort();
  nb.table(
    types.map((t) => ({ type: t, n: byType[t].n, acc: Math.round(1000 * (byType[t].scores.acc ?? 0)) / 10 })),
    'multihop-rag-by-type',
    { decimals: 1, caption: 'MultiHop-RAG S0 accuracy by question type (x100)', runs: mhr },
  );
  const pub = kf.notebook.paperNumbers({ paper: 'knowforge', benchmark: 'multihop-rag', metric: 'acc' });
  await nb.figure(
    () =>
      kf.barFigure({
        categories: [...types.map((t) => `S0 ${t}`), ...pub.map((p) => p.system)],
        // Closed book here vs the papers' full pipelines: the same benchmark, another protocol, so another plot.
        benchmark: 'multihop-rag',
        protocol: 'closed book',
        series: [
          { name: 'accuracy (this run)', values: [...types.map((t) => Math.round(1000 * (byType[t].scores.acc ?? 0)) / 10), ...pub.map(() => null)] },
          {
            name: 'accuracy published',
            values: [...types.map(() => null), ...pub.map((p) => p.value)],
            published: { benchmark: 'multihop-rag', protocol: 'full pipeline, 2,556 questions' },
          },
        ],
        title: 'MultiHop-RAG: closed book here by type, published systems (full pipeline, 2,556 questions)',
        xTitle: 'system / bucket',
        yTitle: 'accuracy x100',
      }),
    'multihop-rag',
    { runs: mhr },
  );
}

// %% [markdown]
// ## MMLongBench-Doc (closed book; with the index when RUN_MMLB_INDEX)

// %%
const mmlbConfigs = [
  { label: 'MMLongBench S0', config: { benchmark: { name: 'mmlongbench-doc' }, pipeline: { name: 'S0' } } },
  ...(RUN_MMLB_INDEX
    ? ['S4', 'M5', 'P1'].map((p) => ({
        label: `MMLongBench ${p}`,
        config: { benchmark: { name: 'mmlongbench-doc' }, pipeline: { name: p }, index: { build: 'ensure' } },
      }))
    : []),
];
if (!RUN_MMLB_INDEX) nb.skip('MMLongBench-Doc S4 / M5 / P1', 'its index (OCR of 62 PDFs) is not built on this run: set KF_NB_MMLB_INDEX=1');
const mmlb = has('mmlongbench-doc') ? await kf.notebook.runConfigurations(nb, mmlbConfigs, { limit: LIMIT }) : new Map();
if (!has('mmlongbench-doc')) nb.skip('MMLongBench-Doc', `no data under ${kf.benchDir('mmlongbench-doc')}`);
if (mmlb.size) {
  nb.table(kf.notebook.summaryRows(mmlb, { metrics: ['acc', 'f1'] }), 'mmlongbench-summary', { decimals: 1, caption: 'MMLongBench-Doc (x100)' });
  const rows: Record<string, string | number | null>[] = [];
  for (const field of ['page', 'format', 'source']) {
    for (const [label, run] of mmlb) {
      const b = kf.summarizeByBucket(run, field);
      for (const k of Object.keys(b).sort())
        rows.push({ config: label, field: field, bucket: k, n: b[k].n, acc: Math.round(1000 * (b[k].scores.acc ?? 0)) / 10 });
    }
  }
  nb.table(rows, 'mmlongbench-by-bucket', {
    decimals: 1,
    caption: 'MMLongBench-Doc accuracy by page span, answer format and evidence source (a question counts in each of its buckets)',
    runs: mmlb,
  });
  const src = rows.filter((r) => r.field === 'source');
  const pub = kf.notebook.paperNumbers({ paper: 'knowforge', benchmark: 'mmlongbench-doc', metric: 'acc' });
  await nb.figure(
    () =>
      kf.barFigure({
        categories: [...src.map((r) => `${r.config}: ${r.bucket}`), ...pub.map((p) => p.system)],
        benchmark: 'mmlongbench-doc',
        protocol: 'this run',
        series: [
          { name: 'accuracy (this run)', values: [...src.map((r) => r.acc as number), ...pub.map(() => null)] },
          {
            name: 'accuracy published',
            values: [...src.map(() => null), ...pub.map((p) => p.value)],
            published: { benchmark: 'mmlongbench-doc', protocol: 'full set' },
          },
        ],
        title: 'MMLongBench-Doc by evidence source, with published accuracies',
        xTitle: 'configuration: bucket',
        yTitle: 'accuracy x100',
      }),
    'mmlongbench-by-source',
    { runs: mmlb },
  );
}

// %%
await nb.finish();
