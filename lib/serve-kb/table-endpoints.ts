/**
 * The table endpoints: `tables` (every table of the package: id, name, columns, row count),
 * `query-table` (rows containing an item, per table, at most KB_LIMITS.tableRows each, with how many
 * matched) and `table` (one whole table). Rows are written twice: as objects keyed by column, as the
 * runner reads them, and as `cells` in column order, exact when two columns share a name.
 */
import type { TableData } from '../corpus/types';
import { KB_LIMITS, type KbTable } from '../pipeline/knowledge-base';
import { mediaDesc } from '../pipeline/media-context';
import { docFields, type Json } from './json';
import type { ServedPackage } from './packages';

/** Column names a row object can use: a blank or repeated header gets "column <n>". */
function columnKeys(header: string[]): string[] {
  const seen = new Set<string>();
  return header.map((h, i) => {
    const k = h.trim() && !seen.has(h.trim()) ? h.trim() : `column ${i + 1}`;
    seen.add(k);
    return k;
  });
}

function rowObjects(header: string[], rows: string[][]): Json[] {
  const keys = columnKeys(header);
  return rows.map((r) => Object.fromEntries(keys.map((k, i) => [k, r[i] ?? ''])));
}

/** The name a table is listed by: its label and caption, else where it is. */
function tableName(pkg: ServedPackage, t: KbTable): string {
  const named = t.caption || t.label ? mediaDesc({ label: t.label, caption: t.caption, text: '' }, 200) : '';
  return named || `${pkg.corpus.document(t.docId)?.title ?? t.docId}, table on page ${t.page ?? '?'}`;
}

function tableJson(pkg: ServedPackage, t: KbTable): Json {
  return {
    table_id: t.fragmentId,
    name: tableName(pkg, t),
    columns: t.header,
    row_count: t.rowCount,
    page: t.page,
    label: t.label,
    caption: t.caption,
    ...docFields(pkg, t.docId),
  };
}

export function tables(pkg: ServedPackage): Json {
  return { tables: pkg.kb.tables().map((t) => tableJson(pkg, t)) };
}

export function queryTable(pkg: ServedPackage, q: URLSearchParams): Json {
  const item = (q.get('item') ?? '').trim();
  const tableId = (q.get('table_id') ?? '').trim();
  const needle = item.toLowerCase();
  const results: Json[] = [];
  for (const t of pkg.kb.tables()) {
    if (tableId && t.fragmentId !== tableId) continue;
    const data = pkg.kb.table(t.fragmentId);
    if (!data) continue;
    const hits = data.rows.filter((r) => !needle || r.some((c) => c.toLowerCase().includes(needle)));
    if (!hits.length) continue;
    const rows = hits.slice(0, KB_LIMITS.tableRows);
    results.push({
      ...tableJson(pkg, t),
      rows: rowObjects(data.header, rows),
      cells: rows,
      matched: hits.length,
      truncated: hits.length > rows.length,
    });
  }
  return { item, ...(tableId ? { table_id: tableId } : {}), results };
}

/** A whole table; an empty object when the id names no table of the package (the runner's "not found"). */
export function table(pkg: ServedPackage, q: URLSearchParams): Json {
  const id = (q.get('table_id') ?? '').trim();
  const t = pkg.kb.tables().find((x) => x.fragmentId === id);
  const data: TableData | undefined = t ? pkg.kb.table(id) : undefined;
  if (!t || !data) return {};
  return {
    ...tableJson(pkg, t),
    rows: rowObjects(data.header, data.rows),
    cells: data.rows,
    row_count: data.rowCount ?? data.rows.length,
    truncated: data.truncated === true,
  };
}
