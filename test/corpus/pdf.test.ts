import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ingestPdf } from '../../lib/corpus/pdf';
import { OcrPool } from '../../lib/corpus/ocr';
import { assertWellFormed, byKind, scratch } from './helpers';
import { encryptedPdf, reportPdf, scanPdf } from './pdf-fixtures';
import { nonEmpty } from '../_shared/non-empty';

test('pdf: headings, image + caption, aligned table + caption, example, two columns, footer dropped, blank page', async () => {
  const dir = scratch('pdf-report');
  const file = path.join(dir, 'report.pdf');
  fs.writeFileSync(file, await reportPdf());
  const assetsDir = path.join(dir, 'assets');
  const r = await ingestPdf(file, { corpusRoot: dir, assetsDir, ocr: 'off' });
  assertWellFormed(r);
  assert.equal(r.doc?.id, 'report');
  assert.equal(r.doc?.title, 'Velm Harbor Report');
  assert.equal(r.doc?.pages, 4);
  assert.deepEqual(
    r.pages?.map((p) => [p.page, p.source]),
    [
      [1, 'text'],
      [2, 'text'],
      [3, 'text'],
      [4, 'empty'],
    ],
  );

  const intro = r.fragments[0];
  assert.equal(intro.page, 1);
  assert.deepEqual(intro.section, ['1 Introduction']);
  assert.match(intro.text, /^The harbor of Velm handles grain/);

  const [img] = byKind(r, 'image');
  assert.equal(img.page, 1);
  assert.equal(img.label, 'Figure 1');
  assert.equal(img.caption, 'Figure 1: Ships calling at Velm per year');
  assert.equal(img.media?.origin, 'pdf-embedded');
  assert.equal(img.media?.mime, 'image/png');
  assert.equal(img.media?.width, 300);
  const png = fs.readFileSync(path.join(assetsDir, img.media!.path));
  assert.equal(png.readUInt32BE(0), 0x89504e47, 'a real PNG was written');
  assert.deepEqual(img.section, ['2 Traffic']);
  assert.match(r.fragments[img.ordinal - 1].text, /^The chart below shows/);
  assert.equal(img.anchor, r.fragments[img.ordinal - 1].id, 'attached to the paragraph before it');
  assert.ok(!r.fragments.some((f) => f.kind === 'text' && f.text.includes('Ships calling at Velm per year')), 'caption consumed');

  const [t] = byKind(r, 'table');
  assert.equal(t.page, 2);
  assert.equal(t.label, 'Table 1');
  assert.deepEqual(t.table?.header, ['Cargo', 'Tonnes', 'Share']);
  assert.deepEqual(t.table?.rows, [
    ['Grain', '12,400', '41%'],
    ['Timber', '9,100', '30%'],
    ['Salt', '8,800', '29%'],
  ]);
  assert.match(t.text, /\| Grain \| 12,400 \| 41% \|/);

  const [ex] = byKind(r, 'example');
  assert.match(ex.text, /^Worked example: a ship of 2,000 tonnes/);
  assert.deepEqual(ex.section, ['3 Cargo']);

  // Two columns: the whole left column is read before the right one.
  const p3 = r.fragments
    .filter((f) => f.page === 3)
    .map((f) => f.text)
    .join('\n');
  for (const w of ['LEFTSTART', 'LEFTEND', 'RIGHTSTART', 'RIGHTEND']) assert.ok(p3.includes(w), w);
  assert.ok(p3.indexOf('LEFTEND') < p3.indexOf('RIGHTSTART'), 'left column first');
  assert.ok(!r.fragments.some((f) => f.text.includes('Velm Harbor Report - page')), 'running footer removed');

  // Same bytes, same fragments (ids and content) and same asset paths.
  const again = await ingestPdf(file, { corpusRoot: dir, assetsDir, ocr: 'off' });
  assert.deepEqual(again.fragments, r.fragments);
});

test('pdf: a page without text layer is OCRed (pool of workers, cache by image hash), page image kept', async () => {
  const dir = scratch('pdf-scan');
  const file = path.join(dir, 'scan.pdf');
  fs.writeFileSync(file, await scanPdf());
  const cacheDir = path.join(dir, 'ocr-cache');
  const pool = new OcrPool({ size: 2, cacheDir });
  try {
    const r = await ingestPdf(file, { corpusRoot: dir, assetsDir: path.join(dir, 'assets'), ocrPool: pool });
    assertWellFormed(r);
    assert.equal(r.pages?.[0].source, 'ocr');
    assert.ok(r.pages![0].chars > 20);
    assert.equal(r.stats.ocrPages, 1);
    const text = byKind(r, 'text')
      .map((f) => f.text)
      .join(' ');
    assert.match(text, /TARIFFS/);
    assert.match(text, /credits/);
    const [page] = byKind(r, 'image');
    assert.equal(page.media?.origin, 'pdf-render');
    assert.ok(fs.existsSync(path.join(dir, 'assets', page.media!.path)));
    assert.match(page.ocrText ?? '', /credits/);
    assert.equal(pool.stats.recognised, 1);
    // A rebuild reads the OCR from the cache.
    const again = await ingestPdf(file, { corpusRoot: dir, assetsDir: path.join(dir, 'assets'), ocrPool: pool });
    assert.equal(pool.stats.recognised, 1);
    assert.equal(pool.stats.cacheHits, 1);
    assert.deepEqual(again.fragments, r.fragments);
    // OCR switched off: the page is reported, not silently empty.
    const off = await ingestPdf(file, { corpusRoot: dir, ocr: 'off' });
    assert.equal(off.pages?.[0].source, 'empty');
    assert.ok(off.issues.some((i) => i.code === 'ocr_off' && i.page === 1));
  } finally {
    await pool.close();
  }
});

test('pdf: corrupt, encrypted, empty and truncated files give a clear issue, never a throw', async () => {
  const dir = scratch('pdf-bad');
  const write = (name: string, data: Buffer | string) => {
    fs.writeFileSync(path.join(dir, name), data);
    return path.join(dir, name);
  };

  const corrupt = await ingestPdf(write('corrupt.pdf', 'this is not a pdf at all, just text pretending'), { corpusRoot: dir });
  assert.equal(corrupt.doc, undefined);
  assert.equal(corrupt.issues[0].code, 'pdf_corrupt');
  assert.equal(corrupt.issues[0].severity, 'error');
  assert.match(corrupt.issues[0].message, /corrupt\.pdf/);

  const enc = await ingestPdf(write('locked.pdf', await encryptedPdf()), { corpusRoot: dir });
  assert.equal(enc.doc, undefined);
  assert.equal(enc.issues[0].code, 'pdf_encrypted');
  assert.match(enc.issues[0].message, /password/);

  const empty = await ingestPdf(write('empty.pdf', ''), { corpusRoot: dir });
  assert.equal(empty.issues[0].code, 'empty');

  // Truncated: pdfjs may recover some pages; whatever it does, every page it reports is accounted for.
  const full = await reportPdf();
  const cut = await ingestPdf(write('cut.pdf', full.subarray(0, Math.floor(full.length * 0.6))), { corpusRoot: dir, ocr: 'off' });
  if (cut.doc) {
    assert.equal(cut.pages?.length, cut.doc.pages);
    assert.ok(nonEmpty(cut.pages!).every((p, i) => p.page === i + 1 && ['text', 'ocr', 'empty', 'error'].includes(p.source)));
  } else assert.ok(cut.issues.some((i) => i.severity === 'error'));
});
