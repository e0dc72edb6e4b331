/**
 * MMLongBench-Doc, model-free: is an evidence page found over EVERY search of
 * an agent configuration (Locator + bridge judge, offline policies) more often
 * than in the one-shot S4 search (first search, top 8)? Page-level, per
 * evidence-source bucket (Text / Table / Chart / Figure / Layout).
 *
 *   node --import tsx lib/knowforge/scripts/mmlb-retrieval.ts --index <mmlongbench index> [--config M5]
 *
 * The index: `kf eval retrieval --bench mmlongbench-doc --ocr off --offline --index <dir>` (or
 * scripts/build-mmlongbench.ts). Questions about a document the index lacks (no text layer
 * without OCR) are left out and counted.
 */
import { scriptArgs } from '../../util/script-args';
import type { BenchmarkData } from '../../bench/types';
import { openIndex } from '../../index/open';
import { configRetrieval } from '../../run/pipeline-retrieval';
import { engineKnowledgeBase } from '../../pipeline/index-view';
import { loadBench } from '../../bench/registry';
import { evaluateRetrieval } from '../../run/retrieval-eval';

const { values } = scriptArgs(__filename, { options: { index: { type: 'string' }, config: { type: 'string', default: 'M5' } } });

type Row = { n: number; first8: number; firstAll8: number; all: number; allFound: number };

(async () => {
  if (!values.index) throw new Error('pass --index <dir of an MMLongBench-Doc index>');
  const idx = await openIndex(values.index);
  const docs = new Set(idx.documents().map((d) => d.id));
  const full = loadBench('mmlongbench-doc');
  const data: BenchmarkData = { ...full, questions: full.questions.filter((q) => q.doc && docs.has(q.doc)) };
  const kb = engineKnowledgeBase(idx, { forced: { withContext: false } });
  const one = await evaluateRetrieval((q, k) => kb.restrictedTo(q.doc ? [q.doc] : undefined).search(q.question, { k, mode: 'hybrid+graph' }), data, {
    mode: 'hybrid+graph',
    ks: [8],
  });
  const side = await configRetrieval(values.config!, idx, data, { ks: [8] });
  const byId = new Map(side.records.map((r) => [r.id, r]));
  const buckets: Record<string, Row> = {};
  for (const r of one.records) {
    const s = byId.get(r.id)?.scores;
    if (!r.scores || !s) continue;
    const q = data.questions.find((x) => x.id === r.id)!;
    for (const b of ['All', ...((q.meta as { evidenceSources?: string[] }).evidenceSources ?? [])]) {
      const x = (buckets[b] ??= { n: 0, first8: 0, firstAll8: 0, all: 0, allFound: 0 });
      x.n++;
      x.first8 += r.scores['R@8'];
      x.firstAll8 += r.scores['allFound@8'];
      x.all += s['R@all'];
      x.allFound += s.docFound;
    }
  }
  const pct = (v: number, n: number) => (n ? ((100 * v) / n).toFixed(1) : '-');
  console.log(`questions ${full.questions.length}; about an indexed document ${data.questions.length}; with gold pages ${one.summary.n}`);
  console.log(
    `| evidence source | n | S4 page R@8 (first search) | S4 all pages in top 8 | ${values.config} page R@all (every search) | ${values.config} all pages found |`,
  );
  console.log('|---|--:|--:|--:|--:|--:|');
  for (const [k, x] of Object.entries(buckets).sort((a, b) => b[1].n - a[1].n)) {
    console.log(`| ${k} | ${x.n} | ${pct(x.first8, x.n)} | ${pct(x.firstAll8, x.n)} | ${pct(x.all, x.n)} | ${pct(x.allFound, x.n)} |`);
  }
})();
