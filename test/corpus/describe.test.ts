import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeFragments } from '../../lib/corpus/describe';
import { ingestMarkdown } from '../../lib/corpus/markdown';
import { OcrPool } from '../../lib/corpus/ocr';
import type { ChatRequest } from '../../lib/model-api/types';
import type { Fragment } from '../../lib/corpus/types';
import { byKind, DOCS, scratch } from './helpers';
import { textPng } from './pdf-fixtures';
import { nonEmpty } from '../_shared/non-empty';
import { fakeModel } from '../_shared/fake-model';

/** A scripted vision model: records every request, answers from a function (or throws). */
const visionModel = (answer: (req: ChatRequest) => string) => fakeModel(answer, 'fake-vlm');

async function harbor(): Promise<Fragment[]> {
  return (await ingestMarkdown(path.join(DOCS, 'guides', 'harbor.md'), { corpusRoot: DOCS })).fragments;
}

test('describe with a vision model: image sent as a ContentPart, structured task, describedBy vlm; originals untouched', async () => {
  const frags = await harbor();
  const before = JSON.stringify(frags);
  const model = visionModel((req) =>
    req.task?.kind === 'image' ? 'A bar chart with three blue bars; the middle bar is tallest.' : 'Grain is the largest cargo.',
  );
  const rep = await describeFragments(frags, { model, corpusRoot: DOCS, ocr: false });
  assert.equal(JSON.stringify(frags), before, 'input fragments are not mutated');

  const imgCall = model.calls.find((c) => c.task?.kind === 'image')!;
  assert.equal(imgCall.stage, 'caption');
  assert.equal(imgCall.task?.fragmentId, 'guides/harbor#2');
  assert.equal(imgCall.task?.label, 'Figure 1');
  const user = imgCall.messages.find((m) => m.role === 'user')!;
  assert.ok(Array.isArray(user.content));
  const part = (user.content as Exclude<typeof user.content, string>).find((p) => p.type === 'image');
  assert.deepEqual(part, { type: 'image', path: path.join(DOCS, 'assets', 'chart.png'), mime: 'image/png' });

  const tableCall = model.calls.find((c) => c.task?.kind === 'table')!;
  assert.deepEqual(tableCall.task?.header, ['Cargo', 'Tonnes', 'Share']);

  const img = rep.fragments.find((f) => f.id === 'guides/harbor#2')!;
  assert.equal(img.describedBy, 'vlm');
  assert.equal(img.text, 'Figure 1: Ships calling at Velm per year\nA bar chart with three blue bars; the middle bar is tallest.');
  assert.deepEqual(img.media, frags[2].media, 'the original asset is kept');
  const tbl = rep.fragments.find((f) => f.kind === 'table')!;
  assert.equal(tbl.describedBy, 'vlm');
  assert.match(tbl.text, /^Table 2: Cargo by type\nGrain is the largest cargo\.\n\| Cargo \| Tonnes \| Share \|/);
  // The image without a file cannot go to the model: it is described offline.
  const missing = rep.fragments.find((f) => f.kind === 'image' && !f.media)!;
  assert.equal(missing.describedBy, 'offline');
  assert.deepEqual(rep.described, { vlm: 2, offline: 1 });
  assert.equal(model.calls.length, 2);
  assert.ok(
    nonEmpty(rep.fragments.filter((f) => f.kind === 'text')).every(
      (f, i) => f === rep.fragments.filter((x) => x.kind === 'text')[i] && f.describedBy === undefined,
    ),
  );
});

test('describe: a failing model never loses a fragment (offline fallback, failure reported); stage is configurable', async () => {
  const frags = await harbor();
  const model = visionModel(() => {
    throw new Error('HTTP 503 from the endpoint');
  });
  const rep = await describeFragments(frags, { model, stage: 'vision', corpusRoot: DOCS, ocr: false });
  assert.ok(nonEmpty(model.calls).every((c) => c.stage === 'vision'));
  assert.equal(rep.failures.length, 2);
  assert.match(rep.failures[0].error, /HTTP 503/);
  assert.ok(nonEmpty(rep.fragments.filter((f) => f.kind === 'image' || f.kind === 'table')).every((f) => f.describedBy === 'offline'));
});

test('describe offline: caption + OCR text of the asset + table header/first rows', async () => {
  const dir = scratch('describe');
  fs.mkdirSync(path.join(dir, 'img'));
  fs.writeFileSync(path.join(dir, 'img', 'sign.png'), textPng(['HARBOR OFFICE', 'OPEN DAILY']));
  fs.writeFileSync(
    path.join(dir, 'd.md'),
    '# D\n\nThe office sign:\n\n![sign](img/sign.png)\n*Figure 4: The harbor office sign*\n\n| Day | Hours |\n| --- | --- |\n| Mon | 8-16 |\n| Tue | 8-16 |\n',
  );
  const r = await ingestMarkdown(path.join(dir, 'd.md'), { corpusRoot: dir });
  const pool = new OcrPool({ cacheDir: path.join(dir, 'ocr') });
  try {
    const rep = await describeFragments(r.fragments, { corpusRoot: dir, ocr: pool });
    const [img] = byKind({ ...r, fragments: rep.fragments }, 'image');
    assert.equal(img.describedBy, 'offline');
    assert.match(img.text, /^Figure 4: The harbor office sign\nText in the image: HARBOR OFFICE/);
    assert.match(img.ocrText ?? '', /OPEN DAILY/);
    const [t] = byKind({ ...r, fragments: rep.fragments }, 'table');
    assert.match(t.text, /^Columns: Day; Hours\. First rows: Mon, 8-16 \/ Tue, 8-16\. 2 rows x 2 columns\.\n\| Day \| Hours \|/);
    assert.equal(pool.stats.recognised, 1);
  } finally {
    await pool.close();
  }
});
