/**
 * Decoded paths as prompt text (paper 4.4 / spec step 7): one line per path,
 * step by step `entity -relation-> entity`, each step followed by the snippet of
 * the passage it was read from when the caller can look the text up.
 */
import type { EvidencePath } from './evidence-path';

export interface SerializeOptions {
  maxPaths?: number;
  /** Passage text by document id (e.g. from the knowledge base). */
  docText?: (docId: string) => string | undefined;
  /** Snippet length in characters (default 200). */
  snippetChars?: number;
}

export function serializePaths(paths: readonly EvidencePath[], opts: SerializeOptions = {}): string {
  const lines: string[] = [];
  paths.slice(0, opts.maxPaths ?? 3).forEach((p, i) => {
    lines.push(`Path ${i + 1} (score ${p.score.toFixed(3)}):`);
    for (const s of p.steps) {
      const docId = s.source?.docId;
      const text = s.source?.snippet ?? (docId ? opts.docText?.(docId) : undefined);
      const snippet = text ? snippetAround(text, [s.from, s.to], opts.snippetChars ?? 200) : undefined;
      lines.push(`  ${s.from} -${s.relation}-> ${s.to}${docId ? ` [${docId}]` : ''}${snippet ? `: "${snippet}"` : ''}`);
    }
  });
  return lines.join('\n');
}

/** A window of the text around the first mention of one of the names (the start when none is found). */
export function snippetAround(text: string, names: string[], chars: number): string {
  const lower = text.toLowerCase();
  let at = -1;
  for (const n of names) {
    const i = n ? lower.indexOf(n.toLowerCase()) : -1;
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const start = Math.max(0, (at < 0 ? 0 : at) - Math.floor(chars / 4));
  const cut = text
    .slice(start, start + chars)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '...' : ''}${cut}${start + chars < text.length ? '...' : ''}`;
}
