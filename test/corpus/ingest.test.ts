import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ingestDirectory, ingestDirectoryStream, ingestFile, listCorpusFiles } from '../../lib/corpus/ingest';
import { command as ingestCommand } from '../../lib/cli/commands/ingest';
import { KfError } from '../../lib/util/errors';
import type { IngestResult } from '../../lib/corpus/types';
import { assertWellFormed, DOCS, scratch } from './helpers';
import { encryptedPdf, reportPdf } from './pdf-fixtures';
import { commandContext } from '../../lib/cli/command-context';

function copyDir(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}

test('ingestDirectory: every supported file, per-document isolation, duplicates skipped, escaping links refused', async () => {
  const root = scratch('dir');
  const corpus = path.join(root, 'corpus');
  copyDir(DOCS, corpus);
  fs.writeFileSync(path.join(corpus, 'report.pdf'), await reportPdf());
  fs.mkdirSync(path.join(corpus, 'bad'));
  fs.writeFileSync(path.join(corpus, 'bad', 'broken.pdf'), '%PDF-1.7\nnot really');
  fs.writeFileSync(path.join(corpus, 'bad', 'locked.pdf'), await encryptedPdf());
  fs.writeFileSync(path.join(corpus, 'bad', 'empty.md'), '');
  fs.writeFileSync(path.join(corpus, 'bad', 'blank.html'), '  \n\t ');
  fs.copyFileSync(path.join(corpus, 'notes.txt'), path.join(corpus, 'notes2.txt'));
  fs.writeFileSync(path.join(corpus, 'ignored.docx'), 'x');
  fs.writeFileSync(path.join(root, 'outside.md'), '# Outside\n\nSecret.');
  fs.symlinkSync(path.join(root, 'outside.md'), path.join(corpus, 'link-out.md'));
  fs.symlinkSync(path.join(corpus, 'notes.txt'), path.join(corpus, 'z-link.txt'));

  const rep = await ingestDirectory(corpus, { assetsDir: path.join(root, 'assets'), ocr: 'off' });
  const byDoc = new Map(rep.results.map((r) => [r.doc?.id ?? r.issues[0]?.doc, r]));
  const good = ['cafe-declared', 'cafe-undeclared', 'guides/harbor', 'market', 'notes', 'report'];
  for (const id of good) {
    const r = byDoc.get(id)!;
    assert.ok(r?.doc, `${id} ingested`);
    assertWellFormed(r);
  }
  const issue = (id: string) => byDoc.get(id)!.issues[0];
  assert.equal(issue('bad/broken').code, 'pdf_corrupt');
  assert.equal(issue('bad/locked').code, 'pdf_encrypted');
  assert.equal(issue('bad/empty').code, 'empty');
  assert.equal(issue('bad/blank').code, 'empty');
  assert.ok(['bad/broken', 'bad/locked', 'bad/empty', 'bad/blank'].every((id) => !byDoc.get(id)!.doc && issue(id).severity === 'error'));
  // Duplicates: the later path (sorted order) is reported and skipped; so is the in-corpus link to the same file.
  const dups = rep.results.filter((r) => r.issues.some((i) => i.code === 'duplicate'));
  assert.deepEqual(dups.map((r) => r.issues[0].doc).sort(), ['notes2', 'z-link']);
  assert.equal(rep.duplicates, 2);
  assert.match(issue('notes2').message, /same content .* as notes\.txt/);
  // The link leaving the corpus is refused, the docx is not a corpus file.
  assert.equal(issue('link-out').code, 'path_escape');
  assert.ok(!byDoc.has('ignored'));
  assert.equal(rep.documents, good.length);
  assert.ok(rep.errors >= 5);

  // The stream yields the same results in the same (sorted) order.
  const streamed: IngestResult[] = [];
  for await (const r of ingestDirectoryStream(corpus, { assetsDir: path.join(root, 'assets'), ocr: 'off' })) streamed.push(r);
  assert.deepEqual(
    streamed.map((r) => r.fragments.map((f) => f.id)),
    rep.results.map((r) => r.fragments.map((f) => f.id)),
  );
  assert.deepEqual(
    streamed.map((r) => r.fragments),
    rep.results.map((r) => r.fragments),
    'stable across runs',
  );
});

test('listCorpusFiles: sorted, hidden folders skipped; a missing folder is a clear error', () => {
  const { files } = listCorpusFiles(DOCS);
  assert.deepEqual(
    files.map((f) => f.rel),
    ['cafe-declared.html', 'cafe-undeclared.htm', 'guides/harbor.md', 'market.html', 'notes.txt'],
  );
  assert.throws(
    () => listCorpusFiles(path.join(DOCS, 'nope')),
    (e: unknown) => e instanceof KfError && e.code === 'corpus_missing',
  );
});

test('ingestFile: unsupported extension throws a KfError; a missing file is an issue', async () => {
  await assert.rejects(ingestFile('/tmp/x.docx'), (e: unknown) => e instanceof KfError && e.code === 'unsupported_format' && /\.md/.test(e.hint));
  const r = await ingestFile(path.join(DOCS, 'missing.md'));
  assert.equal(r.doc, undefined);
  assert.equal(r.issues[0].code, 'file_missing');
});

test('kf ingest: writes fragments/documents/report and prints a per-document report', async () => {
  const out = scratch('cli');
  const lines: string[] = [];
  const orig = console.log;
  console.log = (...a: unknown[]) => {
    lines.push(a.join(' '));
  };
  let code: number | void;
  try {
    code = await ingestCommand.run(
      { values: { out, json: false, fragments: true, ocr: 'off', cache: path.join(out, 'ocr') }, positionals: [DOCS] },
      commandContext(),
    );
  } finally {
    console.log = orig;
  }
  assert.equal(code, 0);
  const frags = fs
    .readFileSync(path.join(out, 'fragments.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const docs = fs
    .readFileSync(path.join(out, 'documents.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(docs.length, 5);
  assert.ok(frags.some((f) => f.id === 'guides/harbor#2' && f.label === 'Figure 1'));
  const report = JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'));
  assert.equal(report.documents.length, 5);
  assert.ok(lines.some((l) => l.startsWith('guides/harbor (markdown)')));
  assert.ok(lines.some((l) => l.includes('[missing_media]')));
  await assert.rejects(
    ingestCommand.run({ values: {}, positionals: [path.join(out, 'nope')] }, commandContext()),
    (e: unknown) => e instanceof KfError && e.code === 'path_missing',
  );
});
