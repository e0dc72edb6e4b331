/**
 * `kf ingest <file|dir>`: run job 1's input side on a file or a corpus folder and
 * show what came out (a debugging aid): a per-document report (pages by source,
 * fragments by kind, issues), optionally the fragments, optionally written to
 * --out as JSONL with the extracted assets.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, int, isPositiveInt, str } from '../command';
import { KfError } from '../../util/errors';
import { ensureWritableDir, JsonlWriter, writeJsonAtomic } from '../../util/fsx';
import { stateDir } from '../../util/paths';
import { formatOf, ingestDirectoryStream, ingestFile, listCorpusFiles, FORMAT_BY_EXTENSION } from '../../corpus/ingest';
import { describeFragments } from '../../corpus/describe';
import { OcrPool } from '../../corpus/ocr';
import type { Fragment, IngestResult } from '../../corpus/types';

function docReport(r: IngestResult, ms: number) {
  const kinds: Record<string, number> = { text: 0, image: 0, table: 0, example: 0 };
  for (const f of r.fragments) kinds[f.kind]++;
  const pages: Record<string, number> = {};
  for (const p of r.pages ?? []) pages[p.source] = (pages[p.source] ?? 0) + 1;
  return {
    doc: r.doc?.id ?? r.issues[0]?.doc,
    title: r.doc?.title,
    format: r.doc?.format,
    pages: r.doc?.pages,
    pagesBySource: r.pages ? pages : undefined,
    fragments: r.fragments.length,
    kinds,
    stats: r.stats,
    ms,
    issues: r.issues,
  };
}

function preview(f: Fragment): string {
  const where = [f.page ? `p${f.page}` : '', f.section.length ? `§ ${f.section.join(' > ')}` : ''].filter(Boolean).join(' ');
  const extra = [
    f.label,
    f.media ? `media=${f.media.path}` : '',
    f.anchor ? `anchor=${f.anchor}` : '',
    f.attached.length ? `attached=${f.attached.join(',')}` : '',
    f.table?.truncated ? `rows=${f.table.rowCount} (truncated)` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const text = f.text.replace(/\s+/g, ' ').slice(0, 160);
  return `  ${f.id} [${f.kind}] ${where}${extra ? ` ${extra}` : ''}\n      ${text}${f.text.length > 160 ? '...' : ''}`;
}

export const command: CommandSpec = {
  name: 'ingest',
  group: 'index',
  summary: 'Ingest a Markdown/HTML/PDF/text file or a corpus folder into typed fragments and report per document',
  positionals: [{ name: 'path', description: `a file (${Object.keys(FORMAT_BY_EXTENSION).join(' ')}) or a corpus folder`, required: true }],
  options: {
    out: { type: 'string', description: 'write fragments.jsonl, documents.jsonl, report.json and assets/ into this folder' },
    json: { type: 'boolean', description: 'print one JSON report per document (JSON lines) instead of text' },
    fragments: { type: 'boolean', description: 'also print the fragments (previews; with --json the full objects)' },
    cache: { type: 'string', description: 'OCR cache folder (default .kf-cache/ocr in the project)' },
    ocr: { type: 'string', description: 'OCR for PDF pages without a text layer', choices: ['auto', 'off'], default: 'auto' },
    describe: { type: 'boolean', description: 'add offline descriptions to image/table fragments (caption + OCR of the image + table summary)' },
    'max-table-rows': { type: 'string', description: 'rows kept per table before truncation', validate: isPositiveInt },
  },
  examples: ['kf ingest data/demo/corpus --out /tmp/ingest', 'kf ingest paper.pdf --fragments', 'kf ingest report.html --json'],
  async run(args) {
    const target = path.resolve(args.positionals[0]);
    if (!fs.existsSync(target)) throw new KfError('path_missing', `${target} does not exist`, 'pass a file or a corpus folder', { concerns: target });
    const isDir = fs.statSync(target).isDirectory();
    if (!isDir && !formatOf(target)) {
      throw new KfError('unsupported_format', `${target}: unsupported file type`, `use one of ${Object.keys(FORMAT_BY_EXTENSION).join(' ')}`, {
        concerns: target,
      });
    }
    if (isDir && !listCorpusFiles(target).files.length) {
      throw new KfError(
        'corpus_empty',
        `${target} holds no document (${Object.keys(FORMAT_BY_EXTENSION).join(' ')}; subfolders included, hidden files skipped)`,
        'check the path, or pass a single file',
        { concerns: target },
      );
    }
    const out = str(args, 'out') ? ensureWritableDir(str(args, 'out')!, '--out folder') : undefined;
    const assetsDir = out ? path.join(out, 'assets') : fs.mkdtempSync(path.join(os.tmpdir(), 'kf-ingest-assets-'));
    const cacheDir = str(args, 'cache') ?? stateDir('ocr');
    const json = bool(args, 'json');
    const showFrags = bool(args, 'fragments');
    const pool = new OcrPool({ cacheDir });
    const opts = { assetsDir, cacheDir, ocr: (str(args, 'ocr') ?? 'auto') as 'auto' | 'off', ocrPool: pool, maxTableRows: int(args, 'max-table-rows') };
    const fragOut = out ? new JsonlWriter(path.join(out, 'fragments.jsonl')) : undefined;
    const docOut = out ? new JsonlWriter(path.join(out, 'documents.jsonl')) : undefined;
    const reports: ReturnType<typeof docReport>[] = [];
    let errors = 0;
    const handle = async (r: IngestResult, ms: number) => {
      if (bool(args, 'describe') && r.fragments.length) {
        r.fragments = (await describeFragments(r.fragments, { assetsDir, corpusRoot: isDir ? target : path.dirname(target), ocr: pool })).fragments;
      }
      const rep = docReport(r, ms);
      reports.push(rep);
      errors += r.issues.filter((i) => i.severity === 'error').length;
      if (r.doc) docOut?.write(r.doc);
      for (const f of r.fragments) fragOut?.write(f);
      if (json) console.log(JSON.stringify(showFrags ? { ...rep, fragmentList: r.fragments } : rep));
      else {
        const pages = rep.pagesBySource
          ? ` pages ${Object.entries(rep.pagesBySource)
              .map(([k, v]) => `${k}=${v}`)
              .join(' ')}`
          : '';
        console.log(
          `${rep.doc} (${rep.format ?? 'failed'})${pages}: ${rep.fragments} fragments (${Object.entries(rep.kinds)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')}) in ${ms} ms`,
        );
        for (const i of r.issues) console.log(`  ${i.severity}: [${i.code}] ${i.message}`);
        if (showFrags) for (const f of r.fragments) console.log(preview(f));
      }
    };
    try {
      if (isDir) {
        let t = Date.now();
        for await (const r of ingestDirectoryStream(target, opts)) {
          await handle(r, Date.now() - t);
          t = Date.now();
        }
      } else {
        const t = Date.now();
        await handle(await ingestFile(target, opts), Date.now() - t);
      }
    } finally {
      fragOut?.close();
      docOut?.close();
      await pool.close();
    }
    if (out) writeJsonAtomic(path.join(out, 'report.json'), { target, assetsDir, documents: reports });
    if (!json) {
      console.log(
        `${reports.length} file(s), ${reports.reduce((n, r) => n + r.fragments, 0)} fragments, ${errors} error(s); assets in ${assetsDir}${out ? `; output in ${out}` : ''}`,
      );
      if (pool.stats.recognised || pool.stats.cacheHits)
        console.log(
          `OCR: ${pool.stats.recognised} image(s) recognised (${(pool.stats.ms / 1000).toFixed(1)} s in tesseract), ${pool.stats.cacheHits} from the cache ${cacheDir}`,
        );
    }
    return errors && reports.every((r) => !r.title) ? 1 : 0;
  },
};
