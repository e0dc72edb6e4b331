import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ingestHtml } from '../../lib/corpus/html';
import { parseHtml, tokenizeHtml, findAll, isElement } from '../../lib/corpus/html-parser';
import { decodeEntities } from '../../lib/corpus/html-entities';
import { decodeBytes } from '../../lib/corpus/charset';
import { assertWellFormed, byKind, DOCS, scratch } from './helpers';

test('html tokenizer: quoted ">" in attributes, comments, raw script text, void and self-closing tags', () => {
  const toks = tokenizeHtml('<a title="x > y" href=/p?q=1&amp;r=2>t</a><!-- <b>no</b> --><script>if (a<b) {}</script><br/><img src=x.png>');
  assert.deepEqual(toks[0], { type: 'start', name: 'a', attrs: { title: 'x > y', href: '/p?q=1&r=2' }, selfClosing: false });
  assert.deepEqual(toks[1], { type: 'text', text: 't' });
  assert.ok(!toks.some((t) => t.type === 'start' && t.name === 'b'), 'comments are skipped');
  assert.ok(
    toks.some((t) => t.type === 'text' && t.text === 'if (a<b) {}'),
    'script body is raw text',
  );
  assert.ok(toks.some((t) => t.type === 'start' && t.name === 'br' && t.selfClosing));
  assert.equal(decodeEntities('&lt;&#233;&#xe9;&eacute;&nbsp;&unknown;&#150;'), '<ééé\u00a0&unknown;–');
});

test('html tree: implied end tags for <p>, <li>, <td>, <tr>; stray end tags are ignored', () => {
  const root = parseHtml('<ul><li>a<li>b</ul><p>one<p>two</span><table><tr><td>1<td>2<tr><td>3</table>');
  const lis = findAll(root, ['li']);
  assert.equal(lis.length, 2);
  assert.deepEqual(
    lis.map((l) => l.children[0]),
    ['a', 'b'],
  );
  assert.equal(findAll(root, ['p']).length, 2);
  const trs = findAll(root, ['tr']);
  assert.equal(trs.length, 2);
  assert.equal(trs[0].children.filter(isElement).length, 2);
});

test('html: figure/figcaption, captioned table, example div, lists, br, dropped nav/script/style/hidden', async () => {
  const r = await ingestHtml(path.join(DOCS, 'market.html'), { corpusRoot: DOCS });
  assertWellFormed(r);
  assert.equal(r.doc?.title, 'Market of Velm & Surroundings');
  assert.equal(r.doc?.format, 'html');
  const all = r.fragments.map((f) => f.text).join('\n');
  for (const gone of ['Home', 'not text', 'color: red', 'Hidden text', 'Also hidden', 'markup']) assert.ok(!all.includes(gone), `"${gone}" is dropped`);
  assert.ok(all.includes('The market opens at 6 am — every day except Sunday. Prices are in crédits € A.\nSecond line after a break.'));
  assert.ok(all.includes('- Fish stalls\n\n- Bread stalls'), 'list items keep a marker');

  const [fig, escaped] = byKind(r, 'image');
  assert.equal(fig.label, 'Figure 2');
  assert.equal(fig.caption, 'Figure 2: Stall counts by kind');
  assert.equal(fig.media?.path, 'assets/chart.png');
  assert.match(fig.text, /Bar chart of stall counts/, 'alt text joins the caption');

  const [t] = byKind(r, 'table');
  assert.equal(t.label, 'Table 1');
  assert.deepEqual(t.table?.header, ['Kind', 'Fee']);
  assert.deepEqual(
    t.table?.rows,
    [
      ['Fish', '12'],
      ['Bread', '8'],
      ['Spice inner cell', ''],
    ],
    'nested table flattened into its cell; colspan padded',
  );
  assert.equal(t.anchor, r.fragments.find((f) => f.text === 'Stall fees are listed below.')!.id);

  const [ex] = byKind(r, 'example');
  assert.equal(ex.text, 'Worked example: two fish stalls cost 2 x 12 = 24 credits.');
  // A layout table (role=presentation) is read as flow.
  assert.ok(r.fragments.some((f) => f.kind === 'text' && f.text === 'The layout cell holds a paragraph about the market hall.'));
  // <img> escaping the corpus: fragment kept with its italic caption, no media, a path_escape issue.
  assert.equal(escaped.media, undefined);
  assert.equal(escaped.label, 'Figure 3');
  assert.ok(r.issues.some((i) => i.code === 'path_escape'));
});

test('html: <meta charset> is honoured; undeclared non-UTF-8 falls back to windows-1252 with a warning', async () => {
  const declared = await ingestHtml(path.join(DOCS, 'cafe-declared.html'), { corpusRoot: DOCS });
  assert.equal(declared.doc?.title, 'Café');
  assert.equal(declared.fragments[0].text, 'Price: 5 € per cup – fresh.');
  assert.deepEqual(declared.fragments[0].section, ['Café Müller']);
  assert.equal(declared.issues.length, 0);
  assert.equal(declared.doc?.meta.encoding, 'windows-1252');

  const guessed = await ingestHtml(path.join(DOCS, 'cafe-undeclared.htm'), { corpusRoot: DOCS });
  assert.equal(guessed.fragments[0].text, 'Price: 5 € per cup – fresh.');
  const w = guessed.issues.find((i) => i.code === 'charset');
  assert.ok(w && w.severity === 'warning' && /windows-1252/.test(w.message));

  // A wrong declaration (says UTF-8, is latin1) is caught too; real UTF-8 is left alone.
  assert.match(decodeBytes(Buffer.from('<meta charset="utf-8"><p>caf\xe9</p>', 'latin1'), { html: true }).warning ?? '', /declared charset "utf-8"/);
  assert.equal(decodeBytes(Buffer.from('<meta charset="utf-8"><p>café</p>', 'utf8'), { html: true }).warning, undefined);
  assert.equal(decodeBytes(Buffer.from([0xef, 0xbb, 0xbf, 0x41])).text, 'A', 'UTF-8 BOM');
});

test('html: <img> followed by a caption paragraph, table caption paragraph above a table, deep nesting', async () => {
  const dir = scratch('html-misc');
  const deep = '<div>'.repeat(300) + 'deep text' + '</div>'.repeat(300);
  fs.writeFileSync(
    path.join(dir, 'x.html'),
    `<h1>X</h1><p>Intro.</p><p><a href="big.png"><img src="pic.png" alt="A picture"></a></p><p>Figure 7: A caption line</p>` +
      `<p>Table 3: Numbers</p><table><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></table>${deep}<p>unclosed <b>bold <i>italic`,
  );
  fs.writeFileSync(path.join(dir, 'pic.png'), fs.readFileSync(path.join(DOCS, 'assets', 'chart.png')));
  const r = await ingestHtml(path.join(dir, 'x.html'), { corpusRoot: dir });
  assertWellFormed(r);
  const [img] = byKind(r, 'image');
  assert.equal(img.label, 'Figure 7');
  assert.equal(img.media?.path, 'pic.png');
  const [t] = byKind(r, 'table');
  assert.equal(t.label, 'Table 3');
  assert.deepEqual(t.table?.header, ['a', '1'], 'no <th>: the first row is the header');
  // Consecutive paragraphs of a section are packed into one text fragment.
  assert.ok(r.fragments.some((f) => f.kind === 'text' && f.text.endsWith('deep text\n\nunclosed bold italic')));
  assert.ok(!r.fragments.some((f) => f.kind === 'text' && /Figure 7|Table 3/.test(f.text)), 'captions are not repeated as prose');
});
