/**
 * One real OCR run (tesseract.js, offline model) on a bar chart drawn here:
 * both OCR paths (the index-time pool and the offline vision service) give the
 * "<year>: <value>" pairs, and the vision service's cache ignores entries of the
 * old text format.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { OcrPool, ocrText, type OcrPage } from '../../lib/corpus/ocr';
import { OCR_ENGINE, OcrService } from '../../lib/corpus/offline/ocr-service';
import { ModelCache } from '../../lib/models/cache';
import { sha256 } from '../../lib/util/hash';
import { nonEmpty } from '../_shared/non-empty';

/** A bar chart with value labels above the bars: taller bars' labels sit higher, so OCR meets them out of year order. */
function drawChart(): Buffer {
  const years = ['2016', '2017', '2018', '2019', '2020'];
  const values = [412, 622, 755, 689, 538];
  const W = 900,
    H = 520,
    left = 60,
    bottom = 420,
    slot = 160;
  const canvas = createCanvas(W, H);
  const g = canvas.getContext('2d');
  g.fillStyle = '#ffffff';
  g.fillRect(0, 0, W, H);
  g.fillStyle = '#111111';
  g.textAlign = 'center';
  g.font = 'bold 28px DejaVu Sans';
  g.fillText('Acme Works: revenue', W / 2, 40);
  years.forEach((y, i) => {
    const cx = left + slot * (i + 0.5);
    const top = bottom - (values[i] / 800) * 320;
    g.fillStyle = '#4a78b5';
    g.fillRect(cx - 45, top, 90, bottom - top);
    g.fillStyle = '#111111';
    g.font = 'bold 28px DejaVu Sans';
    g.fillText(String(values[i]), cx, top - 14);
    g.font = '24px DejaVu Sans';
    g.fillText(y, cx, bottom + 36);
  });
  g.font = '20px DejaVu Sans';
  g.fillText('Year', W / 2, bottom + 84);
  return canvas.toBuffer('image/png');
}

const PAIRS = ['2016: 412', '2017: 622', '2018: 755', '2019: 689', '2020: 538'];

test('real OCR of a drawn bar chart: both OCR paths emit the year: value pairs; old-format cache entries are recomputed', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kf-ocr-chart-'));
  const png = drawChart();
  const file = path.join(dir, 'chart.png');
  fs.writeFileSync(file, png);
  const pool = new OcrPool({ size: 1, cacheDir: path.join(dir, 'ocr') });
  const record = path.join(dir, 'ocr', OcrPool.key(png).slice(0, 2), `${OcrPool.key(png)}.json`);
  try {
    const text = ocrText(await pool.recognize(png), 60);
    const lines = text.split('\n');
    assert.equal(lines[0], 'Acme Works: revenue');
    assert.deepEqual(
      lines.filter((l) => /^\d{4}: /.test(l)),
      PAIRS,
      text,
    );
  } finally {
    await pool.close();
  }
  // A cache record written before the sparse-numbers pass existed is completed, not recognised again.
  const old = JSON.parse(fs.readFileSync(record, 'utf8')) as OcrPage;
  assert.notEqual(old.sparseNumbers, undefined, 'the pool records whether the second pass ran');
  delete old.sparseNumbers;
  fs.writeFileSync(record, JSON.stringify(old));
  const pool2 = new OcrPool({ size: 1, cacheDir: path.join(dir, 'ocr') });
  try {
    const page = await pool2.recognize(png);
    assert.equal(pool2.stats.recognised, 0);
    assert.equal(pool2.stats.cacheHits, 1);
    assert.notEqual(page.sparseNumbers, undefined);
    assert.deepEqual(
      ocrText(page, 60)
        .split('\n')
        .filter((l) => /^\d{4}: /.test(l)),
      PAIRS,
    );
    assert.notEqual((JSON.parse(fs.readFileSync(record, 'utf8')) as OcrPage).sparseNumbers, undefined, 'the completed record is written back');
  } finally {
    await pool2.close();
  }

  const cache = ModelCache.open(path.join(dir, 'models.sqlite'));
  // An entry of the old format (text lines without pairs, under the bare engine name) must not be reused.
  cache.putOcr(sha256(png), OCR_ENGINE, { text: '755 689 622 538 412', lines: [{ text: '755 689 622 538 412', confidence: 95 }], engine: OCR_ENGINE });
  const ocr = new OcrService({ cache });
  try {
    const res = await ocr.read({ type: 'image', path: file });
    assert.equal(ocr.recognized, 1, 'the old-format entry was ignored and the image recognised again');
    assert.deepEqual(
      res.lines.filter((l) => l.kind === 'pair').map((l) => l.text),
      PAIRS,
    );
    assert.ok(nonEmpty(res.lines.filter((l) => l.kind === 'pair')).every((l) => l.bbox && l.bbox.y1 > l.bbox.y0));
    assert.match(res.engine, /rows-chartpairs/);
  } finally {
    await ocr.close();
  }
  const again = new OcrService({ cache });
  try {
    const res = await again.read({ type: 'image', path: file });
    assert.equal(again.recognized, 0, 'the word boxes were cached');
    assert.deepEqual(
      res.lines.filter((l) => l.kind === 'pair').map((l) => l.text),
      PAIRS,
    );
  } finally {
    await again.close();
    cache.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
