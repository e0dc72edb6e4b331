/**
 * Every question of the tiny world is answerable from its gold documents AS
 * RENDERED: each fact of its chain is found at its evidence location (Markdown/
 * HTML source text, the PDF page's text via pdfjs, or the drawn text of a gold
 * image), bridges are true bridges, unanswerable questions ask for something the
 * corpus never says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateWorld } from '../../lib/demo';
import { checkAnswerable } from './helpers';
import { nonEmpty } from '../_shared/non-empty';

test('tiny world (two seeds): every gold answer is stated at its gold evidence; bridges are true bridges', async () => {
  assert.equal(await checkAnswerable({ preset: 'tiny' }), 30);
  assert.equal(await checkAnswerable({ preset: 'tiny', seed: 'second-seed', questions: 40 }), 40);
});

test('tiny and default worlds cover every answer format, modality and hop count, with several templates per hop count', () => {
  const worlds = [{ preset: 'tiny' as const }, { preset: 'default' as const }, ...[1, 2, 3, 4, 5].map((seed) => ({ preset: 'tiny' as const, seed }))];
  for (const opts of worlds) {
    const preset = `${opts.preset}${'seed' in opts ? ` seed ${opts.seed}` : ''}`;
    const w = generateWorld(opts);
    const formats = new Set(w.questions.map((q) => q.format));
    for (const f of ['span', 'number', 'yes-no', 'list', 'unanswerable']) assert.ok(formats.has(f as never), `${preset}: has ${f} questions`);
    const mods = new Set(w.questions.flatMap((q) => q.modality));
    for (const m of ['text', 'table', 'image']) assert.ok(mods.has(m as never), `${preset}: has ${m} evidence`);
    for (const h of [1, 2, 3]) {
      const templates = new Set(w.questions.filter((q) => q.hops === h).map((q) => q.meta.template));
      assert.ok(templates.size >= 3, `${preset}: ${templates.size} templates with ${h} hops`);
    }
    assert.equal(new Set(w.questions.map((q) => q.id)).size, w.questions.length);
    assert.equal(new Set(w.questions.map((q) => q.question)).size, w.questions.length);
    assert.ok(nonEmpty(w.questions).every((q) => q.benchmark === 'demo'));
    // No question is about a distractor.
    const distractors = new Set(w.docs.filter((d) => d.role === 'distractor').map((d) => d.id));
    assert.ok(nonEmpty(w.questions).every((q) => q.goldDocs.every((d) => !distractors.has(d))));
  }
});
