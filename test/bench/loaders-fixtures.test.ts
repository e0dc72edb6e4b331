/**
 * Loaders on small fixtures written in the official layouts (the corpora and
 * sets not obtainable here: MultiHop-RAG corpus, M3DocVQA PDFs, WebQA,
 * ScienceQA, the demo world), plus input validation: every error names the
 * file, the record and the field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { repoRoot } from '../../lib/util/paths';
import { KfError } from '../../lib/util/errors';
import { md5 } from '../../lib/util/hash';
import { loadMultihopRag, mhrDerivedDocName } from '../../lib/bench/multihop-rag';
import { loadM3docvqa } from '../../lib/bench/m3docvqa';
import { loadWebqa } from '../../lib/bench/webqa';
import { loadScienceqa } from '../../lib/bench/scienceqa';
import { loadDemo } from '../../lib/bench/demo';
import { load2Wiki, loadHotpotqa, loadMusique } from '../../lib/bench/text-multihop';
import { loadMmlongbench } from '../../lib/bench/mmlongbench';
import { loadMmqa } from '../../lib/bench/mmqa';
import { readQuestionsFile } from '../../lib/bench/validate-question';

const fx = (...p: string[]) => path.join(repoRoot(), 'test', '__fixtures__', 'bench', ...p);
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kf-bench-'));

function throwsKf(fn: () => unknown, ...patterns: RegExp[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof KfError, `expected a KfError, got ${e}`);
    for (const p of patterns) assert.match(e.message, p);
    return true;
  });
}

test('MultiHop-RAG official layout + corpus.json: ids, types, article names shared by questions and corpus', () => {
  const d = loadMultihopRag({ queries: fx('multihop-rag', 'MultiHopRAG.json'), corpus: fx('multihop-rag', 'corpus.json') });
  assert.equal(d.questions.length, 3);
  const [cmp, inf, nul] = d.questions;
  assert.equal(cmp.id, md5(cmp.question).slice(0, 16));
  assert.equal(cmp.type, 'comparison');
  assert.equal(cmp.format, 'yes-no');
  assert.equal(inf.type, 'inference');
  assert.equal(nul.type, 'null');
  assert.equal(nul.format, 'unanswerable');
  assert.deepEqual(nul.goldDocs, []);
  // Naming rule: forbidden characters become spaces, source cut to 40, title to 80, trailing dots dropped.
  assert.deepEqual(cmp.goldDocs, [
    "2023-09-26_The Verge_Apple defends Google Search deal in court 'There wasn't a valid alternative'",
    '2023-10-22_The Age_Is Google Search better than the rest And is that fair',
  ]);
  assert.equal(inf.goldDocs[0], '2023-09-28_Cnbc World Business News Leader_Nike misses revenue expectations for the first time in two years, beats on earni');
  assert.equal(d.passages!.length, 3);
  const corpusIds = new Set(d.passages!.map((p) => p.id));
  for (const q of d.questions) for (const g of q.goldDocs) assert.ok(corpusIds.has(g), g);
  assert.equal(d.passages![2].meta!.category, 'business');
  assert.equal(
    mhrDerivedDocName({ title: 'Some of our favorite devices are on sale for Black Friday.', source: 'The Verge', published_at: '2023-11-24T10:00:00+00:00' }),
    '2023-11-24_The Verge_Some of our favorite devices are on sale for Black Friday',
  );
});

test('MultiHop-RAG search-datasets layout (queries + ground truth) gives the same questions', () => {
  const official = JSON.parse(fs.readFileSync(fx('multihop-rag', 'MultiHopRAG.json'), 'utf8')) as {
    query: string;
    answer: string;
    question_type: string;
    evidence_list: unknown[];
  }[];
  const dir = tmp();
  fs.writeFileSync(
    path.join(dir, 'queries.json'),
    JSON.stringify({ task: 'multihop_rag', total: 3, queries: official.map((q, i) => ({ id: String(i), question: q.query, question_type: q.question_type })) }),
  );
  fs.writeFileSync(
    path.join(dir, 'gt.json'),
    JSON.stringify(Object.fromEntries(official.map((q, i) => [String(i), { answer: q.answer, evidence_list: q.evidence_list }]))),
  );
  const a = loadMultihopRag({ queries: fx('multihop-rag', 'MultiHopRAG.json') });
  const b = loadMultihopRag({ queries: path.join(dir, 'queries.json'), groundTruth: path.join(dir, 'gt.json') });
  assert.deepEqual(
    b.questions.map((q) => [q.id, q.goldDocs, q.answer, q.type]),
    a.questions.map((q) => [q.id, q.goldDocs, q.answer, q.type]),
  );
  assert.equal(b.questions[1].meta.sourceId, '1');
  throwsKf(() => loadMultihopRag({ queries: path.join(dir, 'queries.json') }), /ground-truth/);
  fs.writeFileSync(path.join(dir, 'gt2.json'), JSON.stringify({ 0: { answer: 'x', evidence_list: [] } }));
  throwsKf(() => loadMultihopRag({ queries: path.join(dir, 'queries.json'), groundTruth: path.join(dir, 'gt2.json') }), /record 1 \(id 1\)/, /"id"/);
});

test('M3DocVQA: MMQA records over <doc_id>.pdf; gold ids without a PDF are listed, not fatal', () => {
  const d = loadM3docvqa({ questions: fx('m3docvqa', 'MMQA_dev.jsonl'), pdfs: fx('m3docvqa', 'pdfs_dev') });
  assert.equal(d.questions.length, 3);
  assert.equal(d.corpusDir, fx('m3docvqa', 'pdfs_dev'));
  const [compose, list, yesno] = d.questions;
  assert.deepEqual(compose.goldDocs, ['aaaa0000aaaa0000aaaa0000aaaa0001', 'aaaa0000aaaa0000aaaa0000aaaa0002']);
  assert.equal(compose.hops, 2);
  assert.deepEqual(compose.modality, ['table', 'text']);
  assert.deepEqual(list.answer, ['Mask', 'Junie Moon']);
  assert.equal(list.format, 'list');
  assert.deepEqual(list.goldDocs, ['aaaa0000aaaa0000aaaa0000aaaa0003']);
  assert.deepEqual(list.meta.goldMissing, ['aaaa0000aaaa0000aaaa0000aaaa0004']);
  assert.equal(yesno.format, 'yes-no');
  // Without the PDF folder every supporting id is gold.
  assert.equal(loadM3docvqa({ questions: fx('m3docvqa', 'MMQA_dev.jsonl') }).questions[1].goldDocs.length, 2);
  // Gzip is detected from the bytes; a holdout copy in the same format loads unchanged.
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'MMQA_dev.holdout.jsonl.gz'), zlib.gzipSync(fs.readFileSync(fx('m3docvqa', 'MMQA_dev.jsonl'))));
  assert.deepEqual(
    loadM3docvqa({ questions: path.join(dir, 'MMQA_dev.holdout.jsonl.gz') }).questions.map((q) => q.id),
    d.questions.map((q) => q.id),
  );
});

test('MMQA image side on fixture files: image-only filter, captions as passages', () => {
  const dir = tmp();
  const imgs = [
    { title: 'Mask (1985 film)', url: 'https://example.org/Mask', id: 'aaaa0000aaaa0000aaaa0000aaaa0003', path: 'aaaa0000aaaa0000aaaa0000aaaa0003.jpg' },
    { title: 'Junie Moon', url: 'https://example.org/Junie', id: 'aaaa0000aaaa0000aaaa0000aaaa0004', path: 'aaaa0000aaaa0000aaaa0000aaaa0004.jpg' },
  ];
  fs.writeFileSync(path.join(dir, 'images.jsonl'), imgs.map((x) => JSON.stringify(x)).join('\n'));
  fs.writeFileSync(
    path.join(dir, 'captions.json'),
    JSON.stringify({ aaaa0000aaaa0000aaaa0000aaaa0003: ' A poster with a face.', aaaa0000aaaa0000aaaa0000aaaa0004: 'A poster with a woman.' }),
  );
  const d = loadMmqa({ questions: fx('m3docvqa', 'MMQA_dev.jsonl'), images: path.join(dir, 'images.jsonl'), captions: path.join(dir, 'captions.json') });
  assert.deepEqual(
    d.questions.map((q) => q.id),
    ['f0000000000000000000000000000002'],
  );
  assert.deepEqual(
    d.passages!.map((p) => [p.id, p.title, p.text]),
    [
      ['aaaa0000aaaa0000aaaa0000aaaa0003', 'Mask (1985 film)', 'A poster with a face.'],
      ['aaaa0000aaaa0000aaaa0000aaaa0004', 'Junie Moon', 'A poster with a woman.'],
    ],
  );
  fs.writeFileSync(path.join(dir, 'captions2.json'), JSON.stringify({ aaaa0000aaaa0000aaaa0000aaaa0003: 'x' }));
  throwsKf(
    () => loadMmqa({ questions: fx('m3docvqa', 'MMQA_dev.jsonl'), images: path.join(dir, 'images.jsonl'), captions: path.join(dir, 'captions2.json') }),
    /record 1 \(id f0000000000000000000000000000002\)/,
    /supporting_context/,
    /aaaa0000aaaa0000aaaa0000aaaa0004/,
  );
});

test('WebQA official layout: val split, quotes stripped, image/text facts as passages, positives as gold', () => {
  const d = loadWebqa({ data: fx('webqa', 'WebQA_train_val.json') });
  assert.equal(d.questions.length, 2);
  const [img, txt] = d.questions;
  assert.equal(img.question, 'Are the museum in the first photo and the house in the second photo the same color?');
  assert.equal(img.answer, 'Yes, both the museum and the house are beige.');
  assert.equal(img.format, 'yes-no');
  assert.deepEqual(img.goldDocs, ['30000101', '30000102']);
  assert.deepEqual(img.modality, ['image']);
  assert.equal(img.type, 'YesNo');
  assert.deepEqual(txt.goldDocs, ['d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6']);
  assert.deepEqual(txt.modality, ['text']);
  // 3 images + 2 text snippets, each once.
  assert.deepEqual(d.passages!.map((p) => p.id).sort(), [
    '30000101',
    '30000102',
    '30000103',
    'aa11bb22cc33dd44ee55ff6600778899',
    'd1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6',
  ]);
  assert.equal(d.passages!.find((p) => p.id === '30000103')!.text, 'A grey steel tower at night.');
  assert.equal(loadWebqa({ data: fx('webqa', 'WebQA_train_val.json') }, { split: 'all' }).questions.length, 3);
  assert.equal(loadWebqa({ data: fx('webqa', 'WebQA_train_val.json') }, { split: 'train' }).questions[0].type, 'shape');
});

test('ScienceQA official layout: split via pid_splits or the split field; NAT/SOC/LAN, TXT/IMG/NO, grade bands', () => {
  const d = loadScienceqa({ problems: fx('scienceqa', 'problems.json'), splits: fx('scienceqa', 'pid_splits.json'), images: '/data/sqa/images' });
  assert.deepEqual(
    d.questions.map((q) => q.id),
    ['1', '2', '3'],
  );
  const [map, tense, hare] = d.questions;
  assert.equal(map.answer, 'West Virginia');
  assert.equal(map.meta.subjectCode, 'SOC');
  assert.deepEqual(map.meta.contextCodes, ['IMG']);
  assert.equal(map.meta.gradeBand, 'G1-6');
  assert.equal(map.meta.imagePath, path.join('/data/sqa/images', 'test', '1', 'image.png'));
  assert.deepEqual(tense.meta.contextCodes, ['NO']);
  assert.equal(tense.meta.gradeBand, 'G7-12');
  assert.equal(tense.meta.subjectCode, 'LAN');
  assert.deepEqual(hare.meta.contextCodes, ['TXT', 'IMG']);
  assert.deepEqual(hare.modality, ['text', 'image']);
  assert.equal(d.passages!.length, 3);
  assert.equal(hare.goldDocs.length, 1);
  assert.ok(d.passages!.some((p) => p.id === hare.goldDocs[0] && /adaptation/.test(p.text)));
  // Without pid_splits the record's split field decides.
  assert.deepEqual(
    loadScienceqa({ problems: fx('scienceqa', 'problems.json') }).questions.map((q) => q.id),
    ['1', '2', '3'],
  );
  assert.deepEqual(
    loadScienceqa({ problems: fx('scienceqa', 'problems.json'), splits: fx('scienceqa', 'pid_splits.json') }, { split: 'minitest' }).questions.map((q) => q.id),
    ['3'],
  );
  const dir = tmp();
  const bad = JSON.parse(fs.readFileSync(fx('scienceqa', 'problems.json'), 'utf8'));
  bad['2'].answer = 7;
  fs.writeFileSync(path.join(dir, 'problems.json'), JSON.stringify(bad));
  throwsKf(() => loadScienceqa({ problems: path.join(dir, 'problems.json') }), /problem "2"/, /"answer"/, /0\.\.2/);
});

test('demo world: Question-shaped file is validated, gold documents checked against the corpus folder', () => {
  const d = loadDemo({ questions: fx('demo', 'questions.json'), corpus: fx('demo', 'corpus') });
  assert.equal(d.questions.length, 2);
  assert.deepEqual(d.questions[0].goldDocs, ['velm', 'notes/harbor']);
  assert.equal(d.questions[1].format, 'unanswerable');
  const dir = tmp();
  const qs = JSON.parse(fs.readFileSync(fx('demo', 'questions.json'), 'utf8'));
  qs[0].goldDocs = ['velm', 'nowhere'];
  fs.writeFileSync(path.join(dir, 'questions.json'), JSON.stringify(qs));
  throwsKf(
    () => loadDemo({ questions: path.join(dir, 'questions.json'), corpus: fx('demo', 'corpus') }),
    /record 0 \(id demo-q1\)/,
    /goldDocs\[1\]/,
    /nowhere/,
  );
  qs[0].goldDocs = ['velm'];
  qs[1].format = 'maybe';
  fs.writeFileSync(path.join(dir, 'questions.json'), JSON.stringify(qs));
  throwsKf(() => readQuestionsFile(path.join(dir, 'questions.json')), /questions\.json/, /record 1 \(id demo-q2\)/, /"format"/);
  qs[1].format = 'unanswerable';
  qs[1].id = 'demo-q1';
  fs.writeFileSync(path.join(dir, 'questions.json'), JSON.stringify(qs));
  throwsKf(() => readQuestionsFile(path.join(dir, 'questions.json')), /record 1/, /"id"/, /repeats/);
});

test('text multi-hop fixtures: both 2Wiki layouts, MuSiQue same-title paragraphs merge, HotpotQA sentence evidence', () => {
  const w = load2Wiki({ questions: fx('text-multihop', 'fixture-2wiki_questions.json'), corpus: fx('text-multihop', 'fixture-2wiki_corpus.json') });
  assert.equal(w.questions[0].id, `2wiki-${md5(w.questions[0].question).slice(0, 16)}`);
  assert.equal(w.questions[0].answer, null);
  assert.equal(w.questions[1].id, '2wiki-official-1');
  assert.equal(w.questions[1].answer, 'Harbor Lights');
  assert.deepEqual(w.questions[1].goldDocs, ['Harbor Lights', 'Dome Home']);
  assert.equal(w.questions[1].type, 'comparison');

  const m = loadMusique({ questions: fx('text-multihop', 'fixture-musique_questions.json'), corpus: fx('text-multihop', 'fixture-musique_corpus.json') });
  assert.equal(m.passages!.length, 3);
  const ann = m.passages!.find((p) => p.id === 'Ann Lee')!;
  assert.equal(ann.text, 'Ann Lee was born in 1570.\n\nAnn Lee later moved to Dorn.');
  assert.deepEqual(m.questions[0].goldDocs, ['Harbor of Velm', 'Ann Lee']);
  assert.equal(m.questions[0].hops, 2);
  assert.equal(m.questions[0].type, '2hop');

  const h = loadHotpotqa({ questions: fx('text-multihop', 'fixture-hotpotqa_questions.json'), corpus: fx('text-multihop', 'fixture-hotpotqa_corpus.json') });
  assert.equal(h.passages!.find((p) => p.id === 'Ann Lee')!.text, 'Ann Lee was an engineer. She was born in 1570.');
  assert.deepEqual(
    h.questions[0].evidence.map((e) => e.text),
    ['The harbor of Velm was built by Ann Lee.', 'She was born in 1570.'],
  );
  assert.equal(h.questions[0].format, 'yes-no');

  // A gold title absent from the corpus is an error naming the record and field (or dropped on request).
  throwsKf(
    () => load2Wiki({ questions: fx('text-multihop', 'fixture-2wiki_questions.json'), corpus: fx('text-multihop', 'fixture-musique_corpus.json') }),
    /fixture-2wiki_questions\.json/,
    /record 0/,
    /gold_titles/,
    /Harbor Lights/,
  );
  const lax = load2Wiki(
    { questions: fx('text-multihop', 'fixture-2wiki_questions.json'), corpus: fx('text-multihop', 'fixture-musique_corpus.json') },
    { allowMissingGold: true },
  );
  assert.deepEqual(lax.questions[0].goldDocs, ['Ann Lee']);
  assert.deepEqual(lax.questions[0].meta.goldMissing, ['Harbor Lights']);
});

test('MMLongBench-Doc validation: file, record index and field in every message', () => {
  const dir = tmp();
  const good = {
    doc_id: 'a.pdf',
    doc_type: 'Guidebook',
    question: 'Q?',
    answer: '3',
    evidence_pages: '[2]',
    evidence_sources: "['Table']",
    answer_format: 'Int',
    sample_index: 4,
  };
  const write = (recs: unknown) => {
    const f = path.join(dir, 'samples.holdout.json');
    fs.writeFileSync(f, JSON.stringify(recs));
    return f;
  };
  const d = loadMmlongbench({ samples: write([good]) });
  assert.equal(d.questions[0].id, 'mmlb-4');
  assert.deepEqual(d.questions[0].modality, ['table']);
  throwsKf(
    () => loadMmlongbench({ samples: write([good, { ...good, sample_index: 5, answer_format: 'Integer' }]) }),
    /samples\.holdout\.json/,
    /record 1 \(id 5\)/,
    /"answer_format"/,
  );
  throwsKf(() => loadMmlongbench({ samples: write([{ ...good, question: undefined }]) }), /record 0/, /"question" is missing/);
  throwsKf(() => loadMmlongbench({ samples: write([{ ...good, evidence_pages: '[2, x]' }]) }), /"evidence_pages"/);
  throwsKf(() => loadMmlongbench({ samples: write([good, good]) }), /record 1/, /"sample_index"/, /repeats/);
  throwsKf(() => loadMmlongbench({ samples: write([{ ...good, answer_format: 'List', answer: "['a', " }]) }), /"answer"/, /Python list/);
  throwsKf(() => loadMmlongbench({ samples: path.join(dir, 'absent.json') }), /absent\.json/);
  fs.writeFileSync(path.join(dir, 'broken.json'), '[{');
  throwsKf(() => loadMmlongbench({ samples: path.join(dir, 'broken.json') }), /broken\.json/, /not valid JSON/);
  fs.writeFileSync(path.join(dir, 'bad.jsonl'), '{"qid": "x"}\n{oops\n');
  throwsKf(() => loadM3docvqa({ questions: path.join(dir, 'bad.jsonl') }), /bad\.jsonl/, /line 2/);
  fs.writeFileSync(path.join(dir, 'bad2.jsonl'), '{"qid": "x", "question": "q", "answers": [], "metadata": {"type": "TextQ"}, "supporting_context": []}\n');
  throwsKf(() => loadM3docvqa({ questions: path.join(dir, 'bad2.jsonl') }), /record 0 \(id x\)/, /"answers"/);
});
