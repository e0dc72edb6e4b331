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

/** One row as the runner writes it: the pack's row mark, then column/value cells joined by the pack's separator. */
function rowLine(mark: string, header: readonly string[], row: readonly string[]): string {
  const sep = loadPrompt('table-cell-sep');
  const cells = row.map((v, i) => fillPrompt('table-cell', { column: header[i] ?? String(i + 1), value: v }));
  // The loader trims a template's trailing space, so the space after the row mark is written here (layout).
  return `${loadPrompt(mark)} ${cells.join(sep)}`;
}

/** A table's name in a result: its printed label, else its caption, else its id. */
function tableName(kb: KnowledgeBase, t: { fragmentId: string; label?: string; caption?: string }): string {
  return clip(t.label ?? t.caption ?? kb.fragment(t.fragmentId)?.label ?? t.fragmentId, 120);
}

/**
 * A query_table result in the runner layout: the pack's header, per table a head line (name, the item,
 * rows matched) and its rows; the pack's note when nothing matched. The harness's query reports no
 * total beyond the rows it returns, so the "rows left out" note is never written here.
 */
export function runnerQueryTable(kb: KnowledgeBase, item: string, matches: readonly { table: KbTable; header: string[]; rows: string[][] }[]): string {
  const lines = matches
    .filter((m) => m.rows.length)
    .flatMap((m) => [
      fillPrompt('query-table-group', { name: tableName(kb, m.table), item, matched: String(m.rows.length), more: '' }),
      ...m.rows.map((r) => rowLine('query-table-row', m.header, r)),
    ]);
  if (!lines.length) return loadPrompt('query-table-empty').trim();
  return `${loadPrompt('query-table-header').trim()}\n${lines.join('\n')}`;
}

/** A get_table result in the runner layout: the head (name, row count, rows left out when cut), then every row shown. */
export function runnerGetTable(kb: KnowledgeBase, id: string, t: { header: string[]; rows: string[][]; rowCount: number }): string {
  const name = tableName(kb, { fragmentId: id, label: kb.fragment(id)?.label, caption: kb.fragment(id)?.caption });
  const rest = t.rowCount - t.rows.length;
  const more = rest > 0 ? fillPrompt('table-rows-left', { rest: String(rest) }) : '';
  const head = fillPrompt('get-table-head', { name, rows: String(t.rowCount), more });
  return [head, ...t.rows.map((r) => rowLine('get-table-row', t.header, r))].join('\n');
}
