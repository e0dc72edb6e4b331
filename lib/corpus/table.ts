/**
 * TableData from any source (Markdown pipes, HTML <table>, aligned PDF columns):
 * normalising ragged rows, bounding gigantic tables, and the Markdown rendering
 * that stands for the table in text retrieval.
 */
import type { TableData } from './types';

/** Characters of a table's text rendering (the pool's table cap is 3,000). */
export const TABLE_TEXT_CHARS = 3000;

function cleanCell(c: string): string {
  return c.replace(/\s+/g, ' ').trim();
}

/**
 * Build TableData: cells cleaned, rows padded to the header width (ragged sources
 * are common), empty rows dropped, and rows beyond `maxRows` cut with
 * `truncated` + `rowCount` recording the full size.
 */
export function makeTable(header: string[], rows: string[][], maxRows: number): TableData {
  let h = header.map(cleanCell);
  let body = rows.map((r) => r.map(cleanCell)).filter((r) => r.some((c) => c !== ''));
  const width = Math.max(h.length, ...body.map((r) => r.length), 0);
  if (h.length < width) h = [...h, ...Array(width - h.length).fill('')];
  body = body.map((r) => (r.length < width ? [...r, ...Array(width - r.length).fill('')] : r));
  const table: TableData = { header: h, rows: body };
  if (body.length > maxRows) {
    table.rows = body.slice(0, maxRows);
    table.truncated = true;
    table.rowCount = body.length;
  }
  return table;
}

function mdCell(c: string): string {
  return c.replace(/\|/g, '\\|');
}

/**
 * The retrieval text of a table: caption, then header and rows as a Markdown pipe
 * table, cut at a row boundary to stay under `maxChars` (with a note saying how
 * many rows were left out).
 */
export function tableToText(table: TableData, caption?: string, maxChars = TABLE_TEXT_CHARS): string {
  const lines: string[] = [];
  if (caption) lines.push(caption);
  const header = table.header.length ? table.header : (table.rows[0]?.map(() => '') ?? []);
  if (header.length) {
    lines.push(`| ${header.map(mdCell).join(' | ')} |`);
    lines.push(`| ${header.map(() => '---').join(' | ')} |`);
  }
  let used = lines.reduce((n, l) => n + l.length + 1, 0);
  const total = table.rowCount ?? table.rows.length;
  let shown = 0;
  for (const r of table.rows) {
    const line = `| ${r.map(mdCell).join(' | ')} |`;
    if (used + line.length + 1 > maxChars - 40 && shown > 0) break;
    lines.push(line);
    used += line.length + 1;
    shown++;
  }
  if (shown < total) lines.push(`(${total - shown} more rows not shown; ${total} rows in all)`);
  return lines.join('\n');
}

/** Header + first rows in one line: part of the offline description of a table. */
export function tableSummary(table: TableData, rows = 3): string {
  const parts: string[] = [];
  if (table.header.some(Boolean)) parts.push(`Columns: ${table.header.filter(Boolean).join('; ')}.`);
  const first = table.rows.slice(0, rows).map((r) => r.filter(Boolean).join(', '));
  if (first.length) parts.push(`First rows: ${first.join(' / ')}.`);
  parts.push(`${table.rowCount ?? table.rows.length} rows x ${table.header.length} columns${table.truncated ? ' (truncated)' : ''}.`);
  return parts.join(' ');
}
