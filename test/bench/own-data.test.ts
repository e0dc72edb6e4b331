/**
 * Your own data, as the README's "Your own data" section tells a newcomer: a
 * folder of three Markdown files and three questions with only `question` and
 * `answer` give a scored M5 and DG run from the section's own commands
 * (offline backend, labelled so); gold documents add retrieval recall, gold
 * pages of a PDF page-level recall (Markdown has none: the run says so); a bad
 * questions file lists every problem at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import PDFDocument from 'pdfkit';
import { loadOwn } from '../../lib/bench/own';
import { readRecords } from '../../lib/run/records';
import { readRunManifest } from '../../lib/run/manifest';
import { isKfError } from '../../lib/util/errors';
import { repoRoot } from '../../lib/util/paths';
import { kfInProcess } from '../_shared/cli-in-process';
import { nonEmpty } from '../_shared/non-empty';
import { ownScratch } from '../_shared/scratch';

const DOCS: Record<string, string> = {
  'ostrava.md':
    '# Ostrava\n\nOstrava is a city in the Czech Republic. The Oder river runs through Ostrava.\nThe city hosts the Vitkovice steel works, founded in 1828.\n',
  'lindqvist.md': '# The Lindqvist lab\n\nThe Lindqvist lab was founded by Maja Lindqvist in 1994. The lab studies glacier ice and is located in Ostrava.\n',
  'glaciers.md':
    '# Glaciers\n\nA glacier is a persistent body of dense ice. The largest glacier studied by the Lindqvist lab is the Brenner glacier, 42 kilometres long.\n',
};
const QUESTIONS = [
  { question: 'Which river runs through Ostrava?', answer: 'Oder' },
  { question: 'Who founded the Lindqvist lab?', answer: 'Maja Lindqvist' },
  { question: 'How long is the Brenner glacier in kilometres?', answer: '42' },
];

// Everything generated (the folder's index, the DualG graph and checkpoint) stays in this test's own folder.
const root = ownScratch('kf-own-data-');
process.env.KF_STATE_DIR = path.join(root, 'state');
test.after(() => fs.rmSync(root, { recursive: true, force: true }));

function writeData(dir: string, questions: unknown): { docs: string; questions: string } {
  const docs = path.join(dir, 'my-docs');
  fs.mkdirSync(docs, { recursive: true });
  for (const [f, text] of Object.entries(DOCS)) fs.writeFileSync(path.join(docs, f), text);
  const file = path.join(dir, 'my-questions.json');
  fs.writeFileSync(file, JSON.stringify(questions, null, 2));
  return { docs, questions: file };
}

/** The `kf run` commands of the README's "Your own data" section, as argv (after `node bin/kf.js`). */
function readmeCommands(): string[][] {
  const readme = fs.readFileSync(path.join(repoRoot(), 'README.md'), 'utf8');
  const start = readme.indexOf('## Your own data');
  assert.ok(start >= 0, 'README has a "Your own data" section');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 5));
  const lines = section.split('\n').filter((l) => l.startsWith('node bin/kf.js run '));
  return nonEmpty(lines, 'kf run commands in the section').map((l) => l.replace(/#.*$/, '').trim().split(/\s+/).slice(2));
}

test("README 'Your own data': 3 Markdown files + 3 questions (question + answer only) give a scored M5 and DG run, labelled offline", async () => {
  const dir = path.join(root, 'readme');
  const data = writeData(dir, QUESTIONS);
  const commands = readmeCommands();
  const rows = commands.map((argv) => argv[1]);
  assert.ok(rows.includes('M5') && rows.includes('DG'), `the section runs M5 and DG, got ${rows.join(', ')}`);
  for (const argv of commands) {
    const args = argv.map((a) => (a === 'my-docs/' ? data.docs : a === 'my-questions.json' ? data.questions : a));
    const r = await kfInProcess([...args, '--out', path.join(dir, 'results')]);
    assert.equal(r.code, 0, `kf ${args.join(' ')}\n${r.err}\n${r.out}`);
    assert.match(r.out, /completed; 3 recorded/);
    assert.match(r.out, /offline backend: not model results|backend offline: not model results/);
    const runId = /^(my-bench-\S+): completed/m.exec(r.out)?.[1] ?? '';
    assert.ok(runId.startsWith(`my-bench-${argv[1]}-`), `run id named after the benchmark and the row: ${r.out}`);
    const runDir = path.join(dir, 'results', runId);
    const { records } = readRecords(path.join(runDir, 'records.jsonl'));
    assert.equal(records.length, 3);
    for (const rec of nonEmpty(records, 'records')) {
      assert.equal(rec.benchmark, 'my-bench');
      assert.ok(!rec.error, `question ${rec.id} failed: ${JSON.stringify(rec.error)}`);
      assert.equal(typeof rec.scores.f1, 'number', `question ${rec.id} is scored`);
      assert.equal(typeof rec.scores.em, 'number');
      assert.equal(rec.backend, 'offline');
    }
    assert.deepEqual(records.map((x) => x.id).sort(), ['q1', 'q2', 'q3']);
    const m = readRunManifest(runDir);
    assert.equal(m?.config.benchmark.name, 'own');
    assert.equal(m?.config.benchmark.options.name, 'my-bench');
    assert.equal(m?.backend, 'offline');
    const runs = await kfInProcess(['runs', '--results', path.join(dir, 'results')]);
    assert.match(runs.out, new RegExp(`${runId}.*my-bench`), `kf runs lists the run under its benchmark name:\n${runs.out}`);
  }
});

test('own data with gold documents: records carry retrieval recall; the summary names the benchmark', async () => {
  const dir = path.join(root, 'gold');
  const data = writeData(
    dir,
    QUESTIONS.map((q, i) => ({ ...q, id: `g${i}`, docs: [['ostrava.md', 'lindqvist', 'glaciers.md'][i]] })),
  );
  const out = path.join(dir, 'results');
  const r = await kfInProcess(['run', 'S4', '--corpus', data.docs, '--questions', data.questions, '--name', 'gold-bench', '--out', out, '--json']);
  assert.equal(r.code, 0, r.err);
  const o = JSON.parse(r.out) as { runId: string; retrieval: Record<string, number>; backend: string };
  assert.equal(o.backend, 'offline');
  assert.equal(typeof o.retrieval['R@1'], 'number', `retrieval: ${JSON.stringify(o.retrieval)}`);
  assert.equal(typeof o.retrieval.docFound, 'number');
  const { records } = readRecords(path.join(out, o.runId, 'records.jsonl'));
  for (const rec of nonEmpty(records, 'records')) assert.equal(typeof rec.retrieval?.['R@all'], 'number', `record ${rec.id} has recall`);
  assert.deepEqual(records.map((x) => x.id).sort(), ['g0', 'g1', 'g2']);
});

test('a questions file with several problems is refused once, listing every problem by question number', () => {
  const dir = path.join(root, 'bad');
  const data = writeData(dir, [
    { question: 'Which river?', answer: 'Oder', docs: ['ostrava.md'] },
    { question: 'Who?' },
    { qestion: 'Typo?', answer: 'x' },
    { question: 'Where?', answer: 'Ostrava', docs: ['ostrva.md'] },
  ]);
  try {
    loadOwn({ questions: data.questions, corpus: data.docs }, { name: 'bad' });
    assert.fail('the file was accepted');
  } catch (e) {
    assert.ok(isKfError(e), String(e));
    assert.match(e.message, /question 2: "answer" is missing/);
    assert.match(e.message, /question 3: "qestion" is not a field .*did you mean "question"/);
    assert.match(e.message, /question 3: "question" is missing/);
    assert.match(e.message, /question 4: "docs" names "ostrva.md".*did you mean "ostrava"/);
    assert.doesNotMatch(e.message, /question 1:/);
  }
});

test('own data refuses a registered benchmark name and asks for both --corpus and --questions', async () => {
  const dir = path.join(root, 'names');
  const data = writeData(dir, QUESTIONS);
  const taken = await kfInProcess(['run', 'M5', '--corpus', data.docs, '--questions', data.questions, '--name', 'm3docvqa', '--dry-run']);
  assert.notEqual(taken.code, 0);
  assert.match(taken.err, /registered benchmark/);
  const half = await kfInProcess(['run', 'M5', '--questions', data.questions, '--dry-run']);
  assert.notEqual(half.code, 0);
  assert.match(half.err, /needs both --corpus and --questions/);
});

/** A two-page PDF: page 1 about the harbour, page 2 about the glacier (pdfkit, deterministic). */
function twoPagePdf(file: string): Promise<void> {
  const doc = new PDFDocument({ size: 'A4', margin: 56, compress: false, info: { Title: 'Field report', CreationDate: FIXED, ModDate: FIXED } });
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(fs.writeFileSync(file, Buffer.concat(chunks))));
    doc.on('error', reject);
  });
  doc.font('Helvetica-Bold').fontSize(18).text('Field report: the harbour');
  doc.font('Helvetica').fontSize(11).text('The harbour of Velm handles grain and timber. Ships arrive from the northern coast every week.');
  doc.addPage();
  doc.font('Helvetica-Bold').fontSize(18).text('Field report: the Kessel glacier');
  doc.font('Helvetica').fontSize(11).text('The Kessel glacier retreated 310 metres between 1990 and 2020, the survey team measured.');
  doc.end();
  return done;
}
const FIXED = new Date(Date.UTC(2024, 0, 1));

test('own data with gold pages: a PDF question gets page-level recall beside the document level; Markdown pages are said not to apply', async () => {
  const dir = path.join(root, 'pages');
  const data = writeData(dir, [
    { id: 'pdf', question: 'How far did the Kessel glacier retreat between 1990 and 2020?', answer: '310 metres', docs: ['field-report.pdf'], pages: [2] },
    { id: 'md', question: 'Which river runs through Ostrava?', answer: 'Oder', docs: ['ostrava.md'], pages: [1] },
  ]);
  await twoPagePdf(path.join(data.docs, 'field-report.pdf'));
  const out = path.join(dir, 'results');
  const args = ['run', 'S4', '--corpus', data.docs, '--questions', data.questions, '--name', 'paged', '--out', out];
  const r = await kfInProcess([...args, '--json']);
  assert.equal(r.code, 0, r.err);
  const o = JSON.parse(r.out) as { runId: string; retrieval: Record<string, number>; notes?: string[] };
  assert.equal(typeof o.retrieval['page:R@1'], 'number', `page-level recall in the summary: ${JSON.stringify(o.retrieval)}`);
  assert.equal(typeof o.retrieval['R@1'], 'number', 'document-level recall stays');
  const note = nonEmpty(o.notes ?? [], 'notes of the run').join('\n');
  assert.match(note, /page recall does not apply to 1 question\(s\) with gold pages \(md\).*md files.*no pages/);
  const { records } = readRecords(path.join(out, o.runId, 'records.jsonl'));
  const byId = new Map(records.map((x) => [x.id, x]));
  assert.equal(byId.get('pdf')?.retrieval?.['page:R@all'], 1, `the PDF question's gold page is found: ${JSON.stringify(byId.get('pdf')?.retrieval)}`);
  assert.equal(typeof byId.get('pdf')?.retrieval?.['page:R@1'], 'number');
  const md = byId.get('md')?.retrieval ?? {};
  assert.equal(typeof md['R@all'], 'number', 'the Markdown question keeps its document-level recall');
  assert.deepEqual(
    Object.keys(md).filter((k) => k.startsWith('page:')),
    [],
    'and is not scored zero on pages',
  );
  assert.deepEqual(readRunManifest(path.join(out, o.runId))?.benchmark.notes, o.notes, 'the manifest keeps the note');
  // The text outcome (the run is complete: nothing is answered again) says both once.
  const text = await kfInProcess(args);
  assert.equal(text.code, 0, text.err);
  assert.equal(text.out.match(/page recall does not apply/g)?.length, 1, text.out);
  assert.match(text.out, /pages {4}page-level recall: R@1 \d/);
  // kf report's runs table shows the page-level columns beside the document-level ones.
  const report = await kfInProcess(['report', o.runId, '--results', out, '--out', path.join(dir, 'report')]);
  assert.equal(report.code, 0, report.err);
  const header = fs.readFileSync(path.join(dir, 'report', 'runs.csv'), 'utf8').split('\n')[0];
  assert.match(header, /(^|,)R@1(,|$)/, header);
  assert.match(header, /(^|,)page:R@1(,|$)/, header);
  assert.match(header, /(^|,)page:R@all(,|$)/, header);
});
