/**
 * Build the offline index of the MMLongBench-Doc dev PDFs (../shared/bench/
 * mmlongbench-doc/documents, 62 files) and print the Appendix-D-style cost
 * ledger and the page accounting (every page: text layer | OCR | empty | error),
 * plus how many gold evidence pages of the dev questions have indexed content.
 *
 *   node --import tsx scripts/build-mmlongbench.ts [--out DIR] [--embedder fitted|glove|hash] [--limit N] [--ocr auto|off]
 *
 * OCR of the ~450 image-only pages takes ~5 s per page on 2 cores; the OCR cache
 * (<out>/work/ocr) and the per-document checkpoints make a rerun (or a resumed,
 * interrupted run) fast. Run it in the background:
 *   nohup node --import tsx scripts/build-mmlongbench.ts > mmlb-build.log 2>&1 &
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scriptArgs } from '../lib/util/script-args';
import { buildIndex, type EmbedderChoice } from '../lib/index/build';
import { ledgerMarkdown } from '../lib/index/report';
import { openIndex } from '../lib/index/open';
import { loadMmlongbench } from '../lib/bench/mmlongbench';
import { benchDir, repoRoot } from '../lib/util/paths';
import { errorMessage } from '../lib/util/errors';

async function main(): Promise<number> {
  const { values } = scriptArgs(__filename, {
    options: {
      out: { type: 'string', default: path.join(repoRoot(), '.kf-cache', 'index', 'mmlongbench-doc') },
      embedder: { type: 'string', default: 'fitted' },
      limit: { type: 'string' },
      ocr: { type: 'string', default: 'auto' },
      concurrency: { type: 'string', default: '2' },
    },
  });
  const docs = benchDir('mmlongbench-doc', 'documents');
  if (!fs.existsSync(docs)) {
    console.error(`skipped: ${docs} is absent (the MMLongBench-Doc dev PDFs live in ../shared/bench)`);
    return 0;
  }
  const limit = values.limit ? Number(values.limit) : undefined;
  const files = fs
    .readdirSync(docs)
    .filter((f) => f.toLowerCase().endsWith('.pdf'))
    .sort();
  const keep = new Set(limit ? files.slice(0, limit) : files);
  const t0 = Date.now();
  let last = t0;
  const r = await buildIndex({
    corpusDir: docs,
    outDir: values.out!,
    embedder: values.embedder as EmbedderChoice,
    options: {
      benchmark: 'mmlongbench-doc',
      corpusName: 'MMLongBench-Doc (dev, 62 PDFs)',
      include: (rel) => keep.has(rel),
      ingest: { ocr: values.ocr as 'auto' | 'off' },
      concurrency: Number(values.concurrency),
      onProgress: (e) => {
        const now = Date.now();
        if (e.phase === 'document') process.stderr.write(`[${e.done}/${e.total}] ${e.docId} ${e.status} ${e.work} (${((now - last) / 1000).toFixed(1)} s)\n`);
        else if (e.phase !== 'embed' || e.done === 0) process.stderr.write(`${e.phase} (${((now - t0) / 1000).toFixed(0)} s)\n`);
        last = now;
      },
    },
  });
  console.log(`# MMLongBench-Doc index: ${r.outDir} (${r.generation}), ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
  console.log(ledgerMarkdown(r.ledger));
  console.log('## Pages accounted for\n');
  console.log('| document | status | pages | text | ocr | empty | error | fragments (text/image/table/example) |');
  console.log('|---|---|---:|---:|---:|---:|---:|---|');
  let bad = 0;
  for (const d of r.report.documents) {
    const p = d.pages;
    const sum = p ? p.text + p.ocr + p.empty + p.error : 0;
    if (p && sum !== p.total) bad++;
    const f = d.fragments;
    console.log(
      `| ${d.id} | ${d.status}${d.reason ? `: ${d.reason.slice(0, 80)}` : ''} | ${p?.total ?? '-'} | ${p?.text ?? '-'} | ${p?.ocr ?? '-'} | ${p?.empty ?? '-'} | ${p?.error ?? '-'} | ${f.text}/${f.image}/${f.table}/${f.example} |`,
    );
  }
  const s = r.report.summary;
  console.log(
    `| **total** | ok ${s.ok}, error ${s.error} | ${s.pages.total} | ${s.pages.text} | ${s.pages.ocr} | ${s.pages.empty} | ${s.pages.error} | ${s.fragments.text}/${s.fragments.image}/${s.fragments.table}/${s.fragments.example} |`,
  );
  console.log(`\nEvery page accounted for: ${bad === 0 ? 'yes' : `NO (${bad} documents with a gap)`}.`);

  // Gold evidence pages of the dev questions that have indexed content (an upper bound of page-level recall).
  const samples = benchDir('mmlongbench-doc', 'samples.dev.json');
  if (fs.existsSync(samples)) {
    const data = loadMmlongbench({ samples, documents: docs });
    const idx = await openIndex(r.outDir);
    const pagesWith = new Map<string, Set<number>>();
    for (const d of idx.documents()) {
      const set = new Set<number>();
      for (const f of idx.engine.fragmentsOf(d.id)) if (f.page !== undefined) set.add(f.page);
      pagesWith.set(d.id, set);
    }
    let gold = 0;
    let covered = 0;
    for (const q of data.questions) {
      if (!q.doc || !keep.has(`${q.doc}.pdf`)) continue;
      for (const p of q.goldPages ?? []) {
        gold++;
        if (pagesWith.get(q.doc)?.has(p)) covered++;
      }
    }
    console.log(`Gold evidence pages with indexed content: ${covered} / ${gold} (${gold ? ((100 * covered) / gold).toFixed(1) : '-'}%).`);
  }
  console.log(`\nReport: ${path.join(r.outDir, 'build-report.json')}; ledger: ${path.join(r.outDir, 'cost-ledger.md')}`);
  return bad === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`build-mmlongbench: ${errorMessage(e)}`);
    process.exit(1);
  },
);
