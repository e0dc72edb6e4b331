/**
 * Measurement (opt-in, ~1-2 min of OCR): over every bar chart of the demo world,
 * the share of (year, value) pairs the offline reader (evidence.ts chartSeries)
 * gets right from the OCR text that indexing stores (ocrBlocks), with and
 * without the sparse-numbers pass. The demo manifest lists the text drawn into
 * each PNG; a bar chart's drawnText is [title, y label, v1..vn, l1..ln, x label].
 *
 *   KF_TSX=1 node bin/kf.js demo generate --preset default
 *   KF_OCR_DEMO=1 node --import tsx --test test/corpus/ocr-demo-charts.test.ts
 *
 * Set KF_OCR_DEMO_CACHE to a folder to keep the OCR cache between runs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OcrPool, ocrBlocks, type OcrPage } from '../../lib/corpus/ocr';
import { chartSeries } from '../../lib/knowforge/offline/evidence';
import { repoRoot } from '../../lib/util/paths';

const NUM = /^[$€£]?-?\d[\d,]*(?:\.\d+)?%?$/;

test('demo bar charts: year-value pairs read right from the OCR text', async (t) => {
  if (!process.env.KF_OCR_DEMO) {
    t.skip('a measurement, not a unit test (OCR of ~110 images): set KF_OCR_DEMO=1 to run it');
    return;
  }
  const root = path.join(repoRoot(), 'data', 'demo', 'default');
  const manifestFile = path.join(root, 'manifest.json');
  if (!fs.existsSync(manifestFile)) {
    t.skip(`no demo world at ${root}: run KF_TSX=1 node bin/kf.js demo generate --preset default`);
    return;
  }
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { images: { path: string; drawnText: string[] }[] };
  const cacheDir = process.env.KF_OCR_DEMO_CACHE ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kf-ocr-demo-'));
  const pool = new OcrPool({ size: 2, cacheDir });
  const score = { charts: 0, expected: 0, right: 0, wrong: 0, rightNoSparse: 0, wrongNoSparse: 0, otherImagesWithPairs: 0 };
  const read = (page: OcrPage) => {
    const got = new Map<string, string>();
    for (const s of chartSeries(
      ocrBlocks(page, 60)
        .map((b) => b.text)
        .join('\n'),
    ))
      for (const [y, v] of s.rows) got.set(y, v);
    return got;
  };
  try {
    await Promise.all(
      manifest.images.map(async (im) => {
        const d = im.drawnText.slice(2, -1);
        const n = d.length / 2;
        const bar = d.length >= 4 && d.length % 2 === 0 && d.slice(0, n).every((x) => NUM.test(x)) && !d.slice(0, n).every((x) => /^\d{4}$/.test(x));
        const page = await pool.recognize(fs.readFileSync(path.join(root, 'corpus', im.path)));
        if (!bar) {
          if (
            ocrBlocks(page, 60).some((b) => /^\S[^\n]*: \S+$/m.test(b.text) && b.text.split('\n').length > 1 && !im.drawnText.some((x) => b.text.includes(x)))
          )
            score.otherImagesWithPairs++;
          return;
        }
        score.charts++;
        const withSparse = read(page);
        const without = read({ ...page, sparseNumbers: null });
        d.slice(n).forEach((label, i) => {
          score.expected++;
          if (withSparse.get(label) === d[i]) score.right++;
          else if (withSparse.has(label)) score.wrong++;
          if (without.get(label) === d[i]) score.rightNoSparse++;
          else if (without.has(label)) score.wrongNoSparse++;
        });
      }),
    );
  } finally {
    await pool.close();
    if (!process.env.KF_OCR_DEMO_CACHE) fs.rmSync(cacheDir, { recursive: true, force: true });
  }
  t.diagnostic(
    JSON.stringify({
      ...score,
      accuracy: +(score.right / score.expected).toFixed(3),
      accuracyNoSparse: +(score.rightNoSparse / score.expected).toFixed(3),
      ocr: pool.stats,
    }),
  );
  assert.ok(score.charts > 0, 'the demo world has bar charts');
  assert.ok(score.right / score.expected >= 0.95, `only ${score.right}/${score.expected} pairs right`);
  assert.ok(score.wrong <= 0.02 * score.expected, `${score.wrong} wrong pairs`);
});
