/**
 * list_tables' result in the released runner's layout (blockFormat = runner; its kfbench/materials.py
 * writes it as text): the pack's header, one line per table (its name, id, row count, the column
 * names joined by the pack's separator), or the pack's note when there is no table. A table's name
 * is its printed label, else its caption, else its document's title (the harness keeps no file name).
 */
import type { KbTable, KnowledgeBase } from '../../pipeline/knowledge-base';
import { fillPrompt, loadPrompt } from '../../util/prompts';
import { clip } from './context';

/** A list_tables result in the runner layout. */
export function runnerTableListing(kb: KnowledgeBase, tables: readonly KbTable[]): string {
  if (!tables.length) return loadPrompt('list-tables-empty').trim();
  const sep = loadPrompt('list-tables-column-sep');
  const lines = tables.map((t) =>
    fillPrompt('list-tables-line', {
      name: clip(t.label ?? t.caption ?? kb.title(t.docId) ?? t.docId, 120),
      id: t.fragmentId,
      rows: String(t.rowCount),
      columns: t.header.join(sep),
    }),
  );
  return `${loadPrompt('list-tables-header').trim()}\n${lines.join('\n')}`;
}
