import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseCsv, toCsv, toMarkdown, writeTable, csvField } from '../../lib/report/table';
import { KfError } from '../../lib/util/errors';

const tricky = [
  { name: 'plain', note: 'a, b', score: 0.123456, n: 3 },
  { name: 'quote "q"', note: 'line1\nline2', score: 1 / 3, n: 10 },
  { name: ' lead', note: 'pipe | here', score: null, n: 0 },
];

test('CSV quotes commas, quotes, newlines and edge spaces, and parses back exactly', () => {
  const csv = toCsv(tricky);
  assert.equal(csv.split('\n')[0], 'name,note,score,n');
  assert.equal(csvField('he said "hi"'), '"he said ""hi"""');
  assert.equal(csvField('x'), 'x');
  const back = parseCsv(csv);
  assert.equal(back.length, 3);
  assert.equal(back[0].note, 'a, b');
  assert.equal(back[1].name, 'quote "q"');
  assert.equal(back[1].note, 'line1\nline2');
  assert.equal(back[2].name, ' lead');
  assert.equal(back[2].score, '');
  // Full precision in the CSV (rounding is only for Markdown).
  assert.equal(Number(back[1].score), 1 / 3);
});

test('CSV is read identically by an independent parser (Python csv module)', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-table-'));
  const { csv } = writeTable(tricky, { dir, name: 't' });
  const py = spawnSync('python3', ['-c', 'import csv,json,sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline="")))))', csv], {
    encoding: 'utf8',
  });
  if (py.error || py.status !== 0) return t.skip(`python3 with the csv module is not available here (${py.error?.message ?? py.stderr})`);
  assert.deepEqual(JSON.parse(py.stdout), parseCsv(fs.readFileSync(csv, 'utf8')));
});

test('Markdown: aligned columns, fixed decimals, integers kept, n/a, escaped pipes, caption and notes', () => {
  const md = toMarkdown(tricky, { decimals: 2, caption: 'Table 1: demo', notes: ['offline backend: not model results', 'seed 7'] });
  const lines = md.trimEnd().split('\n');
  assert.equal(lines[0], 'Table 1: demo');
  assert.equal(lines[1], '');
  const table = lines.slice(2, 7);
  // Every table line has the same width: columns are padded.
  assert.equal(new Set(table.map((l) => l.length)).size, 1, md);
  assert.match(table[1], /^\| -+ \| -+ \| -+: \| -+: \|$/); // numbers right-aligned
  assert.match(table[2], /\| +0\.12 \| +3 \|$/);
  assert.match(table[3], /\| +0\.33 \| +10 \|$/);
  assert.match(table[3], /line1<br>line2/);
  assert.match(table[4], /pipe \\\| here/);
  assert.match(table[4], /\| +n\/a \|/);
  assert.deepEqual(lines.slice(-2), ['offline backend: not model results  ', 'seed 7']);
});

test('columns: order, subset, labels, per-column decimals and formatters', () => {
  const md = toMarkdown(tricky, {
    columns: [
      { key: 'n', label: 'N' },
      { key: 'score', label: 'Acc (%)', decimals: 1, format: (v) => (typeof v === 'number' ? (v * 100).toFixed(1) : '-') },
      'name',
    ],
  });
  const [head, , first] = md.split('\n');
  assert.match(head, /^\| +N \| Acc \(%\) \| name +\|$/);
  assert.match(first, /^\| +3 \| +12\.3 \| plain +\|$/);
  assert.equal(toCsv(tricky, { columns: ['n', 'name'] }).split('\n')[1], '3,plain');
  assert.throws(() => toMarkdown(tricky, { columns: ['n', 'n'] }), KfError);
});

test('a danfojs DataFrame is accepted and written with correct quoting (danfojs own toCSV does not quote)', () => {
  const dfd = require('danfojs-node');
  const df = new dfd.DataFrame([
    { a: 'x, y', b: 1.5 },
    { a: 'say "hi"', b: 2 },
  ]);
  const back = parseCsv(toCsv(df));
  assert.deepEqual(back, [
    { a: 'x, y', b: '1.5' },
    { a: 'say "hi"', b: '2' },
  ]);
  assert.match(toMarkdown(df, { decimals: 1 }), /\| x, y +\| +1\.5 \|/);
});

test('writeTable writes <name>.csv and <name>.md; bad input gets a KfError', () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kf-table-')), 'nested');
  const p = writeTable([{ a: 1 }], { dir, name: 'acc', caption: 'c' });
  assert.equal(p.csv, path.join(dir, 'acc.csv'));
  assert.equal(fs.readFileSync(p.csv, 'utf8'), 'a\n1\n');
  assert.match(fs.readFileSync(p.md, 'utf8'), /^c\n\n\| +a \|/);
  assert.throws(
    () => writeTable([{ a: 1 }], { dir, name: '../escape' }),
    (e: unknown) => e instanceof KfError && /plain file name/.test(e.message),
  );
  assert.throws(
    () => toMarkdown([1 as unknown as Record<string, unknown>]),
    (e: unknown) => e instanceof KfError && /row 0/.test(e.message),
  );
  assert.throws(() => toMarkdown([{ a: 1.5 }], { decimals: -1 }), KfError);
  // Empty tables still write something readable.
  assert.match(toMarkdown([], { columns: ['a', 'b'] }), /\| a +\| b +\|[\s\S]*no rows/);
  assert.equal(toCsv([], { columns: ['a', 'b'] }), 'a,b\n');
});

test('one number format per column: a column mixing 8 and 56.0 prints 8.0; a column of counts stays integers', () => {
  const md = toMarkdown(
    [
      { config: 'S0', n: 150, f1: 8 },
      { config: 'S1', n: 150, f1: 56.04 },
    ],
    { decimals: 1 },
  );
  const rows = md
    .trim()
    .split('\n')
    .slice(2)
    .map((l) =>
      l
        .split('|')
        .map((c) => c.trim())
        .filter(Boolean),
    );
  assert.deepEqual(rows, [
    ['S0', '150', '8.0'],
    ['S1', '150', '56.0'],
  ]);
});
