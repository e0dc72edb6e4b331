// %% [markdown]
// # 28 · Index construction cost (paper Appendix D, Table 9)
//
// The one-time cost of building the knowledge-point index, from each index's
// cost ledger: documents, Markdown characters, images, OCR pages, embeddings,
// tokens for pre-processing and extraction (text / multimodal), wall clock.
// The demo index of the chosen preset is built when missing; other indexes on
// this machine (benchmark indexes built by `kf eval retrieval`, notebook 50)
// are listed when present. Built offline, token counts are the offline
// policies' estimates, not model usage.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const LIST_OTHER_INDEXES = process.env.KF_HEADLESS !== '1'; // machine-dependent, so off in headless runs
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
const nb = kf.notebook.open('28-kf-index-cost', { params: { preset: PRESET, listOtherIndexes: LIST_OTHER_INDEXES }, seed: SEED });
const world = await kf.ensureDemoWorld({ preset: PRESET });
const ensured = await kf.ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: kf.notebook.demoIndexDir(PRESET), embedder: 'fitted' });
nb.input('index', ensured.dir);
const mine = kf.notebook.indexCostRow(ensured.dir, `demo ${PRESET}`);
const others = LIST_OTHER_INDEXES
  ? kf.notebook
      .knownIndexDirs()
      .filter((d) => d.dir !== ensured.dir)
      .map((d) => kf.notebook.indexCostRow(d.dir, d.label))
      .filter((r) => r !== null)
  : [];

// %%
const paperRows = kf.notebook.PAPER_INDEX_COST.map((r) => ({ ...r, backend: 'models of the paper (usage ledger)' }));
const rows: Record<string, unknown>[] = [...(mine ? [mine] : []), ...others, ...paperRows];
nb.table(rows, 'index-cost', { decimals: 0, caption: "Index construction cost: this harness's indexes (offline estimates) and the paper's Appendix D" });
const tokensPerChar = rows
  .filter((r) => 'markdownChars' in r && (r as { markdownChars: number }).markdownChars > 0)
  .map((r) => ({
    corpus: r.corpus,
    tokensPerMarkdownChar: Math.round((100 * (r as { totalTokens: number }).totalTokens) / (r as { markdownChars: number }).markdownChars) / 100,
  }));
nb.table([...tokensPerChar, { corpus: 'paper: M3DocVQA / MMLongBench-Doc / MultiHop-RAG', tokensPerMarkdownChar: '2.4 / 1.7 / 0.6' }], 'tokens-per-char', {
  caption: 'Tokens per Markdown character (the paper: PDF corpora with figures cost 3-4x clean text)',
});

// %%
const here = rows.filter((r) => r.source === 'this harness');
await nb.figure(
  () =>
    kf.barFigure({
      categories: here.map((r) => String(r.corpus)),
      series: [
        {
          name: 'extraction tokens, text (thousands)',
          values: here.map((r) => Math.round(((r as { extractionTokensText: number }).extractionTokensText ?? 0) / 100) / 10),
        },
        { name: 'embeddings (hundreds)', values: here.map((r) => Math.round(((r as { embeddings: number }).embeddings ?? 0) / 10) / 10) },
        { name: 'wall clock (s)', values: here.map((r) => (r as { wallSeconds: number }).wallSeconds ?? null) },
      ],
      title: 'Index construction cost of the indexes built here',
      xTitle: 'index',
      yTitle: 'amount (units in the legend)',
    }),
  'index-cost',
  { note: 'built offline: token counts are estimates, not model usage' },
);

// %%
await nb.finish();
