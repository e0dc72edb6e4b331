/**
 * Layout-aware OCR text on synthetic word boxes (no OCR: fast): visual rows,
 * chart axis pairing, and the cases that must NOT pair (ambiguous alignment,
 * grouped bars, labelled figure grids, stray glyphs).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCharts, groupRows, ocrLayout, rowCells, wantsSparseNumbers, type Box, type LayoutWord } from '../../lib/corpus/ocr-layout';
import { ocrBlocks, ocrText, type OcrPage } from '../../lib/corpus/ocr';
import { chartSeries } from '../../lib/knowforge/offline/evidence';

/** A word of `h` px height, 14 px per character wide unless `x1` is given. */
function w(text: string, x0: number, y0: number, h = 20, conf = 95, x1?: number): LayoutWord {
  return { text, conf, bbox: [x0, y0, x1 ?? x0 + 14 * text.length, y0 + h] as Box };
}
/** Words centred on x. */
function wc(text: string, x: number, y0: number, h = 20, conf = 95): LayoutWord {
  const half = 7 * text.length;
  return w(text, x - half, y0, h, conf, x + half);
}
/** One tesseract paragraph per list of lines (as tesseract groups them, not necessarily visual rows). */
function page(...paragraphs: LayoutWord[][][]): OcrPage {
  return {
    width: 1200,
    height: 700,
    confidence: 90,
    paragraphs: paragraphs.map((lines) => ({
      bbox: [0, 0, 1200, 700] as Box,
      lines: lines.map((words) => ({ words, height: Math.max(...words.map((x) => x.bbox[3])) - Math.min(...words.map((x) => x.bbox[1])) })),
    })),
  };
}
const texts = (rows: LayoutWord[][]) => rows.map((r) => r.map((x) => x.text).join(' '));

/**
 * A bar chart as tesseract returns it: value labels above the bars in HEIGHT
 * order (tallest first, labels of similar height on one tesseract line), then
 * the x-axis years, then the axis title.
 */
function barChart(values: [string, number][], opts: { years?: string[]; pitch?: number; left?: number } = {}): OcrPage {
  const pitch = opts.pitch ?? 150;
  const left = opts.left ?? 100;
  const years = opts.years ?? values.map((_, i) => String(2016 + i));
  const centers = years.map((_, i) => left + pitch * (i + 0.5));
  const labels = values.map(([t, top], i) => wc(t, centers[i], top, 23));
  const byHeight = [...labels].sort((a, b) => a.bbox[1] - b.bbox[1]);
  // Tesseract glues labels of nearby heights into one "line".
  const lines: LayoutWord[][] = [];
  for (const l of byHeight) {
    const last = lines[lines.length - 1];
    if (last && l.bbox[1] - last[0].bbox[1] < 40) last.push(l);
    else lines.push([l]);
  }
  return page([
    [w('Acme', 400, 20, 29), w('Works:', 480, 20, 29), w('revenue', 580, 20, 29)],
    [w('Revenue', 60, 74, 17), w('(million', 170, 74, 17), w('credits)', 290, 74, 17)],
    ...lines,
    years.map((y, i) => wc(y, centers[i], 546, 20)),
    [wc('Year', 600, 600, 16)],
  ]);
}

test('rows: words regrouped by vertical overlap, top to bottom, left to right; a tall glyph glues nothing', () => {
  const words = [w('b2', 300, 102), w('a1', 10, 10), w('b1', 10, 100), w('a2', 300, 12), w('|', 200, 0, 140), w('c1', 10, 200)];
  assert.deepEqual(texts(groupRows(words)), ['a1 | a2', 'b1 b2', 'c1']);
  // A staircase of labels does not chain into one row (the row band is a median, not a running union).
  const stairs = [w('10', 0, 100, 20), w('20', 100, 88, 20), w('30', 200, 76, 20), w('40', 300, 64, 20), w('50', 400, 52, 20)];
  assert.ok(groupRows(stairs).length >= 3, 'a staircase stays several rows');
  // Cells: a gap wider than the word height separates labels; word spaces do not.
  const cells = rowCells(groupRows([w('North', 0, 0), w('America', 80, 0), w('Europe', 300, 0), w('12.5', 500, 0), w('%', 560, 0)])[0]);
  assert.deepEqual(
    cells.map((c) => c.text),
    ['North America', 'Europe', '12.5 %'],
  );
});

test('bar chart: each value label pairs with the year under it, in year order, whatever order OCR read them', () => {
  const vals: [string, number][] = [
    ['544', 240],
    ['622', 180],
    ['755', 120],
    ['689', 150],
    ['588', 205],
    ['1,039', 100],
  ];
  const lay = ocrLayout(barChart(vals), 60);
  assert.equal(lay.charts.length, 1);
  assert.deepEqual(
    lay.charts[0].pairs.map((p) => `${p.category}: ${p.value}`),
    ['2016: 544', '2017: 622', '2018: 755', '2019: 689', '2020: 588', '2021: 1,039'],
  );
  const lines = lay.text.split('\n');
  // Title and axis title stay lines of their own; the pairs follow the axis row, the axis title comes after.
  assert.equal(lines[0], 'Acme Works: revenue');
  assert.equal(lines[1], 'Revenue (million credits)');
  const axis = lines.indexOf('2016 2017 2018 2019 2020 2021');
  assert.ok(axis > 1);
  assert.deepEqual(lines.slice(axis + 1, axis + 7), ['2016: 544', '2017: 622', '2018: 755', '2019: 689', '2020: 588', '2021: 1,039']);
  assert.equal(lines[lines.length - 1], 'Year');
  assert.deepEqual(lay.lines.filter((l) => l.kind === 'pair').length, 6);
  // The offline reader gets the series from the same text (ocrBlocks is what indexing stores).
  const text = ocrBlocks(barChart(vals), 60)
    .map((b) => b.text)
    .join('\n');
  assert.deepEqual(
    chartSeries(text).flatMap((s) => s.rows),
    [
      ['2016', '544'],
      ['2017', '622'],
      ['2018', '755'],
      ['2019', '689'],
      ['2020', '588'],
      ['2021', '1,039'],
    ],
  );
  assert.equal(ocrText(barChart(vals), 60), lay.text);
});

test('bar chart: a value label under the confidence threshold is dropped, the others still pair', () => {
  const p = barChart(
    [
      ['30%', 200],
      ['21%', 250],
      ['17%', 280],
      ['9%', 300],
      ['5%', 320],
    ],
    { years: ['Rock', 'R&B/Hip-Hop', 'Pop', 'Country', 'Latin'], pitch: 190 },
  );
  p.paragraphs
    .flatMap((x) => x.lines)
    .flatMap((l) => l.words)
    .find((x) => x.text === '9%')!.conf = 30;
  assert.deepEqual(
    ocrLayout(p, 60).charts[0].pairs.map((x) => `${x.category}: ${x.value}`),
    ['Rock: 30%', 'R&B/Hip-Hop: 21%', 'Pop: 17%', 'Latin: 5%'],
  );
});

test('no pairs when the alignment is ambiguous: grouped bars, a value between two categories, too few values', () => {
  // Grouped bars: two values over each category.
  const centers = [200, 400, 600];
  const grouped = page(
    [[w('Share', 400, 20), w('of', 480, 20), w('total', 520, 20)]],
    centers.flatMap((c, i) => [[wc(`${10 + i}%`, c - 30, 200 + 20 * i, 23), wc(`${20 + i}%`, c + 30, 180 + 20 * i, 23)]]),
    [centers.map((c, i) => wc(['Rock', 'Pop', 'Latin'][i], c, 546))],
  );
  assert.deepEqual(ocrLayout(grouped, 60).charts, []);
  // A value half-way between two categories.
  const between = page(
    [[wc('40', 300, 200, 23), wc('50', 200, 150, 23), wc('60', 600, 180, 23)]],
    [[wc('2019', 200, 546), wc('2020', 400, 546), wc('2021', 600, 546)]],
  );
  assert.deepEqual(ocrLayout(between, 60).charts, []);
  // Only 2 of 6 categories have a value: not enough to be sure these are the bars' labels.
  const sparse = barChart(
    [
      ['12', 200],
      ['14', 180],
    ],
    { years: ['2016', '2017', '2018', '2019', '2020', '2021'] },
  );
  assert.deepEqual(ocrLayout(sparse, 60).charts, []);
  // Repeated category labels (small multiples, a legend per panel).
  const dup = page([[wc('70', 200, 200, 23), wc('80', 600, 200, 23)]], [[wc('DPR', 200, 546), wc('DPR', 400, 546), wc('DPR', 600, 546)]]);
  assert.deepEqual(ocrLayout(dup, 60).charts, []);
});

test('no pairs for labelled figures (KPI tiles, a table): labels right above values, or figures right under the labels', () => {
  const kpi = page(
    [[w('Conversion', 100, 330, 24), w('Rate', 260, 330, 24)], [w('Transactions', 560, 330, 24)]],
    [[w('2.16%', 100, 386, 40), w('413,780', 560, 386, 40)]],
    [
      [w('Average', 100, 570, 24), w('Order', 210, 570, 24), w('Value', 300, 570, 24)],
      [w('Unique', 560, 570, 24), w('Purchases', 660, 570, 24)],
      [w('Quantity', 1000, 570, 24)],
    ],
    [[w('$51.62', 100, 621, 40), w('977,406', 560, 621, 40), w('1,381,146', 1000, 621, 40)]],
  );
  assert.deepEqual(ocrLayout(kpi, 60).charts, []);
  // A line chart printing its values as a data row under the years: not pairs of values ABOVE an axis.
  const dataRow = page(
    [[wc('Population', 500, 20, 29)]],
    [[wc('1990', 150, 546), wc('2000', 300, 546), wc('2010', 450, 546)]],
    [[wc('410,800', 150, 589, 25), wc('463,100', 300, 589, 25), wc('446,900', 450, 589, 25)]],
  );
  assert.deepEqual(ocrLayout(dataRow, 60).charts, []);
});

test('legends and stray glyphs: a legend row under the axis stays its own line; a drawing read as a big digit is no value', () => {
  const p = barChart(
    [
      ['120', 200],
      ['95', 260],
      ['143', 170],
    ],
    { years: ['North', 'South', 'East'], pitch: 200 },
  );
  p.paragraphs.push({ bbox: [0, 0, 1, 1], lines: [{ height: 18, words: [w('Sales', 200, 640, 18), w('2023', 290, 640, 18), w('Target', 500, 640, 18)] }] });
  const lay = ocrLayout(p, 60);
  assert.deepEqual(
    lay.charts[0].pairs.map((x) => `${x.category}: ${x.value}`),
    ['North: 120', 'South: 95', 'East: 143'],
  );
  assert.equal(lay.text.split('\n').pop(), 'Sales 2023 Target');
  // A tall "9" (a shape of the figure, 5x the label height) over a category: not a value label.
  const glyph = page(
    [[w('9', 180, 100, 110), w('4', 580, 300, 22)]],
    [[wc('Normal zygote', 200, 546, 22), wc('Gynogenetic', 400, 546, 22), wc('Androgenetic', 600, 546, 22)]],
  );
  assert.deepEqual(ocrLayout(glyph, 60).charts, []);
});

test('regions: two text columns are never interleaved; a label column and its value column read as rows', () => {
  const col = (x: number, words: string[]) => words.map((s, i) => s.split(' ').map((t, k) => w(t, x + 70 * k, 100 + 30 * i)));
  const left = col(20, ['alpha beta gamma delta', 'epsilon zeta eta theta', 'iota kappa lambda mu']);
  const right = col(620, ['one two three four', 'five six seven eight', 'nine ten eleven twelve']);
  const lay = ocrLayout(page(left, right), 60);
  assert.deepEqual(lay.text.split('\n'), [
    'alpha beta gamma delta',
    'epsilon zeta eta theta',
    'iota kappa lambda mu',
    'one two three four',
    'five six seven eight',
    'nine ten eleven twelve',
  ]);
  // Tesseract reads a horizontal bar chart's labels and values as two columns; here they become rows.
  const labels = [[w('All', 20, 100), w('Music', 70, 100)], [w('Rock', 20, 140)], [w('Pop', 20, 180)]];
  const values = [[w('24%', 400, 101)], [w('32%', 400, 141)], [w('18%', 400, 181)]];
  assert.deepEqual(ocrLayout(page(labels, values), 60).text.split('\n'), ['All Music 24%', 'Rock 32%', 'Pop 18%']);
});

test('ocr blocks keep paragraphs, heading splits and the noise filter; a chart adds one block of pairs after its axis', () => {
  const blocks = ocrBlocks(
    barChart(
      [
        ['10', 300],
        ['20', 200],
        ['30', 100],
      ],
      { years: ['2019', '2020', '2021'] },
    ),
    60,
  );
  const pairBlock = blocks.findIndex((b) => b.text.startsWith('2019: 10'));
  assert.ok(pairBlock > 0);
  assert.equal(blocks[pairBlock].text, '2019: 10\n2020: 20\n2021: 30');
  assert.equal(blocks[pairBlock].lines, 3);
  assert.match(blocks[pairBlock - 1].text, /2019 2020 2021$/);
  assert.equal(blocks[0].text, 'Acme Works: revenue', 'the taller title line is its own block');
  // Only stray marks: dropped, as before.
  assert.deepEqual(ocrBlocks(page([[w('|', 10, 10, 40), w('=', 40, 10, 10)]]), 60), []);
  assert.deepEqual(findCharts([]), []);
});

test('sparse-numbers pass: asked for only when an axis misses values; its numbers fill the gaps of chart pairing only', () => {
  const vals: [string, number][] = [
    ['223', 200],
    ['211', 215],
    ['256', 155],
    ['S47', 166],
    ['296', 141],
  ];
  const full = barChart(vals.map(([t, y]) => [t === 'S47' ? '247' : t, y] as [string, number]));
  assert.equal(wantsSparseNumbers(full), false, 'every category has a confident value: no second pass');
  assert.equal(wantsSparseNumbers(page([[w('Revenue', 10, 10), w('grew', 120, 10), w('strongly', 200, 10)]])), false, 'plain text: no second pass');
  // The first pass missed 2016's label, misread 2019's with low confidence, and read 2020's with some doubt.
  const p = barChart(vals.map(([t, y], i) => [i === 0 ? '' : t, y] as [string, number]));
  const words = p.paragraphs.flatMap((x) => x.lines).flatMap((l) => l.words);
  words.find((x) => x.text === 'S47')!.conf = 33;
  words.find((x) => x.text === '296')!.conf = 74;
  assert.equal(wantsSparseNumbers(p), true);
  const box = (t: string) => words.find((x) => x.text === t)!.bbox;
  const at = (t: string, b: Box, conf = 96): LayoutWord => ({ text: t, conf, bbox: [...b] as Box });
  p.sparseNumbers = [
    at('223', [193, 200, 235, 223]), // the missed label
    at('247', box('S47')), // where the first pass kept nothing
    at('266', box('296')), // the first pass's confident reading wins
    at('11', [100, 260, 480, 530], 93), // two bar edges read as a tall "11": not a label
    at('2017', box('2017'), 96), // already read: no duplicate
  ];
  const lay = ocrLayout(p, 60);
  assert.deepEqual(
    lay.charts[0].pairs.map((x) => `${x.category}: ${x.value}`),
    ['2016: 223', '2017: 211', '2018: 256', '2019: 247', '2020: 296'],
  );
  // The plain rows are the first pass's alone.
  const rows = lay.lines
    .filter((l) => l.kind === 'row')
    .map((l) => l.text)
    .join('\n');
  assert.ok(!/\b(223|247|266|11)\b/.test(rows), rows);
  assert.equal(lay.text.split('\n').filter((l) => l.includes('2017')).length, 2, 'the axis row and one pair: no duplicated 2017');
});
