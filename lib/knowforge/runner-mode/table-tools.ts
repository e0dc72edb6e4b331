/**
 * Runner mode's table tools (list_tables, query_table, get_table) written as the released runner's
 * materializers write them; texts from the user's checkout, picked by their place in the code.
 * A row's cells are listed in the order the server's JSON gives them (JavaScript keeps that order
 * except for keys that are whole numbers, which it puts first: a departure for such column names).
 */
import { pyJsonDumps, pyStr } from './python-values';
import { fillSeq, fnRuns, nthRun, type RunnerSource } from './texts';
import type { Json } from './kb-api';
import type { RunnerMaterials } from './materials';
import { plain } from './listing-tools';

const s = pyStr;

function rowText(m: RunnerSource, fn: string, prefixAt: number, row: Json): string {
  const r = fnRuns(m, fn);
  const at = (i: number, f: number) => nthRun(m, r, i, f, `${fn} text ${i}`);
  return (
    plain(at(prefixAt, 0)) +
    Object.entries(row)
      .map(([k, v]) => fillSeq(at(prefixAt + 2, 2), [k, s(v)]))
      .join(plain(at(prefixAt + 1, 0)))
  );
}

export function listTablesListing(m: RunnerSource, data: Json): string {
  const r = fnRuns(m, 'list_tables_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `list_tables_mat text ${i}`);
  const tables = (data.tables ?? []) as Json[];
  if (!tables.length) return plain(at(0, 0));
  const line = at(3, 4);
  const joiner = /^(['"])(.*?)\1\.join/.exec(String((line.filter((x) => typeof x !== 'string')[3] as { expr: string }).expr));
  if (!joiner) throw new Error(`${m.file}: the column joiner was not found`);
  return (
    plain(at(1, 0)) +
    tables.map((t) => fillSeq(line, [s(t.name), s(t.table_id), s(t.row_count), ((t.columns ?? []) as unknown[]).map(s).join(joiner[2])])).join('\n')
  );
}

export function queryTableListing(m: RunnerSource, b: RunnerMaterials, data: Json): string {
  const r = fnRuns(m, 'add_table_rows');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `add_table_rows text ${i}`);
  const item = s(data.item ?? '');
  const results = (data.results ?? []) as Json[];
  const lines: string[] = [];
  for (const tr of results) {
    const rows = (tr.rows ?? []) as Json[];
    if (!rows.length) continue;
    const matched = tr.matched ?? rows.length;
    const more = tr.truncated ? fillSeq(at(0, 1), [String(Number(matched) - rows.length)]) : '';
    lines.push(fillSeq(at(2, 4), [s(tr.name), item, s(tr.matched), more]));
    for (const row of rows.slice(0, 20)) lines.push(rowText(m, 'add_table_rows', 3, row));
  }
  if (!lines.length) return plain(nthRun(m, fnRuns(m, 'query_table_mat'), 1, 0, 'query_table_mat text 1'));
  const names = results.filter((x) => x && typeof x === 'object' && x.name).map((x) => `doc:${s(x.name)}`);
  return b.addPlain(plain(at(7, 0)) + lines.join('\n'), names);
}

export function getTableListing(m: RunnerSource, b: RunnerMaterials, data: Json): string {
  const r = fnRuns(m, 'get_table_mat');
  const at = (i: number, f: number) => nthRun(m, r, i, f, `get_table_mat text ${i}`);
  if (!data || !Object.keys(data).length) return pyJsonDumps({ error: { code: plain(at(2, 0)), recoverable: true } });
  const rows = (data.rows ?? []) as Json[];
  const more = data.truncated ? fillSeq(at(4, 1), [String(Number(data.row_count ?? rows.length) - rows.length)]) : '';
  const head = fnRuns(m, 'get_table_mat', true).find((x) => x.filter((p) => typeof p !== 'string').length === 3);
  if (!head) throw new Error(`${m.file}: the whole-table header was not found`);
  const lines = [fillSeq(head, [s(data.name), s(data.row_count), more]), ...rows.map((row) => rowText(m, 'get_table_mat', 6, row))];
  return b.addPlain(lines.join('\n'), data.name ? [`doc:${s(data.name)}`] : []);
}
