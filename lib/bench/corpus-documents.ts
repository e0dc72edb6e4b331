/**
 * The documents of a corpus folder, by id: each Markdown / HTML / PDF / text file
 * is one document named by its path without extension (as lib/corpus names them);
 * media under it (assets/*.png) belong to documents and are not documents.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export const DOCUMENT_FILE = /\.(md|markdown|html?|pdf|txt)$/i;

export function listDocIds(dir: string): Set<string> {
  return new Set(listDocFiles(dir).keys());
}

/** Document id -> its file (relative to the folder, '/'-separated): the id with its extension. */
export function listDocFiles(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (DOCUMENT_FILE.test(e.name)) {
        const rel = path.relative(dir, p).split(path.sep).join('/');
        out.set(rel.replace(/\.[^./]+$/, ''), rel);
      }
    }
  };
  walk(dir);
  return out;
}
