// %% [markdown]
// # 45 · Path-decoding case study (paper §4.4 / Figure 6)
//
// DualG-MRAG explains its ranking with decoded paths (Viterbi over the GNN's
// local flows, seed entity -> relation -> ... -> target). This notebook takes
// one multi-hop demo question, searches it with every graph retriever that
// returns paths (DualG's `paths` in RankedEvidence.extra), tables each path step by step with the
// snippet it was read from, and draws the paths as a layered graph. When no
// registered retriever returns paths yet, it says so and draws nothing.

// %% tags=["parameters"]
const PRESET = (process.env.KF_NB_PRESET ?? 'tiny') as 'tiny' | 'default';
const QUESTION_ID = process.env.KF_NB_QUESTION ?? ''; // empty: the first multi-hop question with gold documents
const MAX_PATHS = 5;
const SEED = 0;

// %%
import * as path from 'path';
import * as kf from '../dist/lib/harness';
// DualG's reader of its decoded paths in a search result's method-neutral `extra`.
import { evidencePaths } from '../dist/lib/dualg/paths/evidence-path';
// The plug-ins' retrieval series (DualG's graph retrievers); those that return paths are drawn.
const RETRIEVERS = kf.notebook.notebookSeries('retrieval').map((e) => e.name);
const nb = kf.notebook.open('45-dualg-path-case', {
  params: { preset: PRESET, retrievers: RETRIEVERS, question: QUESTION_ID, maxPaths: MAX_PATHS },
  seed: SEED,
});
const names = kf.notebook.harnessRetrieverNames();
const present = RETRIEVERS.filter((r) => {
  const ok = names.includes(r);
  if (!ok) nb.skip(`retriever ${r}`, 'not registered in this checkout');
  return ok;
});
const world = await kf.ensureDemoWorld({ preset: PRESET });
const bench = kf.loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') });
const q = QUESTION_ID ? bench.questions.find((x) => x.id === QUESTION_ID) : bench.questions.find((x) => (x.hops ?? 1) >= 2 && x.goldDocs.length >= 2);
if (q) console.log(`question ${q.id}: ${q.question}\ngold documents: ${q.goldDocs.join(', ')}`);
else nb.skip('the case study', 'no such question');
const idx =
  present.length && q
    ? await kf.openIndex(
        (await kf.ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: kf.notebook.demoIndexDir(PRESET), embedder: 'fitted' })).dir,
      )
    : undefined;
const systems = idx && q ? await kf.notebook.harnessRetrievals(idx, [q.question], present) : [];

// %%
let drawn = 0;
for (const s of systems) {
  const paths = (q && evidencePaths({ extra: s.extras?.get(q.question) })) || [];
  if (!paths.length) {
    nb.skip(`paths of ${s.system}`, s.note ?? 'the retriever returned no decoded paths for this question');
    continue;
  }
  const steps = paths.slice(0, MAX_PATHS).flatMap((p, i) =>
    p.steps.map((st, j) => ({
      path: i + 1,
      score: Math.round(p.score * 1000) / 1000,
      step: j + 1,
      from: st.from,
      relation: st.relation,
      to: st.to,
      weight: st.weight ?? null,
      doc: st.source?.docId ?? '',
      snippet: (st.source?.snippet ?? '').slice(0, 120),
    })),
  );
  nb.table(steps, `paths-${s.name}`, { caption: `${s.system}: decoded paths for ${q?.id} (gold: ${q?.goldDocs.join(', ')})` });
  await nb.figure(
    () => kf.notebook.pathGraphFigure({ paths: paths, maxPaths: MAX_PATHS, title: `${s.system}: decoded paths for ${q?.id}`, xTitle: 'hop' }),
    `paths-${s.name}`,
  );
  drawn++;
}
const ranked = systems
  .filter((s) => s.ranked.size)
  .map((s) => ({
    retriever: s.system,
    top5: (s.ranked.get(q?.question ?? '') ?? []).slice(0, 5).join(' | '),
    goldInTop5: (s.ranked.get(q?.question ?? '') ?? []).slice(0, 5).filter((d) => q?.goldDocs.includes(d)).length,
  }));
nb.table(ranked, 'ranked-documents', { caption: 'Top-5 documents per graph retriever for the case question' });
console.log(`${drawn} retriever(s) drew paths`);

// %%
await nb.finish();
