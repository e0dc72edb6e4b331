/**
 * Plain text -> fragments: paragraphs separated by blank lines, packed into
 * bounded text fragments; a paragraph starting "Worked example:" is an example.
 * No markup is interpreted (a '#' in a .txt file is just a character).
 */
import type { IngestIssue, IngestResult } from './types';
import { fragmentSizes, type IngestOptions } from './options';
import { openSource } from './source';
import { decodeBytes } from './charset';
import { FragmentBuilder } from './fragments';
import { isWorkedExample } from './captions';
import { emptyStats, finishResult } from './result';

export async function ingestText(file: string, opts: IngestOptions = {}): Promise<IngestResult> {
  const src = openSource(file, opts);
  const issues: IngestIssue[] = [];
  const decoded = decodeBytes(src.bytes);
  if (decoded.warning) issues.push({ doc: src.docId, severity: 'warning', code: 'charset', message: `${src.rel}: ${decoded.warning}` });
  const b = new FragmentBuilder(src.docId, fragmentSizes(opts));
  const paras = decoded.text
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((p) => p.replace(/[ \t]+\n/g, '\n').trim())
    .filter(Boolean);
  for (const p of paras) {
    if (isWorkedExample(p)) b.example(p);
    else b.text(p.replace(/(?<=\S)\n(?=\S)/g, ' '));
  }
  const first = paras[0]?.split('\n')[0];
  const title = first && first.length <= 120 ? first : undefined;
  return finishResult({ src, format: 'text', title, fragments: b.finish(), issues, stats: emptyStats() });
}
