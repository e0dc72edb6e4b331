import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  detectTables,
  findGutters,
  groupLines,
  layoutPage,
  linesToBlocks,
  repeatedMarginLines,
  runsToSegments,
  type TextRun,
} from '../../lib/corpus/pdf-layout';
import { findVectorFigures } from '../../lib/corpus/pdf';
import { isWorkedExample, parseCaption } from '../../lib/corpus/captions';
import { splitProse, splitSentences } from '../../lib/corpus/split';
import { makeTable, tableToText } from '../../lib/corpus/table';
import { FragmentBuilder } from '../../lib/corpus/fragments';
import { ocrBlocks } from '../../lib/corpus/ocr';
import { nonEmpty } from '../_shared/non-empty';

const run = (text: string, x0: number, y: number, opts: { fs?: number; bold?: boolean; w?: number } = {}): TextRun => {
  const fs = opts.fs ?? 10;
  return { text, x0, x1: x0 + (opts.w ?? text.length * fs * 0.5), y, fs, bold: opts.bold ?? false };
};

test('captions: labels normalised, prose references are not captions', () => {
  assert.deepEqual(parseCaption('Figure 3: Sales by region'), { kind: 'figure', label: 'Figure 3', text: 'Figure 3: Sales by region' });
  assert.equal(parseCaption('Fig. 2. A plot')?.label, 'Figure 2');
  assert.equal(parseCaption('*Table 12 | Results*')?.label, 'Table 12');
  assert.equal(parseCaption('Table IV: Roman')?.label, 'Table IV');
  assert.equal(parseCaption('Figure 3 shows the sales'), undefined);
  assert.equal(parseCaption('Table of Contents'), undefined);
  assert.equal(parseCaption('Figure 3 Sales', true)?.label, 'Figure 3');
  assert.ok(isWorkedExample('Worked example: 2 + 2 = 4'));
  assert.ok(isWorkedExample('**Worked example 2:** more'));
  assert.ok(!isWorkedExample('Worked example'), 'a bare heading is not an example');
});

test('split: sentences respect abbreviations; pieces bounded', () => {
  assert.deepEqual(splitSentences('See Fig. 3 for details. It shows e.g. growth. Done!'), ['See Fig. 3 for details.', 'It shows e.g. growth.', 'Done!']);
  const text = Array.from({ length: 40 }, (_, i) => `Sentence ${i} is here and it is of moderate length for a test.`).join(' ');
  const pieces = splitProse(text, 300, 400);
  assert.ok(nonEmpty(pieces).every((p) => p.length <= 400));
  assert.equal(pieces.join(' '), text);
  assert.ok(
    nonEmpty(splitProse('x'.repeat(5000), 1200, 1500)).every((p) => p.length <= 1500),
    'space-less runs are cut hard',
  );
});

test('table: ragged rows padded, empty rows dropped, text bounded', () => {
  const t = makeTable(['a', 'b'], [['1'], ['', ''], ['2', '3', '4']], 10);
  assert.deepEqual(t, {
    header: ['a', 'b', ''],
    rows: [
      ['1', '', ''],
      ['2', '3', '4'],
    ],
  });
  assert.equal(tableToText(t, 'Table 1: x'), 'Table 1: x\n| a | b |  |\n| --- | --- | --- |\n| 1 |  |  |\n| 2 | 3 | 4 |');
});

test('layout: runs -> segments (wide gaps split, $ joins its number, bold counted per char)', () => {
  const segs = runsToSegments([
    run('Revenue', 50, 100),
    run('$', 200, 100, { w: 5 }),
    run('1,234', 240, 100),
    run('Heading. ', 50, 130, { bold: true, w: 45 }),
    run('rest of the line', 96, 130),
  ]);
  assert.deepEqual(
    segs.map((s) => s.text),
    ['Revenue', '$1,234', 'Heading. rest of the line'],
  );
  assert.equal(segs[2].bold, false, 'a run-in bold heading does not make the line bold');
  assert.ok(segs[2].boldChars > 5 && segs[2].boldChars < segs[2].text.length);
});

test('layout: two columns are read column by column; a title crossing the gutter comes first', () => {
  const runs: TextRun[] = [run('A Title That Spans Both Columns Of The Page', 60, 60, { fs: 16, w: 470 })];
  for (let i = 0; i < 12; i++) {
    runs.push(run(`left line ${i} with enough words to be prose`, 60, 100 + i * 12, { w: 220 }));
    runs.push(run(`right line ${i} with enough words to be prose`, 310, 100 + i * 12, { w: 220 }));
  }
  const segs = runsToSegments(runs);
  const g = findGutters(segs, 595);
  assert.equal(g.length, 1);
  assert.ok(g[0].g0 >= 280 && g[0].g1 <= 310);
  const els = layoutPage(segs, [], 595);
  const text = els.map((e) => (e.type === 'block' ? e.text : '')).join('\n');
  assert.ok(text.indexOf('A Title') < text.indexOf('left line 0'));
  assert.ok(text.indexOf('left line 11') < text.indexOf('right line 0'), 'left column first');
});

test('layout: aligned columns become a table; prose lines do not', () => {
  const rows = [
    ['Item', 'Q1', 'Q2'],
    ['Apples', '10', '12'],
    ['Pears', '7', '9'],
    ['Plums', '3', '4'],
  ];
  const runs = rows.flatMap((r, i) => [run(r[0], 60, 100 + i * 14), run(r[1], 250, 100 + i * 14), run(r[2], 350, 100 + i * 14)]);
  const lines = groupLines(runsToSegments(runs));
  const found = detectTables(lines);
  assert.equal(found.length, 1);
  assert.deepEqual(found[0].table.header, ['Item', 'Q1', 'Q2']);
  assert.deepEqual(found[0].table.rows, [
    ['Apples', '10', '12'],
    ['Pears', '7', '9'],
    ['Plums', '3', '4'],
  ]);
  const prose = Array.from({ length: 5 }, (_, i) => [
    run(`This is a long line of ordinary prose number ${i}`, 60, 100 + i * 12, { w: 200 }),
    run(`and a second column of prose text ${i}`, 300, 100 + i * 12, { w: 200 }),
  ]).flat();
  assert.equal(detectTables(groupLines(runsToSegments(prose))).length, 0);
});

test('layout: paragraphs split at gaps and indents; hyphenation undone', () => {
  const lines = groupLines(
    runsToSegments([
      run('The first paragraph is hyphen-', 60, 100, { w: 300 }),
      run('ated across lines and ends here.', 60, 112, { w: 200 }),
      run('A second paragraph after a gap.', 60, 140, { w: 300 }),
    ]),
  );
  const blocks = linesToBlocks(lines, 360);
  assert.deepEqual(
    blocks.map((b) => b.text),
    ['The first paragraph is hyphenated across lines and ends here.', 'A second paragraph after a gap.'],
  );
});

test('layout: repeated running headers and page numbers are found', () => {
  const page = (n: number) => ({
    height: 800,
    segs: runsToSegments([run('ACME Annual Report 2023', 60, 30), run(`Body text of page ${n} that differs.`, 60, 300), run(String(n), 300, 780)]),
  });
  const drops = repeatedMarginLines([page(1), page(2), page(3), page(4)]);
  const pages = [page(1), page(2), page(3), page(4)];
  pages.forEach((p, i) => {
    const kept = p.segs.filter((s) => !drops[i].has(s.line)).map((s) => s.text);
    assert.deepEqual(kept, [`Body text of page ${i + 1} that differs.`]);
  });
});

test('vector figure: drawings above a caption become a region; labels inside are absorbed', () => {
  const block = (text: string, y0: number, y1: number, x0 = 60, x1 = 500, lines = 1) => ({
    type: 'block' as const,
    text,
    fs: 10,
    bold: false,
    lines,
    box: { x0, y0, x1, y1 },
  });
  const els = [
    block(
      'A long paragraph of prose before the figure that goes on and on and on about the harbor and its many ships, far more than two hundred characters so that it counts as prose and bounds the figure region from above.',
      60,
      120,
      60,
      500,
      5,
    ),
    block('2019 2020 2021', 250, 260, 100, 300),
    block('Figure 2: Ships per year', 300, 312),
  ];
  const drawings = [
    { x0: 100, y0: 150, x1: 140, y1: 280 },
    { x0: 150, y0: 200, x1: 190, y1: 280 },
    { x0: 200, y0: 130, x1: 240, y1: 280 },
  ];
  const figs = findVectorFigures(els, drawings, 595, 842);
  const f = figs.get(2)!;
  assert.ok(f);
  assert.deepEqual(f.absorbed, [1]);
  assert.equal(f.innerText, '2019 2020 2021');
  assert.ok(f.region.y0 >= 120 && f.region.y1 <= 300);
  assert.equal(findVectorFigures(els, [], 595, 842).size, 0, 'no drawings, no figure');
});

test('fragment builder: media attach to the preceding prose of the same section, else the next one', () => {
  const b = new FragmentBuilder('d', { target: 1200, max: 1500 });
  b.heading(1, 'A');
  b.media({ kind: 'image', caption: 'Figure 1: first' });
  b.text('Prose of A.');
  b.media({ kind: 'table', table: makeTable(['x'], [['1']], 10) });
  b.heading(2, 'B');
  b.media({ kind: 'image' });
  const f = b.finish();
  assert.deepEqual(
    f.map((x) => [x.kind, x.anchor ?? '', x.attached.join(',')]),
    [
      ['image', 'd#1', ''],
      ['text', '', 'd#0,d#2'],
      ['table', 'd#1', ''],
      ['image', '', ''],
    ],
  );
  assert.deepEqual(f[3].section, ['A', 'B']);
});

test('ocr blocks: low-confidence words dropped, noisy paragraphs skipped, a taller title line split off', () => {
  const word = (text: string, conf: number, x: number, y: number, h: number) => ({
    text,
    conf,
    bbox: [x, y, x + 10 * text.length, y + h] as [number, number, number, number],
  });
  const page = {
    width: 1000,
    height: 800,
    confidence: 80,
    paragraphs: [
      {
        bbox: [0, 0, 900, 300] as [number, number, number, number],
        lines: [
          { height: 60, words: [word('QUARTERLY', 95, 10, 10, 60), word('RESULTS', 93, 200, 10, 60)] },
          {
            height: 24,
            words: [word('Revenue', 91, 10, 100, 24), word('grew', 90, 100, 100, 24), word('~#', 20, 150, 100, 24), word('strongly', 88, 200, 100, 24)],
          },
          { height: 25, words: [word('in', 92, 10, 130, 25), word('every', 90, 40, 130, 25), word('region.', 89, 100, 130, 25)] },
        ],
      },
      {
        bbox: [0, 400, 900, 600] as [number, number, number, number],
        lines: [{ height: 30, words: [word('x7', 30, 10, 400, 30), word('Ek', 25, 50, 400, 30)] }],
      },
    ],
  };
  const blocks = ocrBlocks(page, 60);
  assert.deepEqual(
    blocks.map((b) => [b.text, b.lines]),
    [
      ['QUARTERLY RESULTS', 1],
      ['Revenue grew strongly in every region.', 2],
    ],
  );
  assert.equal(blocks[0].lineHeight, 60);
});
