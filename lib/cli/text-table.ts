/** A plain-text table for the terminal: columns padded to their widest cell, two spaces apart. */
export function formatTextTable(head: string[], rows: string[][]): string[] {
  const widths = head.map((h, j) => Math.max(h.length, ...rows.map((r) => (r[j] ?? '').length)));
  const fmt = (cells: string[]) =>
    cells
      .map((c, j) => (c ?? '').padEnd(widths[j]))
      .join('  ')
      .trimEnd();
  return [fmt(head), ...rows.map(fmt)];
}
