import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ingestMarkdown, inlineToText } from '../../lib/corpus/markdown';
import { ingestText } from '../../lib/corpus/plaintext';
import { ingestFile } from '../../lib/corpus/ingest';
import { assertWellFormed, byKind, DOCS, scratch } from './helpers';
import { nonEmpty } from '../_shared/non-empty';

const HARBOR = path.join(DOCS, 'guides', 'harbor.md');

test('markdown: sections, image + italic caption, captioned pipe table, worked example', async () => {
  const r = await ingestMarkdown(HARBOR, { corpusRoot: DOCS });
  assertWellFormed(r);
  assert.equal(r.doc?.id, 'guides/harbor');
  assert.equal(r.doc?.title, 'The Harbor Guide', 'front matter title wins');
  assert.equal(r.doc?.format, 'markdown');
  assert.equal(r.doc?.sha256.length, 64);

  const [chart, missing] = byKind(r, 'image');
  assert.equal(chart.label, 'Figure 1');
  assert.equal(chart.caption, 'Figure 1: Ships calling at Velm per year');
  assert.deepEqual(chart.media, { path: 'assets/chart.png', mime: 'image/png', origin: 'file', width: 160, height: 100 });
  assert.deepEqual(chart.section, ['Harbor of Velm', 'Traffic']);
  assert.ok(!r.fragments.some((f) => f.kind === 'text' && f.text.includes('Ships calling')), 'the caption line is not repeated as prose');

  const [table] = byKind(r, 'table');
  assert.equal(table.label, 'Table 2');
  assert.deepEqual(table.table?.header, ['Cargo', 'Tonnes', 'Share']);
  assert.deepEqual(table.table?.rows[2], ['Salt | brine', '8,800', '29%'], 'escaped pipe stays in its cell');
  assert.match(table.text, /^Table 2: Cargo by type\n\| Cargo \| Tonnes \| Share \|\n\| --- \| --- \| --- \|/);

  // Both media of "Traffic" hang on the paragraph before them.
  const traffic = r.fragments.find((f) => f.text.startsWith('The harbor saw steady growth'))!;
  assert.deepEqual(traffic.attached, [chart.id, table.id]);
  assert.ok(!traffic.text.includes('**') && traffic.text.includes('port authority reports'), 'inline markup is removed');

  const [ex] = byKind(r, 'example');
  assert.match(ex.text, /^Worked example: a ship of 2,000 tonnes/);
  assert.match(ex.text, /- ships under 100 tonnes are exempt/, 'the list right after the example belongs to it');
  assert.deepEqual(ex.section, ['Harbor of Velm', 'Tariffs']);
  assert.deepEqual(r.fragments.find((f) => f.text.startsWith('Fishing boats'))!.section, ['Harbor of Velm', 'Tariffs', 'Exemptions']);

  // A missing image file: the fragment stays (no media), a warning says which file.
  assert.equal(missing.media, undefined);
  assert.equal(missing.text, 'A missing photo');
  const w = r.issues.find((i) => i.code === 'missing_media');
  assert.ok(w && w.severity === 'warning' && w.message.includes('no-such-photo.png'));
  // No preceding prose in its section: it attaches to the paragraph after it.
  assert.equal(missing.anchor, r.fragments[missing.ordinal + 1].id);
});

test('markdown: ids and content are stable across runs', async () => {
  const a = await ingestFile(HARBOR, { corpusRoot: DOCS });
  const b = await ingestFile(HARBOR, { corpusRoot: DOCS });
  assert.deepEqual(a.fragments, b.fragments);
  assert.deepEqual(a.doc, b.doc);
});

test('markdown: long prose is split into bounded fragments at sentence boundaries', async () => {
  const dir = scratch('md-long');
  const sentence = (i: number) => `Sentence number ${i} talks about the harbor of Velm and its long history of trade.`;
  const para = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');
  const short = Array.from({ length: 12 }, (_, i) => `Short paragraph ${i} about salt.`).join('\n\n');
  fs.writeFileSync(path.join(dir, 'long.md'), `# Long\n\n${para}\n\n${short}\n`);
  const r = await ingestMarkdown(path.join(dir, 'long.md'), { corpusRoot: dir });
  assertWellFormed(r);
  const texts = byKind(r, 'text');
  assert.ok(texts.length >= 4);
  for (const f of texts) {
    assert.ok(f.text.length <= 1500, `fragment of ${f.text.length} chars`);
    assert.match(f.text, /[.]$/, 'cut at a sentence end');
  }
  // Nothing lost: every sentence appears exactly once.
  const all = texts.map((f) => f.text).join(' ');
  for (let i = 0; i < 60; i++) assert.equal(all.split(sentence(i)).length - 1, 1);
  // Short paragraphs are packed together rather than one fragment each.
  assert.ok(texts.length < 12);
  const custom = await ingestMarkdown(path.join(dir, 'long.md'), { corpusRoot: dir, fragmentChars: { target: 300, max: 400 } });
  assert.ok(nonEmpty(byKind(custom, 'text')).every((f) => f.text.length <= 400));
});

test('markdown: a gigantic table is truncated with the full row count kept', async () => {
  const dir = scratch('md-giant');
  const rows = Array.from({ length: 5000 }, (_, i) => `| row ${i} | ${i * 3} |`).join('\n');
  fs.writeFileSync(path.join(dir, 'giant.md'), `# Giant\n\nTable 1: All rows\n\n| name | value |\n| --- | --- |\n${rows}\n`);
  const r = await ingestMarkdown(path.join(dir, 'giant.md'), { corpusRoot: dir, maxTableRows: 100 });
  const [t] = byKind(r, 'table');
  assert.equal(t.table?.rows.length, 100);
  assert.equal(t.table?.truncated, true);
  assert.equal(t.table?.rowCount, 5000);
  assert.equal(t.label, 'Table 1');
  assert.ok(t.text.length <= 3000, 'the retrieval text stays bounded');
  assert.match(t.text, /more rows not shown; 5000 rows in all/);
  assert.ok(r.issues.some((i) => i.code === 'table_truncated' && i.severity === 'warning'));
});

test('markdown: image paths escaping the corpus are refused, the fragment is kept', async () => {
  const dir = scratch('md-escape');
  fs.mkdirSync(path.join(dir, 'corpus'));
  fs.writeFileSync(path.join(dir, 'secret.png'), 'not for you');
  fs.writeFileSync(
    path.join(dir, 'corpus', 'a.md'),
    '# A\n\nText.\n\n![up](../secret.png)\n*Figure 1: Up*\n\n![abs](/etc/hostname)\n\n![remote](https://example.org/x.png)\n',
  );
  const r = await ingestMarkdown(path.join(dir, 'corpus', 'a.md'), { corpusRoot: path.join(dir, 'corpus') });
  const imgs = byKind(r, 'image');
  assert.equal(imgs.length, 3);
  assert.ok(nonEmpty(imgs).every((f) => f.media === undefined));
  assert.equal(imgs[0].label, 'Figure 1');
  assert.equal(r.issues.filter((i) => i.code === 'path_escape').length, 1, '../ escape');
  assert.ok(
    r.issues.some((i) => i.code === 'missing_media' && i.message.includes('etc/hostname')),
    'a leading / is corpus-root relative, never the real /etc',
  );
  assert.ok(r.issues.some((i) => i.code === 'remote_media'));
});

test('markdown: setext headings, code fences and table caption below the table', async () => {
  const dir = scratch('md-misc');
  fs.writeFileSync(
    path.join(dir, 'm.md'),
    'Title Here\n==========\n\nIntro text.\n\nPart A\n------\n\n```\n# not a heading\ncode()\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nTable 4: Below the table\n',
  );
  const r = await ingestMarkdown(path.join(dir, 'm.md'), { corpusRoot: dir });
  assert.equal(r.doc?.title, 'Title Here');
  const code = r.fragments.find((f) => f.text.includes('code()'))!;
  assert.deepEqual(code.section, ['Title Here', 'Part A']);
  assert.ok(code.text.includes('# not a heading'));
  const [t] = byKind(r, 'table');
  assert.equal(t.label, 'Table 4');
  assert.equal(t.caption, 'Table 4: Below the table');
});

test('markdown: inline markup to text', () => {
  assert.equal(
    inlineToText('**bold** and *it* and _em_ and `code` and [link](http://x.y/(a)) and snake_case_name'),
    'bold and it and em and code and link and snake_case_name',
  );
  assert.equal(inlineToText('a &amp; b \\* c'), 'a & b * c');
});

test('text files: paragraphs and worked examples; latin1 bytes are decoded with a warning', async () => {
  const r = await ingestText(path.join(DOCS, 'notes.txt'), { corpusRoot: DOCS });
  assertWellFormed(r);
  assert.equal(r.doc?.format, 'text');
  assert.deepEqual(
    r.fragments.map((f) => f.kind),
    ['text', 'example'],
  );
  const dir = scratch('txt-latin1');
  fs.writeFileSync(path.join(dir, 'l.md'), Buffer.from('# Caf\xe9\n\nNa\xefve text.\n', 'latin1'));
  const l = await ingestMarkdown(path.join(dir, 'l.md'), { corpusRoot: dir });
  assert.equal(l.doc?.title, 'Café');
  assert.equal(l.fragments[0].text, 'Naïve text.');
  assert.ok(l.issues.some((i) => i.code === 'charset' && i.severity === 'warning'));
});
