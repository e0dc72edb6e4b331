/**
 * Ingest every MMLongBench-Doc dev PDF (../shared/bench/mmlongbench-doc/documents)
 * and report, per document: pages by source (text/ocr/empty/error), fragments by
 * kind, images, tables, wall and CPU time, and whether every page is accounted
 * for (the page count pdfjs reports == the PageStatus list, each page once).
 *
 *   node --import tsx scripts/verify-pdf-ingest.ts [--only SUBSTR] [--docs DIR]
 *        [--assets DIR] [--cache DIR] [--json FILE] [--ocr-workers N]
 *
 * Defaults keep everything under .kf-cache/ (git-ignored): the OCR cache makes a
 * rerun fast. Exit code 1 when a page is unaccounted for or a document failed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { scriptArgs } from '../lib/util/script-args';
import { ingestFile } from '../lib/corpus/ingest';
import { OcrPool } from '../lib/corpus/ocr';
import { openPdf } from '../lib/corpus/pdfjs';
import { benchDir, repoRoot } from '../lib/util/paths';
import { writeJsonAtomic } from '../lib/util/fsx';
import type { FragmentKind, IngestResult } from '../lib/corpus/types';

interface DocRow {
  file: string;
  pdfPages: number;
  pages: number;
  text: number;
  ocr: number;
  empty: number;
  error: number;
  accounted: boolean;
  fragments: Record<FragmentKind, number>;
  images: number;
  imagesWithMedia: number;
  tables: number;
  issues: { errors: number; warnings: number; codes: string[] };
  wallMs: number;
  cpuMs: number;
}

async function countPages(file: string): Promise<number> {
  try {
    const doc = await openPdf(fs.readFileSync(file), file);
    const n = doc.numPages;
    await doc.destroy();
    return n;
  } catch {
    return -1;
  }
}

function row(file: string, pdfPages: number, r: IngestResult, wallMs: number, cpuMs: number): DocRow {
  const pages = r.pages ?? [];
  const by = (s: string) => pages.filter((p) => p.source === s).length;
  const seen = new Set(pages.map((p) => p.page));
  const accounted = pdfPages > 0 && pages.length === pdfPages && seen.size === pdfPages && [...seen].every((p) => p >= 1 && p <= pdfPages);
  const frag: Record<FragmentKind, number> = { text: 0, image: 0, table: 0, example: 0 };
  for (const f of r.fragments) frag[f.kind]++;
  return {
    file,
    pdfPages,
    pages: pages.length,
    text: by('text'),
    ocr: by('ocr'),
    empty: by('empty'),
    error: by('error'),
    accounted,
    fragments: frag,
    images: frag.image,
    imagesWithMedia: r.fragments.filter((f) => f.kind === 'image' && f.media).length,
    tables: frag.table,
    issues: {
      errors: r.issues.filter((i) => i.severity === 'error').length,
      warnings: r.issues.filter((i) => i.severity === 'warning').length,
      codes: [...new Set(r.issues.map((i) => i.code))],
    },
    wallMs,
    cpuMs,
  };
}

async function main(): Promise<number> {
  const { values } = scriptArgs(__filename, {
    options: {
      docs: { type: 'string' },
      assets: { type: 'string' },
      cache: { type: 'string' },
      only: { type: 'string' },
      json: { type: 'string' },
      'ocr-workers': { type: 'string' },
    },
  });
  const docsDir = values.docs ?? benchDir('mmlongbench-doc', 'documents');
  if (!fs.existsSync(docsDir)) {
    console.error(`verify-pdf-ingest: ${docsDir} not found -- the benchmark PDFs live in ../shared/bench (set KF_SHARED or pass --docs)`);
    return 2;
  }
  const work = path.join(repoRoot(), '.kf-cache', 'verify-pdf');
  const assetsDir = values.assets ?? path.join(work, 'assets');
  const cacheDir = values.cache ?? path.join(repoRoot(), '.kf-cache', 'ocr');
  const files = fs
    .readdirSync(docsDir)
    .filter((f) => f.toLowerCase().endsWith('.pdf'))
    .filter((f) => !values.only || f.includes(values.only))
    .sort();
  const pool = new OcrPool({ size: Number(values['ocr-workers'] ?? 2), cacheDir });
  const rows: DocRow[] = [];
  const t0 = Date.now();
  const cpu0 = process.cpuUsage();
  const header = 'document'.padEnd(58) + ' pages  text   ocr empty   err |  frags   text  image  table  ex | media tbls |   wall s  ms/page ok';
  console.log(header);
  try {
    for (const [i, f] of files.entries()) {
      const file = path.join(docsDir, f);
      const pdfPages = await countPages(file);
      const w0 = Date.now();
      const c0 = process.cpuUsage();
      let lastLog = Date.now();
      const r = await ingestFile(file, {
        corpusRoot: docsDir,
        assetsDir,
        cacheDir,
        ocrPool: pool,
        onPage: (p) => {
          if (Date.now() - lastLog > 15000) {
            lastLog = Date.now();
            process.stderr.write(`  [${i + 1}/${files.length}] ${f} page ${p.page}/${p.pages}\n`);
          }
        },
      });
      const c = process.cpuUsage(c0);
      const d = row(f, pdfPages, r, Date.now() - w0, (c.user + c.system) / 1000);
      rows.push(d);
      const fr = d.fragments;
      console.log(
        `${f.slice(0, 58).padEnd(58)} ${String(d.pages).padStart(5)} ${String(d.text).padStart(5)} ${String(d.ocr).padStart(5)} ${String(d.empty).padStart(5)} ${String(d.error).padStart(5)} | ` +
          `${String(r.fragments.length).padStart(6)} ${String(fr.text).padStart(6)} ${String(fr.image).padStart(6)} ${String(fr.table).padStart(6)} ${String(fr.example).padStart(3)} | ` +
          `${String(d.imagesWithMedia).padStart(5)} ${String(d.tables).padStart(4)} | ${(d.wallMs / 1000).toFixed(1).padStart(8)} ${(d.wallMs / Math.max(1, d.pages)).toFixed(0).padStart(8)} ${d.accounted ? 'yes' : 'NO'}` +
          (d.issues.errors ? `  errors: ${d.issues.codes.join(',')}` : ''),
      );
    }
  } finally {
    await pool.close();
  }
  const cpu = process.cpuUsage(cpu0);
  const sum = (k: keyof DocRow) => rows.reduce((n, r) => n + (r[k] as number), 0);
  const textOnly = rows.filter((r) => r.ocr === 0 && r.pages > 0);
  const textOnlyPages = textOnly.reduce((n, r) => n + r.pages, 0);
  const frags = rows.reduce(
    (acc, r) => {
      for (const k of Object.keys(r.fragments) as FragmentKind[]) acc[k] = (acc[k] ?? 0) + r.fragments[k];
      return acc;
    },
    {} as Record<string, number>,
  );
  const summary = {
    documents: rows.length,
    pdfPages: sum('pdfPages'),
    pages: { total: sum('pages'), text: sum('text'), ocr: sum('ocr'), empty: sum('empty'), error: sum('error') },
    everyPageAccounted: rows.every((r) => r.accounted),
    unaccounted: rows.filter((r) => !r.accounted).map((r) => r.file),
    failedDocuments: rows.filter((r) => r.pages === 0).map((r) => r.file),
    fragments: frags,
    imagesWithMedia: sum('imagesWithMedia'),
    tables: sum('tables'),
    wallSeconds: (Date.now() - t0) / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    textPdfMsPerPage: {
      wall: textOnlyPages ? textOnly.reduce((n, r) => n + r.wallMs, 0) / textOnlyPages : 0,
      cpu: textOnlyPages ? textOnly.reduce((n, r) => n + r.cpuMs, 0) / textOnlyPages : 0,
      documents: textOnly.length,
      pages: textOnlyPages,
    },
    ocr: {
      recognised: pool.stats.recognised,
      cacheHits: pool.stats.cacheHits,
      tesseractSeconds: pool.stats.ms / 1000,
      secondsPerPage: pool.stats.recognised ? pool.stats.ms / 1000 / pool.stats.recognised : 0,
      workers: pool.size,
    },
    rows,
  };
  console.log('\nSUMMARY ' + JSON.stringify({ ...summary, rows: undefined }, null, 2));
  writeJsonAtomic(values.json ?? path.join(work, 'summary.json'), summary);
  return summary.everyPageAccounted && !summary.failedDocuments.length ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
