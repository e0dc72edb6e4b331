/**
 * The entry points of job 1's input side: one file (`ingestFile`, dispatch by
 * extension) or a whole corpus folder (`ingestDirectory`, or the streaming
 * `ingestDirectoryStream`). Each document is isolated: whatever goes wrong in
 * one becomes an issue on its result and the walk goes on. Duplicate files
 * (same sha256) are reported and skipped; links leaving the corpus are refused.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DocumentFormat, IngestResult } from './types';
import type { IngestOptions } from './options';
import { ingestMarkdown } from './markdown';
import { ingestHtml } from './html';
import { ingestPdf } from './pdf';
import { ingestText } from './plaintext';
import { OcrPool } from './ocr';
import { docIdFromRel } from './source';
import { emptyStats } from './result';
import { KfError, errorMessage, isKfError } from '../util/errors';
import { resolveInside } from '../util/paths';
import { sha256 } from '../util/hash';

export { ingestMarkdown, ingestHtml, ingestPdf, ingestText };
export type { IngestOptions };

export const FORMAT_BY_EXTENSION: Record<string, DocumentFormat> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.txt': 'text',
};

export function formatOf(file: string): DocumentFormat | undefined {
  return FORMAT_BY_EXTENSION[path.extname(file).toLowerCase()];
}

function docIdOf(file: string, opts: IngestOptions): string {
  if (opts.docId) return opts.docId;
  const abs = path.resolve(file);
  const root = path.resolve(opts.corpusRoot ?? path.dirname(abs));
  const rel = path.relative(root, abs);
  return docIdFromRel(rel.startsWith('..') || path.isAbsolute(rel) ? path.basename(abs) : rel);
}

function failed(doc: string, code: string, message: string): IngestResult {
  return { fragments: [], issues: [{ doc, severity: 'error', code, message }], stats: emptyStats() };
}

/**
 * Ingest one file by its extension (.md .markdown .html .htm .pdf .txt). Never
 * throws for bad content: the result carries the issue (and no `doc` when nothing
 * could be read). Throws KfError only for an unsupported extension.
 */
export async function ingestFile(file: string, opts: IngestOptions = {}): Promise<IngestResult> {
  const format = formatOf(file);
  const doc = docIdOf(file, opts);
  if (!format) {
    throw new KfError(
      'unsupported_format',
      `${file}: unsupported file type "${path.extname(file) || '(none)'}"`,
      `use one of ${Object.keys(FORMAT_BY_EXTENSION).join(' ')}`,
      { concerns: file },
    );
  }
  try {
    if (format !== 'pdf') {
      // Empty (or whitespace-only) text sources: one clear issue instead of an empty document.
      const bytes = opts.content !== undefined ? Buffer.from(opts.content) : fs.readFileSync(file);
      if (!bytes.toString('latin1').trim()) return failed(doc, 'empty', `${file} is empty: nothing to ingest -- add content or remove the file`);
      opts = { ...opts, content: bytes };
    }
    switch (format) {
      case 'markdown':
        return await ingestMarkdown(file, opts);
      case 'html':
        return await ingestHtml(file, opts);
      case 'text':
        return await ingestText(file, opts);
      case 'pdf':
        return await ingestPdf(file, opts);
    }
  } catch (e) {
    const code = isKfError(e) ? e.code : (e as NodeJS.ErrnoException)?.code === 'ENOENT' ? 'file_missing' : 'ingest_failed';
    return failed(doc, code, `${file}: ${errorMessage(e)}`);
  }
}

export interface DirectoryIngestOptions extends IngestOptions {
  /** Only files whose corpus-relative path passes (e.g. a subset for a quick look). */
  include?: (relPath: string) => boolean;
  /** OCR workers when no ocrPool is given (default 2). */
  ocrWorkers?: number;
}

export interface CorpusFile {
  abs: string;
  rel: string;
}

/**
 * The ingestible files of a corpus folder in a stable (sorted) order. Hidden
 * entries and node_modules are skipped; symbolic links are followed only while
 * they stay inside the corpus (others are returned in `refused`).
 */
export function listCorpusFiles(dir: string): { files: CorpusFile[]; refused: { rel: string; reason: string }[] } {
  const root = path.resolve(dir);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    throw new KfError('corpus_missing', `corpus directory ${root} does not exist or is not a directory`, 'pass the folder holding the documents', {
      concerns: root,
    });
  }
  const files: CorpusFile[] = [];
  const refused: { rel: string; reason: string }[] = [];
  const visit = (abs: string, depth: number) => {
    if (depth > 32) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = path.join(abs, e.name);
      const rel = path.relative(root, p).split(path.sep).join('/');
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          resolveInside(root, rel, 'linked file');
          const st = fs.statSync(p);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch (err) {
          if (formatOf(e.name) || !path.extname(e.name)) refused.push({ rel, reason: errorMessage(err) });
          continue;
        }
      }
      if (isDir) visit(p, depth + 1);
      else if (isFile && formatOf(e.name)) files.push({ abs: p, rel });
    }
  };
  visit(root, 0);
  return { files, refused };
}

/** Ingest a corpus folder, yielding one result per file as soon as it is done. */
export async function* ingestDirectoryStream(dir: string, opts: DirectoryIngestOptions = {}): AsyncGenerator<IngestResult> {
  const root = path.resolve(dir);
  const { files, refused } = listCorpusFiles(root);
  for (const r of refused) yield failed(docIdFromRel(r.rel), 'path_escape', `${r.rel}: ${r.reason}`);
  const pool = opts.ocrPool ?? new OcrPool({ size: opts.ocrWorkers ?? 2, cacheDir: opts.cacheDir });
  const seen = new Map<string, string>();
  try {
    for (const f of files) {
      if (opts.include && !opts.include(f.rel)) continue;
      const docId = docIdFromRel(f.rel);
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(f.abs);
      } catch (e) {
        yield failed(docId, 'file_unreadable', `${f.rel}: cannot read (${(e as NodeJS.ErrnoException).code ?? errorMessage(e)})`);
        continue;
      }
      const hash = sha256(bytes);
      const first = seen.get(hash);
      if (first !== undefined && bytes.length > 0) {
        yield {
          fragments: [],
          issues: [
            { doc: docId, severity: 'warning', code: 'duplicate', message: `${f.rel} has the same content (sha256 ${hash.slice(0, 12)}) as ${first}: skipped` },
          ],
          stats: emptyStats(),
        };
        continue;
      }
      seen.set(hash, f.rel);
      yield await ingestFile(f.abs, { ...opts, corpusRoot: root, docId: undefined, content: bytes, ocrPool: pool });
    }
  } finally {
    if (!opts.ocrPool) await pool.close();
  }
}

export interface DirectoryIngestReport {
  root: string;
  results: IngestResult[];
  /** Documents ingested (a `doc` was produced). */
  documents: number;
  fragments: number;
  errors: number;
  warnings: number;
  duplicates: number;
  ms: number;
}

/** Ingest a whole corpus folder and return every result with a summary. */
export async function ingestDirectory(
  dir: string,
  opts: DirectoryIngestOptions & { onResult?: (r: IngestResult) => void } = {},
): Promise<DirectoryIngestReport> {
  const t0 = Date.now();
  const results: IngestResult[] = [];
  for await (const r of ingestDirectoryStream(dir, opts)) {
    results.push(r);
    opts.onResult?.(r);
  }
  const issues = results.flatMap((r) => r.issues);
  return {
    root: path.resolve(dir),
    results,
    documents: results.filter((r) => r.doc).length,
    fragments: results.reduce((n, r) => n + r.fragments.length, 0),
    errors: issues.filter((i) => i.severity === 'error').length,
    warnings: issues.filter((i) => i.severity === 'warning').length,
    duplicates: issues.filter((i) => i.code === 'duplicate').length,
    ms: Date.now() - t0,
  };
}
