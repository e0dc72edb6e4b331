/**
 * Assembling an IngestResult: the DocumentRecord (id, title, source, hash) and the
 * counters of the build ledger, the same way for every format.
 */
import * as path from 'node:path';
import type { DocumentFormat, Fragment, IngestIssue, IngestResult, PageStatus } from './types';
import type { SourceFile } from './source';

export function emptyStats(): IngestResult['stats'] {
  return { images: 0, tables: 0, ocrPages: 0, chars: 0 };
}

export function finishResult(a: {
  src: SourceFile;
  format: DocumentFormat;
  title?: string;
  fragments: Fragment[];
  issues: IngestIssue[];
  stats: IngestResult['stats'];
  pages?: PageStatus[];
  meta?: Record<string, unknown>;
}): IngestResult {
  const stats = { ...a.stats };
  stats.images = a.fragments.filter((f) => f.kind === 'image').length;
  stats.tables = a.fragments.filter((f) => f.kind === 'table').length;
  stats.chars = a.fragments.reduce((n, f) => n + f.text.length, 0);
  const title = (a.title ?? '').replace(/\s+/g, ' ').trim() || path.posix.basename(a.src.docId);
  const result: IngestResult = {
    doc: {
      id: a.src.docId,
      title: title.length > 300 ? title.slice(0, 297) + '...' : title,
      source: a.src.rel,
      format: a.format,
      sha256: a.src.sha256,
      meta: { bytes: a.src.bytes.length, ...(a.meta ?? {}) },
    },
    fragments: a.fragments,
    issues: a.issues,
    stats,
  };
  if (a.pages) {
    result.pages = a.pages;
    result.doc!.pages = a.pages.length;
  }
  if (!a.fragments.length && !a.issues.some((i) => i.code === 'empty')) {
    a.issues.push({ doc: a.src.docId, severity: 'warning', code: 'no_content', message: `${a.src.rel}: no text, image or table was found in this document` });
  }
  return result;
}
