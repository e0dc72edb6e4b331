/**
 * The offline backend on small hand-made materials: extractive QA (text
 * sentence, Markdown table row, OCR'd chart values, a bridge question needing
 * two blocks, comparisons, refusals), the checker's conventions, the judge, the
 * agent roles' plans, OCR-based reading, and the index roles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { ModelCache } from '../../lib/models/cache';
import { createModelRouter } from '../../lib/models/router';
import { decomposeQuestion, mediaToRead } from '../../lib/knowforge/offline/agent-policies';
import { checkFinal, extractShortAnswer, lastFinalAnswer } from '../../lib/knowforge/offline/checker';
import { extractPoints, typeRelations } from '../../lib/index/offline/knowledge-points';
import { openIE } from '../../lib/dualg/offline/openie';
import { parsePattern } from '../../lib/dualg/offline/pattern';
import { judge } from '../../lib/knowforge/offline/judge';
import { OcrService } from '../../lib/corpus/offline/ocr-service';
import { InProcessModel } from '../../lib/models/in-process';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';
import { extractAnswer, synthReply } from '../../lib/knowforge/offline/synth';
import type { Material, SynthTask } from '../../lib/knowforge/offline/tasks';
import { entities, questionKind, sentences } from '../../lib/util/text-rules';
import { isKfError } from '../../lib/util/errors';
import { tempDir } from './helpers';

registerOfflineHandlers();

const text = (n: number, t: string): Material => ({ n, kind: 'text', text: t });
const synth = (question: string, materials: Material[], extra: Partial<SynthTask> = {}): SynthTask => ({ role: 'synth', question, materials, ...extra });

test('text helpers: sentences keep decimals and initials; entities are capitalised phrases; question kinds', () => {
  assert.deepEqual(sentences('Revenue was 4.5 million in 2020. J. Smith led it. Then it grew.'), [
    'Revenue was 4.5 million in 2020.',
    'J. Smith led it.',
    'Then it grew.',
  ]);
  assert.deepEqual(entities('What year was the director of Inception born?'), ['Inception']);
  assert.deepEqual(entities('The University of Oxford hired Christopher Nolan in London.'), ['University of Oxford', 'Christopher Nolan', 'London']);
  assert.equal(questionKind('How many employees did Acme have?'), 'number');
  assert.equal(questionKind('In what year was X born?'), 'year');
  assert.equal(questionKind('Who directed Inception?'), 'name');
  assert.equal(questionKind('Was Acme founded before Globex?'), 'yes-no');
  assert.equal(questionKind('What is the capital of Freedonia?'), 'span');
});

test('extractive QA: a text sentence', () => {
  const reply = synthReply(
    synth('What is the capital of Freedonia?', [
      text(1, 'Freedonia is a small country. The capital of Freedonia is Fredville, a port city.'),
      text(2, 'Sylvania borders Freedonia.'),
    ]),
  );
  assert.equal(lastFinalAnswer(reply), 'Fredville');
  assert.match(reply, /\[1\] states: "The capital of Freedonia is Fredville/);
  const who = extractAnswer(synth('Who directed Inception?', [text(1, 'Inception is a 2010 science fiction film directed by Christopher Nolan.')]));
  assert.equal(who.value, 'Christopher Nolan');
  const many = extractAnswer(synth('How many employees did Acme have in 2020?', [text(4, 'In 2020, Acme had 5,400 employees across 12 countries.')]));
  assert.equal(many.value, '5,400');
});

test('extractive QA: a Markdown table row, the cell of the asked column', () => {
  const table =
    '| Company | Year | Revenue | Profit |\n|---|---|---|---|\n| Acme | 2020 | 4.1 | 0.3 |\n| Acme | 2021 | 5.2 | 0.9 |\n| Globex | 2021 | 7.9 | 1.1 |';
  const a = extractAnswer(synth('What was the revenue of Acme in 2021?', [{ n: 3, kind: 'table', text: table }]));
  assert.equal(a.value, '5.2');
  assert.equal(a.evidence[0].ref, '[fig 3]');
  const p = extractAnswer(synth('What was the profit of Globex in 2021?', [{ n: 3, kind: 'table', text: table }]));
  assert.equal(p.value, '1.1');
  // Structured table data works the same.
  const s = extractAnswer(
    synth('What was the revenue of Acme in 2020?', [
      {
        n: 1,
        kind: 'table',
        text: 'Table 1: results',
        table: {
          header: ['Company', 'Year', 'Revenue'],
          rows: [
            ['Acme', '2020', '4.1'],
            ['Acme', '2021', '5.2'],
          ],
        },
      },
    ]),
  );
  assert.equal(s.value, '4.1');
});

test("extractive QA: OCR'd chart values and reading notes", () => {
  const chart: Material = { n: 2, kind: 'image', text: 'A bar chart of revenue by year.', ocrText: 'Revenue 2020: 4.1\nRevenue 2021: 5.2\nProfit 2021: 0.9' };
  const reply = synthReply(synth('What was the revenue in 2021 according to the chart?', [text(1, 'The company reports yearly.'), chart]));
  assert.equal(lastFinalAnswer(reply), '5.2');
  assert.match(reply, /\[fig 2\]/);
  const withNote = extractAnswer(
    synth('What is the height of the Blue Tower?', [text(1, 'The Blue Tower stands in Lisbon.')], {
      notes: ['Where: line 2 of 3.\nAnswer: The Blue Tower height is 312 m'],
    }),
  );
  assert.equal(withNote.value, '312 m');
});

test('extractive QA: a bridge question needing two blocks', () => {
  const materials = [
    text(1, 'Inception is a 2010 science fiction film directed by Christopher Nolan.'),
    text(2, 'Interstellar was released in 2014.'),
    text(3, 'Christopher Nolan was born in London in 1970.'),
  ];
  const a = extractAnswer(synth('In what year was the director of Inception born?', materials));
  assert.equal(a.value, '1970');
  assert.deepEqual(
    a.evidence.map((u) => u.ref),
    ['[1]', '[3]'],
  );
  const reply = synthReply(synth('In what year was the director of Inception born?', materials));
  assert.match(reply, /\[1\].*\n\[3\]/s);
  assert.match(reply, /\nFINAL ANSWER: 1970$/);
});

test('extractive QA: yes/no by comparing extracted values, per convention casing', () => {
  const m = [text(1, 'Acme was founded in 1950 in Ohio.'), text(2, 'Globex was founded in 1962 in Texas.')];
  assert.equal(extractAnswer(synth('Was Acme founded before Globex?', m)).value, 'yes');
  assert.equal(extractAnswer(synth('Was Globex founded before Acme?', m)).value, 'no');
  assert.equal(extractAnswer(synth('Was Globex founded after Acme?', m, { convention: 'multihoprag' })).value, 'Yes');
  const h = [text(1, 'The Blue Tower is 312 m tall.'), text(2, 'The Red Tower is 280 m tall.')];
  assert.equal(extractAnswer(synth('Is the Blue Tower taller than the Red Tower?', h)).value, 'yes');
  assert.equal(extractAnswer(synth('Is Acme located in Ohio?', [text(1, 'Acme is located in Ohio.')])).value, 'yes');
});

test('extractive QA: refusal when nothing matches, per convention; m3docvqa never refuses', () => {
  const m = [text(1, 'Acme was founded in 1950 in Ohio by Jane Roe.')];
  assert.equal(lastFinalAnswer(synthReply(synth('Who painted the Mona Lisa?', m, { convention: 'mmlongbench' }))), 'Not answerable');
  assert.equal(lastFinalAnswer(synthReply(synth('Who painted the Mona Lisa?', m, { convention: 'multihoprag' }))), 'Insufficient information');
  assert.equal(lastFinalAnswer(synthReply(synth('Who painted the Mona Lisa?', [], { convention: 'generic' }))), 'Not answerable');
  const guess = extractAnswer(synth('Who founded the Ohio company?', m, { convention: 'm3docvqa' }));
  assert.equal(guess.refusal, false);
});

test('checker conventions: m3docvqa / mmlongbench / multihoprag / generic', () => {
  const c = (question: string, answer: string, convention: 'm3docvqa' | 'mmlongbench' | 'multihoprag' | 'generic') =>
    checkFinal({ role: 'checker', question, answer, convention });
  assert.equal(
    c('Who directed it?', 'It was directed by Christopher Nolan [1].\nFINAL ANSWER: The answer is Christopher Nolan.', 'm3docvqa'),
    'Christopher Nolan',
  );
  assert.equal(c('Who directed it?', 'The film was directed by Christopher Nolan, I think.\nFINAL ANSWER: Not answerable', 'm3docvqa'), 'Christopher Nolan');
  assert.equal(c('Is it red?', 'Yes, it is red.\nFINAL ANSWER: Yes', 'm3docvqa'), 'yes');
  assert.deepEqual(c('Which two cities host it?', 'Paris and Lyon [2].\nFINAL ANSWER: Paris and Lyon', 'm3docvqa'), ['Paris', 'Lyon']);
  assert.deepEqual(c('Which two cities host it?', 'FINAL ANSWER: ["Paris", "Lyon"]', 'generic'), ['Paris', 'Lyon']);
  assert.equal(c('What is the revenue?', 'The document does not mention revenue.\nFINAL ANSWER: not stated', 'mmlongbench'), 'Not answerable');
  assert.equal(c('Is it red?', 'FINAL ANSWER: NO', 'mmlongbench'), 'no');
  assert.equal(c('Who won?', 'The articles do not say.\nFINAL ANSWER: Not answerable', 'multihoprag'), 'Insufficient information');
  assert.equal(c('Did both report it?', 'Both did.\nFINAL ANSWER: yes', 'multihoprag'), 'Yes');
  assert.equal(c('What is it?', 'FINAL ANSWER: none', 'generic'), 'Not answerable');
  assert.equal(c('What is the area?', 'The area is 12 km2.', 'generic'), '12 km2');
});

test('scorer: MMLongBench-Doc answer extraction', () => {
  assert.deepEqual(extractShortAnswer({ role: 'scorer', question: 'q', response: 'blah\nFINAL ANSWER: 5.2' }), { answer: '5.2', format: 'Float' });
  assert.deepEqual(extractShortAnswer({ role: 'scorer', question: 'q', response: 'FINAL ANSWER: 1,200', answerFormat: 'Int' }), {
    answer: '1200',
    format: 'Integer',
  });
  assert.deepEqual(extractShortAnswer({ role: 'scorer', question: 'q', response: 'FINAL ANSWER: Not answerable' }), {
    answer: 'Not answerable',
    format: 'None',
  });
  assert.deepEqual(extractShortAnswer({ role: 'scorer', question: 'q', response: 'FINAL ANSWER: ["a", "b"]' }), { answer: '["a","b"]', format: 'List' });
  assert.deepEqual(extractShortAnswer({ role: 'scorer', question: 'q', response: 'FINAL ANSWER: the Blue Tower' }), { answer: 'Blue Tower', format: 'String' });
});

test('bridge judge: missing entities, the bridge hop, done; queries already run are dropped', () => {
  const q = 'In what year was the director of Inception born?';
  const empty = judge({ role: 'judge', question: q, queriesRun: [], pool: '' });
  assert.equal(empty.need_more, true);
  const missing = judge({ role: 'judge', question: q, queriesRun: [], pool: '[1] Interstellar was released in 2014.' });
  assert.equal(missing.need_more, true);
  assert.deepEqual(missing.bridge_entities, ['Inception']);
  assert.match(missing.queries[0], /^Inception/);
  const hop = judge({ role: 'judge', question: q, queriesRun: ['Inception director'], pool: '[1] Inception is a 2010 film directed by Christopher Nolan.' });
  assert.equal(hop.need_more, true);
  assert.deepEqual(hop.bridge_entities, ['Christopher Nolan']);
  assert.deepEqual(hop.queries, ['Christopher Nolan born']);
  assert.ok(hop.reason.length <= 200);
  const ran = judge({
    role: 'judge',
    question: q,
    queriesRun: ['christopher nolan BORN'],
    pool: '[1] Inception is a 2010 film directed by Christopher Nolan.',
  });
  assert.deepEqual(ran.queries, [], 'a query already run is dropped (case-insensitive)');
  const done = judge({
    role: 'judge',
    question: q,
    queriesRun: [],
    pool: '[1] Inception is a 2010 film directed by Christopher Nolan.\n[2] Christopher Nolan was born in London in 1970.',
  });
  assert.equal(done.need_more, false);
});

test('locator decomposition and reader media choice', () => {
  const qs = decomposeQuestion('In what year was the director of Inception born?');
  assert.deepEqual(qs, ['year director Inception born', 'Inception director born']);
  assert.equal(decomposeQuestion('Which river flows through Paris and Lyon?', 5).length, 3);
  const media = [
    { fragmentId: 'd#4', kind: 'image' as const, caption: 'Revenue by year, 2018-2021', label: 'Figure 2' },
    { fragmentId: 'd#9', kind: 'image' as const, caption: 'Company logo' },
    { fragmentId: 'd#7', kind: 'table' as const, caption: 'Revenue and profit by company', label: 'Table 1' },
  ];
  assert.deepEqual(
    mediaToRead('What was the revenue in 2021 in the figure?', media).map((m) => m.fragmentId),
    ['d#4', 'd#7'],
  );
});

test('index roles: sentence points, similar relations, OpenIE triples, query pattern', () => {
  const pts = extractPoints({
    role: 'extraction',
    fragments: [{ id: 'f1', text: 'Inception is a 2010 film directed by Christopher Nolan. Short one. It grossed over 800 million dollars worldwide.' }],
  });
  assert.equal(pts.points.length, 2);
  assert.equal(pts.points[0].fragment_id, 'f1');
  assert.match(pts.points[0].summary, /^Inception is a 2010 film/);
  assert.deepEqual(typeRelations({ role: 'relations', pairs: [{ from: 'a', to: 'b', similarity: 0.9 }] }).relations, [{ from: 'a', to: 'b', type: 'similar' }]);
  const tr = openIE({ role: 'openie', text: 'Inception was directed by Christopher Nolan. Christopher Nolan was born in London.' }).triples;
  assert.deepEqual(tr, [
    ['Inception', 'was directed by', 'Christopher Nolan'],
    ['Christopher Nolan', 'was born in', 'London'],
  ]);
  const pat = parsePattern({ role: 'pattern', question: 'What color is the logo of Acme?' });
  assert.deepEqual(pat.conditions, [['?x', 'color logo', 'Acme']]);
  assert.equal(pat.visual_budget, 2);
  assert.equal(parsePattern({ role: 'pattern', question: 'Who founded Acme?' }).visual_budget, 0);
});

test('offline model: replies as a real model would, labelled offline; incomplete tasks fail clearly', async () => {
  const m = new InProcessModel('synth');
  const res = await m.chat({
    stage: 'synth',
    messages: [{ role: 'user', content: 'prompt' }],
    task: synth('Who directed Inception?', [text(1, 'Inception was directed by Christopher Nolan.')]),
  });
  assert.equal(res.backend, 'offline');
  assert.equal(res.model, 'offline');
  assert.match(res.text, /FINAL ANSWER: Christopher Nolan$/);
  const j = await new InProcessModel('judge').chat({ stage: 'judge', messages: [], task: { question: 'Who directed Inception?', queriesRun: [], pool: '' } });
  assert.equal(JSON.parse(j.text).need_more, true);
  await assert.rejects(
    m.chat({ stage: 'synth', messages: [], task: { role: 'synth', question: 'q' } }),
    (e: unknown) => isKfError(e) && /has no "materials"/.test(e.message),
  );
  await assert.rejects(new InProcessModel('mystery').chat({ stage: 'mystery', messages: [] }), (e: unknown) => isKfError(e) && e.code === 'offline_no_task');
  const sc = await new InProcessModel('scorer').chat({ stage: 'scorer', messages: [], task: { role: 'scorer', question: 'q', response: 'FINAL ANSWER: 12' } });
  assert.equal(sc.text, 'Extracted answer: 12\nAnswer format: Integer');
  const cap = await new InProcessModel('caption').chat({
    stage: 'caption',
    messages: [],
    task: { role: 'caption', caption: 'Revenue by year', label: 'Figure 2', ocrText: 'Revenue 2021: 5.2' },
  });
  assert.equal(cap.text, 'Caption: Figure 2: Revenue by year\nText in image: Revenue 2021: 5.2');
});

test('vision: OCR (tesseract, offline) reads a rendered chart; answers where + one line; OCR cached by image hash', async () => {
  const dir = tempDir();
  const canvas = createCanvas(420, 150);
  const g = canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, 420, 150);
  g.fillStyle = '#000';
  g.font = '26px DejaVu Sans';
  g.fillText('Revenue 2020: 4.1', 12, 40);
  g.fillText('Revenue 2021: 5.2', 12, 85);
  g.fillText('Profit 2021: 0.9', 12, 130);
  const png = path.join(dir, 'chart.png');
  fs.writeFileSync(png, canvas.toBuffer('image/png'));
  const cache = ModelCache.open(path.join(dir, 'c.sqlite'));
  const ocr = new OcrService({ cache });
  const router = createModelRouter({}, { env: {}, resources: { ocr } });
  const vision = router.forStage('vision');
  const res = await vision.chat({ stage: 'vision', messages: [], task: { role: 'vision', question: 'What was the revenue in 2021?', image: { path: png } } });
  assert.equal(res.backend, 'offline');
  assert.match(res.text, /^Where: line 2 of 3 of the text in the image, middle part/);
  assert.match(res.text, /\nAnswer: Revenue 2021: 5\.2$/);
  const again = await vision.chat({ stage: 'vision', messages: [], task: { role: 'vision', question: 'What was the profit in 2021?', image: { path: png } } });
  assert.match(again.text, /Answer: Profit 2021: 0\.9/);
  assert.equal(ocr.recognized, 1, 'the second question re-used the OCR of the same image');
  await ocr.close();
  // A new service over the same cache file reads nothing again.
  const ocr2 = new OcrService({ cache });
  const r2 = await ocr2.read({ type: 'image', dataUrl: `data:image/png;base64,${fs.readFileSync(png).toString('base64')}` });
  assert.equal(ocr2.recognized, 0);
  assert.equal(r2.lines.length, 3);
  await ocr2.close();
  cache.close();
  await router.close();
  const blank = await new InProcessModel('vision').chat({ stage: 'vision', messages: [], task: { role: 'vision', question: 'q?', ocrText: '' } });
  assert.match(blank.text, /^Where: nowhere/);
  fs.rmSync(dir, { recursive: true, force: true });
});
