/**
 * demoFragments: the scaling path (no files). Exact count, deterministic, well
 * linked, and its questions answerable from its own fragments.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoFragments, documentFragments, generateWorld, FRAGMENTS_PER_DOC } from '../../lib/demo';
import type { Fragment } from '../../lib/corpus/types';
import { containsWord } from './helpers';

test('demoFragments yields exactly N fragments, deterministically, with consistent links', () => {
  const a = demoFragments({ fragments: 6000 });
  const b = demoFragments({ fragments: 6000 });
  assert.equal(a.fragments.length, 6000);
  assert.deepEqual(a.fragments, b.fragments);
  assert.deepEqual(a.questions, b.questions);
  assert.equal(a.documents.length, Math.round(6000 / FRAGMENTS_PER_DOC));
  const c = demoFragments({ fragments: 6000, seed: 'other' });
  assert.notDeepEqual(
    c.fragments.map((f) => f.text),
    a.fragments.map((f) => f.text),
  );

  const byId = new Map<string, Fragment>();
  for (const f of a.fragments) {
    assert.ok(!byId.has(f.id), `duplicate id ${f.id}`);
    byId.set(f.id, f);
    assert.equal(f.id, `${f.docId}#${f.ordinal}`);
    assert.ok(f.text.length > 0, `${f.id} has text`);
    assert.equal(f.section.length, 2);
  }
  const docs = new Map(a.documents.map((d) => [d.id, d]));
  const kinds = new Set<string>();
  for (const f of a.fragments) {
    kinds.add(f.kind);
    const d = docs.get(f.docId)!;
    assert.ok(d, `${f.id}: document is listed`);
    if (d.format === 'pdf') assert.ok(f.page! >= 1 && f.page! <= d.pages, `${f.id}: page in range`);
    else assert.equal(f.page, undefined);
    if (f.prev) assert.equal(byId.get(f.prev)!.next, f.id);
    if (f.next) assert.equal(byId.get(f.next)!.prev, f.id);
    if (f.ordinal === 0) assert.equal(f.prev, undefined);
    for (const m of f.attached) assert.equal(byId.get(m)!.anchor, f.id);
    if (f.kind === 'image') {
      assert.ok(f.media && f.media.path.startsWith('assets/') && f.media.mime === 'image/png');
      assert.ok(f.ocrText && f.caption && /^Figure \d+$/.test(f.label!) && f.describedBy === 'offline');
      assert.ok(f.anchor && byId.get(f.anchor)!.attached.includes(f.id), `${f.id}: attached to its anchor`);
    }
    if (f.kind === 'table') assert.ok(f.table && f.table.rows.length > 0 && /^Table \d+$/.test(f.label!));
  }
  for (const k of ['text', 'image', 'table', 'example']) assert.ok(kinds.has(k), `has ${k} fragments`);

  // Questions: gold documents exist, and each chain value is in the gold document's fragments (text or OCR text).
  assert.ok(a.questions.length > 0);
  const docText = new Map<string, string>();
  for (const f of a.fragments) docText.set(f.docId, (docText.get(f.docId) ?? '') + '\n' + f.text + '\n' + (f.ocrText ?? ''));
  for (const q of a.questions) {
    for (const g of q.goldDocs) assert.ok(docs.has(g), `${q.id}: gold doc ${g} exists`);
    for (const step of q.meta.chain as { doc: string; value: string | string[] }[]) {
      for (const v of ([] as string[]).concat(step.value)) assert.ok(containsWord(docText.get(step.doc)!, v), `${q.id}: "${v}" in ${step.doc}`);
    }
    for (const e of q.evidence) {
      if (e.page === undefined) continue;
      const onPage = a.fragments.filter((f) => f.docId === e.doc && f.page === e.page);
      assert.ok(onPage.length > 0, `${q.id}: fragments on ${e.doc} p.${e.page}`);
    }
  }
});

test('demoFragments and generateWorld agree on fact-bearing content and questions', () => {
  const fr = demoFragments({ fragments: 3000, documents: 40, questions: 25 });
  const w = generateWorld({ preset: 'scale', documents: 40, questions: 25, paragraphs: 0 });
  assert.deepEqual(fr.questions, w.questions);
  const fromWorld: Fragment[] = [];
  for (const d of w.docs) documentFragments(d, fromWorld);
  // Same fact blocks, same ids; the fragment path only adds filler after them.
  const frById = new Map(fr.fragments.map((f) => [f.id, f]));
  for (const f of fromWorld) {
    const g = frById.get(f.id)!;
    assert.ok(g, `${f.id} present in demoFragments`);
    assert.equal(g.text, f.text);
    assert.equal(g.page, f.page);
  }
});

test('demoFragments rejects impossible sizes with an actionable error', () => {
  assert.throws(() => demoFragments({ fragments: 0 }), /fragments=0/);
  assert.throws(() => demoFragments({ fragments: 50, documents: 40 }), /need at least \d+ fragments/);
  // Without an explicit document count a small N shrinks the world instead.
  const small = demoFragments({ fragments: 400 });
  assert.equal(small.fragments.length, 400);
});
