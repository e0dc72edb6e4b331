// %% [markdown]
// # 31 · MultiHop-RAG retrieval by question type (paper Table 11)
//
// M5's retrieval side (Locator, bridge judge and its searches; nothing is
// read or answered) on MultiHop-RAG, scored per question and averaged within
// each question type: R@1, R@3, R@8 of the first search and R@all over every
// search. Null questions have no evidence: counted, not scored.
//
// No model is called: the index is built offline and the Locator and judge
// run on the offline backend, so these are offline retrieval numbers,
// labelled as such. It runs when the MultiHop-RAG article corpus is present
// (CORPUS, or corpus.json in the shared benchmark folder) and otherwise says
// what is missing.

// %% tags=["parameters"]
const CORPUS = process.env.KF_NB_CORPUS; // the MultiHop-RAG corpus.json (default: the shared folder's)
const LIMIT = process.env.KF_NB_LIMIT ? Number(process.env.KF_NB_LIMIT) : undefined;
const CONFIG = 'M5';
const SEED = 0;

// %%
import * as kf from '../dist/lib/harness';
const knowforge = kf.method('knowforge'); // KnowForge's notebook kit: M5's retrieval side by question type
const nb = kf.notebook.open('31-kf-multihop-rag-by-type', { params: { corpus: CORPUS ?? null, limit: LIMIT, config: CONFIG }, seed: SEED });
const shared = knowforge.multihopRagShared(CORPUS);
if (!shared.data) nb.skip('Table 11 (retrieval by question type)', shared.missing ?? 'the benchmark could not be loaded');

// %% [markdown]
// ## Retrieval by question type (x100, offline)

// %%
if (shared.data) {
  const r = await knowforge.multihopRagRetrievalByType(shared.data, { config: CONFIG, limit: LIMIT });
  nb.input('index', r.index);
  nb.table(r.rows, 'retrieval-by-type', {
    decimals: 1,
    caption: `${CONFIG} retrieval side on MultiHop-RAG by question type: first-search R@1/3/8 and R@all over every search (offline index and policies)`,
  });
}

// %%
await nb.finish();
