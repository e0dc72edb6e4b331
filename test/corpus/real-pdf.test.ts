import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ingestFile } from '../../lib/corpus/ingest';
import { benchDir } from '../../lib/util/paths';
import { assertWellFormed, byKind, scratch } from './helpers';
import { nonEmpty } from '../_shared/non-empty';

// One real, small text PDF from MMLongBench-Doc (an ACL-style two-column paper, 24 pages).
const DOCS = benchDir('mmlongbench-doc', 'documents');
const FILE = path.join(DOCS, '2310.05634v2.pdf');

test('real PDF (MMLongBench-Doc 2310.05634v2): every page accounted, sections, figures, tables, bounded fragments', async (t) => {
  if (!fs.existsSync(FILE)) {
    t.skip(`benchmark PDF not found at ${FILE} (../shared/bench is absent; set KF_SHARED to run this test)`);
    return;
  }
  const assetsDir = path.join(scratch('real-pdf'), 'assets');
  const r = await ingestFile(FILE, { corpusRoot: DOCS, assetsDir, ocr: 'off' });
  assertWellFormed(r);
  assert.equal(r.doc?.id, '2310.05634v2');
  assert.match(r.doc!.title, /Verifiable Generation/);
  assert.equal(r.doc?.pages, 24);
  assert.deepEqual(
    r.pages?.map((p) => p.page),
    Array.from({ length: 24 }, (_, i) => i + 1),
  );
  assert.ok(nonEmpty(r.pages!).every((p) => p.source === 'text' && p.chars > 100));
  assert.ok(
    r.issues.every((i) => i.severity !== 'error'),
    'no error issues',
  );

  const texts = byKind(r, 'text');
  assert.ok(texts.length >= 60, `${texts.length} text fragments`);
  assert.ok(nonEmpty(texts).every((f) => f.text.length <= 1500));
  assert.ok(
    nonEmpty(r.fragments).every((f, i) => i === 0 || (f.page ?? 0) >= (r.fragments[i - 1].page ?? 0)),
    'page order',
  );
  assert.ok(r.fragments.some((f) => f.section.includes('1 Introduction')));
  assert.ok(texts.some((f) => f.text.includes('knowledge graph')));

  const figs = byKind(r, 'image');
  assert.ok(figs.length >= 3);
  assert.ok(nonEmpty(figs).every((f) => f.media && fs.existsSync(path.join(assetsDir, f.media.path))));
  const fig2 = figs.find((f) => f.label === 'Figure 2');
  assert.equal(fig2?.page, 5);

  const tables = byKind(r, 'table');
  assert.ok(tables.length >= 5);
  assert.ok(nonEmpty(tables).every((f) => f.table!.header.length >= 2 && f.table!.rows.every((row) => row.length === f.table!.header.length)));
  assert.equal(tables.find((f) => f.label === 'Table 2')?.page, 3);
  // Media hang on prose of their own section.
  assert.ok([...figs, ...tables].filter((f) => f.anchor).length >= 0.8 * (figs.length + tables.length));
});
