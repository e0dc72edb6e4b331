/**
 * The offline extractive reader (lib/knowforge/offline/{question,evidence,reader}.ts)
 * on small hand-made materials: question analysis, evidence facts (attribute
 * tables, OCR key-value cards, chart series), table rows by year, chart
 * labels, a bridge over two blocks, three-hop chains, comparisons, yes/no,
 * lists, superlatives and thresholds, unit stripping, refusal of unanswerable
 * and half-finished chains, and the checker's question-aware normalisation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFinal, lastFinalAnswer } from '../../lib/knowforge/offline/checker';
import { visionReply } from '../../lib/knowforge/offline/vision';
import { buildEvidence, chartSeries, keyValuePairs, mentionStrength, sameName, swallowedRow } from '../../lib/knowforge/offline/evidence';
import { expandKey, wordKey } from '../../lib/knowforge/offline/lexicon';
import { analyzeQuestion } from '../../lib/knowforge/offline/question';
import { explainRead } from '../../lib/knowforge/offline/reader';
import { extractAnswer, synthReply } from '../../lib/knowforge/offline/synth';
import type { Material, SynthTask } from '../../lib/knowforge/offline/tasks';

const text = (n: number, t: string, source?: string): Material => ({ n, kind: 'text', text: t, source });
const synth = (question: string, materials: Material[], extra: Partial<SynthTask> = {}): SynthTask => ({
  role: 'synth',
  question,
  materials,
  convention: 'generic',
  ...extra,
});
const answer = (question: string, materials: Material[], extra: Partial<SynthTask> = {}) => extractAnswer(synth(question, materials, extra)).value;

test('lexicon: word keys fold inflections and spellings; paraphrase groups and agent nouns meet', () => {
  assert.equal(wordKey('specialises'), wordKey('specialize'));
  assert.equal(wordKey('colours'), wordKey('color'));
  assert.equal(wordKey('headquartered'), wordKey('headquarters'));
  assert.notEqual(wordKey('founder'), wordKey('founded'), 'an agent noun stays its own question term');
  assert.ok(expandKey(wordKey('founder')).has(wordKey('founded')));
  assert.ok(expandKey(wordKey('makes')).has(wordKey('manufacturer')));
  assert.ok(expandKey(wordKey('inhabitants')).has(wordKey('population')));
  assert.equal(wordKey('basis'), 'basis', 'a bare -is is no -ise verb');
});

test('question analysis: answer types, topics, asked relation, constraints', () => {
  const a = analyzeQuestion('In which city was the chief engineer of the firm that builds the Orvo 7 born?');
  assert.equal(a.type, 'place');
  assert.deepEqual(a.topics, ['Orvo 7']);
  assert.deepEqual(
    a.terms.filter((t) => t.head).map((t) => t.word),
    ['born'],
    'the main clause asks "born"; "builds" leads to the subject',
  );
  const b = analyzeQuestion('What was the turnover of Pellam Works in 2019, in million euros?');
  assert.equal(b.type, 'number');
  assert.deepEqual(b.years, ['2019']);
  assert.ok(b.units.includes('euros') && b.units.includes('million'));
  const c = analyzeQuestion('Which is taller, the Kestrel Tower or the Ambry Spire?');
  assert.equal(c.type, 'choice');
  assert.deepEqual(c.choice?.options, ['Kestrel Tower', 'Ambry Spire']);
  assert.equal(c.choice?.dir, 'max');
  assert.ok(
    c.terms.some((t) => t.word === 'height'),
    'the comparative brings the attribute it compares',
  );
  assert.deepEqual(analyzeQuestion('Was Dorran Mill opened before 1931?').claim, { value: '1931', op: 'before' });
  assert.deepEqual(analyzeQuestion('Is the Velo 3 sold in teal?').claim, { value: 'teal', op: 'eq' });
  assert.deepEqual(analyzeQuestion('Was Pellam Works founded after Ostrey Foods?').versus, {
    a: 'Pellam Works',
    b: 'Ostrey Foods',
    dir: 'max',
    temporal: true,
  });
  const d = analyzeQuestion('In which years did the output of Norrow Farm exceed 40 tonnes?');
  assert.equal(d.type, 'list');
  assert.deepEqual(d.threshold, { op: '>', value: 40 });
  assert.equal(analyzeQuestion('In which year was the output of Norrow Farm lowest?').superlative?.dir, 'min');
  assert.equal(analyzeQuestion('Who is the treasurer of Hallam Club?').terms.find((t) => t.word === 'treasurer')?.head, true);
});

test('evidence: attribute tables become facts about the table subject; OCR cards become key-value facts', () => {
  const ev = buildEvidence({
    materials: [
      {
        n: 1,
        kind: 'table',
        text: 'Table 1: Key facts about Orvo 7',
        caption: 'Table 1: Key facts about Orvo 7',
        table: {
          header: ['Attribute', 'Value'],
          rows: [
            ['Maker', 'Lintel Group'],
            ['Mass', '812 g'],
          ],
        },
        source: 'Orvo 7 › Key facts',
      },
      {
        n: 2,
        kind: 'image',
        text: 'Figure 1: Profile card',
        ocrText: 'Profile card Mira Hollis Occupation: glassblower Trained at: Vell Academy',
        source: 'Mira Hollis › Profile',
      },
    ],
  });
  const kv = ev.facts.filter((f) => f.kind === 'kv').map((f) => [f.subject, f.key, f.value]);
  assert.deepEqual(kv, [
    ['Orvo 7', 'Maker', 'Lintel Group'],
    ['Orvo 7', 'Mass', '812 g'],
    ['Mira Hollis', 'Occupation', 'glassblower'],
    ['Mira Hollis', 'Trained at', 'Vell Academy'],
  ]);
  assert.deepEqual(keyValuePairs('Card Mira Hollis Occupation: glassblower'), [{ key: 'Occupation', value: 'glassblower' }]);
  // A PDF table whose header swallowed the first row: one attribute is recoverable, two are not.
  assert.deepEqual(swallowedRow(['Attribute Chief engineer', 'Value Mira Hollis']), ['Chief engineer', 'Mira Hollis']);
  assert.equal(swallowedRow(['Attribute Founder Headquarters', 'Value Ada Venn Carrow']), undefined);
  assert.equal(swallowedRow(['Attribute', 'Value']), undefined);
});

test('evidence: chart series from OCR -- label/value pairs and value rows under the axis; bar labels read by height are not paired', () => {
  assert.deepEqual(chartSeries('Output 2019: 41\nOutput 2020: 38\nCost 2020: 9'), [
    {
      label: 'Output',
      rows: [
        ['2019', '41'],
        ['2020', '38'],
      ],
    },
    { label: 'Cost', rows: [['2020', '9']] },
  ]);
  const below = chartSeries('Visitors 2018 2019 2020 2021 12,400 13,100 9,800 14,200 Year');
  assert.deepEqual(below[0].rows, [
    ['2018', '12,400'],
    ['2019', '13,100'],
    ['2020', '9,800'],
    ['2021', '14,200'],
  ]);
  // Labels above bars come out tallest first: which year each belongs to is unknown.
  assert.deepEqual(chartSeries('Visitors 14,200 13,100 12,400 9,800 2018 2019 2020 2021 Year'), []);
});

test('names: same thing, mentions on their own or inside a longer name', () => {
  assert.ok(sameName('The Orvo 7', 'Orvo 7'));
  assert.ok(sameName('Grant Hill', 'Grant Henry Hill'));
  assert.ok(!sameName('Pellam Works', 'Pellam Systems'));
  assert.equal(mentionStrength('Dorran lies 300 m above sea level.', 'Dorran'), 1);
  assert.equal(mentionStrength('New Dorran lies 900 m above sea level.', 'Dorran'), 0.3);
  assert.equal(mentionStrength('Ostrey is far away.', 'Dorran'), 0);
});

test('reader: a table row by year, in the column of the asked measure; the unit the question names is dropped', () => {
  const table: Material = {
    n: 2,
    kind: 'table',
    text: 'Table 2: Output of Norrow Farm by year',
    caption: 'Table 2: Output of Norrow Farm by year',
    table: {
      header: ['Year', 'Output (tonnes)', 'Staff'],
      rows: [
        ['2019', '41', '12'],
        ['2020', '38', '14'],
        ['2021', '44', '15'],
      ],
    },
    source: 'Norrow Farm › Output',
  };
  assert.equal(answer('What was the output of Norrow Farm in 2020, in tonnes?', [text(1, 'Norrow Farm grows barley.', 'Norrow Farm › Overview'), table]), '38');
  assert.equal(answer('How many staff did Norrow Farm have in 2021?', [table]), '15');
  assert.equal(answer('How much does the Orvo 7 weigh, in grams?', [text(1, 'The Orvo 7 weighs 812 g.')]), '812');
});

test('reader: a chart label line ("2019: 41") and a superlative / threshold over the series', () => {
  const chart: Material = {
    n: 3,
    kind: 'image',
    text: 'Figure 1: Yearly output of Norrow Farm',
    caption: 'Figure 1: Yearly output of Norrow Farm',
    ocrText: 'Output 2019: 41\nOutput 2020: 38\nOutput 2021: 44',
    source: 'Norrow Farm › Output',
  };
  const reply = synthReply(synth('What was the output of Norrow Farm in 2021?', [text(1, 'Norrow Farm is a farm.', 'Norrow Farm › Overview'), chart]));
  assert.equal(lastFinalAnswer(reply), '44');
  assert.match(reply, /\[fig 3\]/);
  assert.equal(answer('In which year was the output of Norrow Farm lowest?', [chart]), '2020');
  assert.deepEqual(answer('In which years did the output of Norrow Farm exceed 40 tonnes?', [chart]), ['2019', '2021']);
});

test('reader: a bridge over two blocks, and a three-hop chain through attribute tables', () => {
  const materials = [
    text(1, 'The Velo 3 is a folding kettle made by Lintel Group.', 'Velo 3 › Overview'),
    text(2, 'The chief engineer of Lintel Group is Mira Hollis.', 'Lintel Group › Overview'),
    text(3, 'Mira Hollis was born in Carrow in 1971.', 'Mira Hollis › Overview'),
    text(4, 'Ostrey Foods is based in Dunmere.', 'Ostrey Foods › Overview'),
  ];
  const a = extractAnswer(synth('Who is the chief engineer of the company that makes the Velo 3?', materials));
  assert.equal(a.value, 'Mira Hollis');
  assert.deepEqual(
    a.evidence.map((u) => u.ref),
    ['[1]', '[2]'],
  );
  const b = extractAnswer(synth('In which city was the chief engineer of the company that makes the Velo 3 born?', materials));
  assert.equal(b.value, 'Carrow');
  assert.deepEqual(
    b.evidence.map((u) => u.ref),
    ['[1]', '[2]', '[3]'],
  );
  const reply = synthReply(synth('In what year was the chief engineer of the company that makes the Velo 3 born?', materials));
  assert.match(reply, /\[1\].*\n\[2\].*\n\[3\].*\nSo the answer is 1971/s);
  assert.match(reply, /\nFINAL ANSWER: 1971$/);
});

test('reader: a chain that stops short is refused, not answered with the last bridge', () => {
  const materials = [
    text(1, 'The Velo 3 is a folding kettle made by Lintel Group.', 'Velo 3 › Overview'),
    text(2, 'Lintel Group employs 300 people.', 'Lintel Group › Overview'),
  ];
  const a = extractAnswer(synth('In which city was the chief engineer of the company that makes the Velo 3 born?', materials));
  assert.equal(a.refusal, true);
  assert.equal(a.value, 'Not answerable');
  assert.equal(
    answer('In which city was the chief engineer of the company that makes the Velo 3 born?', materials, { convention: 'multihoprag' }),
    'Insufficient information',
  );
});

test('reader: unanswerable -- no block says the asked attribute of the subject', () => {
  const materials = [
    text(1, 'Hallam Club was founded in 1904. Its chairman is Ada Venn.', 'Hallam Club › Overview'),
    text(2, 'The treasurer of Morrow Club is Ian Pike.', 'Morrow Club › Overview'),
  ];
  assert.equal(answer('Who is the treasurer of Hallam Club?', materials), 'Not answerable');
  assert.equal(answer('Who is the chairman of Hallam Club?', materials), 'Ada Venn');
  // m3docvqa never refuses.
  assert.notEqual(answer('Who is the treasurer of Hallam Club?', materials, { convention: 'm3docvqa' }), 'Not answerable');
});

test('reader: comparisons pick one of the named options by the compared values', () => {
  const m = [
    text(1, 'The Kestrel Tower is 212 m tall.', 'Kestrel Tower › Overview'),
    text(2, 'The Ambry Spire is 248 m tall.', 'Ambry Spire › Overview'),
    text(3, 'Pellam Works was founded in 1950.'),
    text(4, 'Ostrey Foods was founded in 1921.'),
  ];
  assert.equal(answer('Which is taller, the Kestrel Tower or the Ambry Spire?', m), 'Ambry Spire');
  assert.equal(answer('Which is shorter, the Kestrel Tower or the Ambry Spire?', m), 'Kestrel Tower');
  assert.equal(answer('Which was founded earlier, Pellam Works or Ostrey Foods?', m), 'Ostrey Foods');
  assert.equal(answer('Which company was founded more recently, Pellam Works or Ostrey Foods?', m), 'Pellam Works');
});

test('reader: yes/no compares the looked-up value with the claim', () => {
  const m = [
    text(1, 'Dorran Mill was opened in 1928. It is located in Carrow.', 'Dorran Mill › Overview'),
    {
      n: 2,
      kind: 'table' as const,
      text: 'Table 1: Key facts about Velo 3',
      table: {
        header: ['Attribute', 'Value'],
        rows: [
          ['Colours', 'teal, amber'],
          ['Maker', 'Lintel Group'],
        ],
      },
      source: 'Velo 3 › Key facts',
    },
    text(3, 'Lintel Group has its headquarters in Dunmere.', 'Lintel Group › Overview'),
  ];
  assert.equal(answer('Was Dorran Mill opened before 1931?', m), 'yes');
  assert.equal(answer('Was Dorran Mill opened after 1931?', m), 'no');
  assert.equal(answer('Is the Velo 3 available in teal?', m), 'yes');
  assert.equal(answer('Is the Velo 3 available in crimson?', m), 'no');
  assert.equal(answer('Is the company that makes the Velo 3 headquartered in Dunmere?', m), 'yes');
  assert.equal(answer('Is the company that makes the Velo 3 headquartered in Carrow?', m), 'no');
  assert.equal(answer('Is the company that makes the Velo 3 headquartered in Dunmere?', m, { convention: 'multihoprag' }), 'Yes');
});

test('reader: lists -- a listed value or sentence split into items, JSON in the final line', () => {
  const m = [text(1, 'The Velo 3 is available in teal, amber and slate.', 'Velo 3 › Overview')];
  const reply = synthReply(synth('In which colours is the Velo 3 available?', m));
  assert.equal(lastFinalAnswer(reply), '["teal","amber","slate"]');
  assert.deepEqual(checkFinal({ role: 'checker', question: 'In which colours is the Velo 3 available?', answer: reply, convention: 'generic' }), [
    'teal',
    'amber',
    'slate',
  ]);
  const makers = [text(1, 'The Orvo 7 is made by Lintel Group and Pellam Works.', 'Orvo 7')];
  assert.deepEqual(answer('Which two companies make the Orvo 7?', makers), ['Lintel Group', 'Pellam Works']);
  assert.deepEqual(answer('Name the two makers of the Orvo 7.', makers), ['Lintel Group', 'Pellam Works']);
});

test('reader: "what percentage" prefers a share over a count', () => {
  const m = [text(1, 'In 2019 Carrow had 12,400 inhabitants, and 3.5% of them were born abroad.', 'Carrow')];
  assert.equal(answer('What percentage of the inhabitants of Carrow were born abroad in 2019?', m), '3.5%');
  assert.equal(answer('How many inhabitants did Carrow have in 2019?', m), '12,400');
});

test('reader: worked calculations answer computed questions; a stated count wins otherwise', () => {
  const m = [
    text(1, 'Worked example: Hallam Club has 120 members in 8 sections, so each section has on average 120 / 8 = 15 members.', 'Hallam Club › Example'),
  ];
  assert.equal(answer('How many members does Hallam Club have?', m), '120');
  assert.equal(answer('On average, how many members are in each section of Hallam Club?', m), '15');
});

test('reader: the thing a description is about ("Which X ... ?" answered by a sentence subject)', () => {
  const m = [
    text(1, 'Gravel Choir is a Welsh folk band from Cardiff, formed in 1999.', 'Gravel Choir'),
    text(2, 'Low Tide is a compilation album of early recordings by Gravel Choir.', 'Low Tide (album)'),
  ];
  assert.equal(answer('Which Welsh folk band from Cardiff released a compilation album of early recordings?', m), 'Gravel Choir');
});

test('reader: "which century" from an ordinal or a year; "by who" asks for a person; a description with no anchoring topic', () => {
  assert.equal(
    answer('During which century was the Dorran Mill built?', [text(1, 'The Dorran Mill was built in the 18th century near Carrow.', 'Dorran Mill')]),
    '18th century',
  );
  assert.equal(
    answer('During which century was the Dorran Mill built?', [text(1, 'The Dorran Mill was built in 1788 near Carrow.', 'Dorran Mill')]),
    '18th century',
  );
  assert.equal(analyzeQuestion('The novel Low Water was written by who?').type, 'person');
  const m = [text(1, 'Kestrel Tools is a Welsh company that designs and sells garden shears.', 'Kestrel Tools'), text(2, 'Carrow is a town.', 'Carrow')];
  assert.equal(answer('What is a Welsh company that designs and sells garden shears?', m), 'Kestrel Tools');
});

test('reader: conventions that never refuse still answer (m3docvqa), even with no materials', () => {
  const m = [text(1, 'Hallam Club was founded in 1904.', 'Hallam Club › Overview')];
  const a = extractAnswer(synth('Who is the treasurer of Hallam Club?', m, { convention: 'm3docvqa' }));
  assert.equal(a.refusal, false);
  const blind = synthReply(synth('Is Hallam Club older than Morrow Club?', [], { convention: 'm3docvqa' }));
  assert.equal(lastFinalAnswer(blind), 'no');
  assert.equal(lastFinalAnswer(synthReply(synth('Who is the treasurer of Hallam Club?', [], { convention: 'generic' }))), 'Not answerable');
});

test('explainRead lists candidates with their support (for lib/knowforge/scripts/offline-qa-eval.ts --explain)', () => {
  const x = explainRead({ question: 'Who is the chairman of Hallam Club?', materials: [text(1, 'Its chairman is Ada Venn.', 'Hallam Club › Overview')] });
  assert.equal(x.question.type, 'person');
  assert.equal(x.candidates[0].value, 'Ada Venn');
  assert.equal(x.candidates[0].supported, true);
});

test('checker: the named option of a choice, the unit the question names, lists only when asked', () => {
  const c = (question: string, answerText: string) => checkFinal({ role: 'checker', question, answer: answerText, convention: 'generic' });
  assert.equal(c('Which is taller, the Kestrel Tower or the Ambry Spire?', 'FINAL ANSWER: The Ambry Spire is taller (248 m)'), 'Ambry Spire');
  assert.equal(c('How much does the Orvo 7 weigh, in grams?', 'FINAL ANSWER: 812 g'), '812');
  assert.equal(c('Who produced the record?', 'FINAL ANSWER: Steel and Clay'), 'Steel and Clay');
  assert.deepEqual(c('Which two cities host the fair?', 'FINAL ANSWER: Carrow and Dunmere'), ['Carrow', 'Dunmere']);
});

test('offline vision: a chart pair line naming the asked category answers, not the title that shares more words', async () => {
  const r = await visionReply(
    {
      role: 'vision',
      question: 'How many papers did Quorvel Institute publish in 2020?',
      ocrText: 'Papers published by Quorvel Institute\n2019 2020\n2019: 41\n2020: 57',
    },
    undefined,
  );
  assert.match(r, /Answer: 2020: 57/);
});
