/**
 * Every loader on the real benchmark files in ../shared/bench (skipped, with
 * the reason printed, where they are absent). Counts are those of the dev
 * files shipped there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { benchDir } from '../../lib/util/paths';
import { loadBenchmark, defaultPaths } from '../../lib/bench/registry';
import { loadPaperSubsets, selectSubset } from '../../lib/bench/subsets';
import { loadMhrMdIndex, mhrDerivedDocName } from '../../lib/bench/multihop-rag';
import { md5 } from '../../lib/util/hash';
import { nonEmpty } from '../_shared/non-empty';

const have = (...p: string[]) => fs.existsSync(benchDir(...p));
const skipReason = (...p: string[]) => (have(...p) ? false : `real benchmark files absent: ${benchDir(...p)}`);

function count<T>(xs: readonly T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
}

test(
  'MMLongBench-Doc dev: 520 questions, formats, page-level gold, one document per question',
  { skip: skipReason('mmlongbench-doc', 'samples.dev.json') },
  () => {
    const d = loadBenchmark('mmlongbench-doc');
    assert.equal(d.questions.length, 520);
    assert.equal(d.recallLevel, 'page');
    assert.deepEqual(
      count(d.questions, (q) => q.meta.answerFormat as string),
      { Str: 115, Int: 134, Float: 100, None: 99, List: 72 },
    );
    assert.equal(d.questions.filter((q) => q.format === 'unanswerable').length, 99);
    const ids = new Set(d.questions.map((q) => q.id));
    assert.equal(ids.size, 520);
    const q0 = d.questions[0];
    assert.equal(q0.id, 'mmlb-0');
    assert.equal(q0.doc, 'PH_2016.06.08_Economy-Final');
    assert.deepEqual(q0.goldPages, [5]);
    assert.deepEqual(q0.meta.evidenceSources, ['Chart']);
    assert.deepEqual(q0.modality, ['image']);
    // Python list reprs become lists.
    const white = d.questions.find((q) => q.meta.answerRaw === "['White', '10%']")!;
    assert.deepEqual(white.answer, ['White', '10%']);
    const pages = d.questions.find((q) => q.meta.answerRaw === '[16, 19, 25]')!;
    assert.deepEqual(pages.answer, ['16', '19', '25']);
    // Every document the questions name is a PDF of the documents folder (one index per document).
    if (d.corpusDir) {
      const files = new Set(fs.readdirSync(d.corpusDir));
      for (const q of d.questions) assert.ok(files.has(`${q.doc}.pdf`), `${q.id}: ${q.doc}.pdf missing`);
      assert.equal(new Set(d.questions.map((q) => q.doc)).size, 62);
    }
    // Unanswerable questions without pages are excluded from recall (no gold documents).
    assert.ok(nonEmpty(d.questions.filter((q) => q.format === 'unanswerable' && !q.goldPages?.length)).every((q) => q.goldDocs.length === 0));
  },
);

test(
  'M3DocVQA questions (= MMQA dev) load without PDFs: 1,709 here; paper smoke/mid ids resolve',
  { skip: skipReason('mmqa', 'MMQA_dev.dev.jsonl.gz') },
  () => {
    const d = loadBenchmark('m3docvqa');
    assert.equal(d.questions.length, 1709);
    assert.ok(nonEmpty(d.questions).every((q) => q.goldDocs.length >= 1 && q.answer !== null));
    const q = d.questions[0];
    assert.equal(q.id, 'a33985b1e8b2502fc18cc8147dc27db8');
    assert.equal(q.answer, 'Mask');
    assert.deepEqual(q.goldDocs, ['8513db80c11ea439ab11eba406ec00d9']);
    assert.equal(d.questions.filter((x) => x.format === 'list').length, 147);
    assert.equal(d.questions.filter((x) => x.format === 'yes-no').length, 135);
    if (have('knowforge-subsets')) {
      const s = loadPaperSubsets();
      assert.equal(s.m3docvqa.smoke.length, 30);
      assert.equal(s.m3docvqa.mid.length, 300);
      assert.equal(selectSubset(d.questions, s.m3docvqa.smoke).questions.length, 23);
      assert.equal(selectSubset(d.questions, s.m3docvqa.mid).questions.length, 218);
    }
  },
);

test('MMQA image side: 260 image-only questions over 11,867 caption passages', { skip: skipReason('mmqa', 'image_captions_llava.json') }, () => {
  const d = loadBenchmark('mmqa');
  assert.equal(d.questions.length, 260);
  assert.equal(d.passages!.length, 11867);
  const ids = new Set(d.passages!.map((p) => p.id));
  for (const q of d.questions) {
    assert.deepEqual(q.modality, ['image']);
    for (const g of q.goldDocs) assert.ok(ids.has(g), `${q.id}: gold image ${g} has no passage`);
  }
  assert.deepEqual(
    count(d.questions, (q) => q.type!),
    { ImageListQ: 98, ImageQ: 162 },
  );
  const poster = d.questions.find((q) => q.id === '18ecd2ac6c0ac69993b92dc4b30137e8')!;
  assert.deepEqual(poster.goldDocs, ['ddf8b52a8400deaf05940c5cad8169cd']);
  assert.equal(d.passages!.find((p) => p.id === 'ddf8b52a8400deaf05940c5cad8169cd')!.title, 'Tell Me That You Love Me, Junie Moon');
  const cand = loadBenchmark('mmqa', undefined, { corpus: 'candidates' });
  assert.ok(cand.passages!.length < 11867 && cand.passages!.length > 260);
});

test('MultiHop-RAG: 500 queries, md5 ids, types, gold articles named as the runner names them', { skip: skipReason('multihop-rag', 'queries500.json') }, () => {
  const d = loadBenchmark('multihop-rag');
  assert.equal(d.questions.length, 500);
  assert.deepEqual(
    count(d.questions, (q) => q.type!),
    { comparison: 154, inference: 161, temporal: 114, null: 71 },
  );
  const raw = JSON.parse(fs.readFileSync(defaultPaths('multihop-rag').queries, 'utf8')) as { queries: { question: string }[] };
  assert.equal(d.questions[0].id, md5(raw.queries[0].question).slice(0, 16));
  assert.equal(d.questions[0].id, 'b03f02ec6aed7671');
  for (const q of d.questions.filter((x) => x.type === 'null')) {
    assert.equal(q.goldDocs.length, 0);
    assert.equal(q.format, 'unanswerable');
  }
  if (have('knowforge-subsets', 'mhr_md_index.json')) {
    const index = loadMhrMdIndex(benchDir('knowforge-subsets', 'mhr_md_index.json'));
    const names = new Set(index.byUrl.values());
    for (const q of d.questions) for (const g of q.goldDocs) assert.ok(names.has(g), `${q.id}: ${g} not an indexed article`);
    const s = loadPaperSubsets();
    assert.equal(s['multihop-rag'].smoke.length, 31);
    assert.equal(s['multihop-rag'].mid.length, 299);
    assert.equal(selectSubset(d.questions, s['multihop-rag'].smoke).questions.length, 10);
    assert.equal(selectSubset(d.questions, s['multihop-rag'].mid).questions.length, 62);
    // The derived naming rule reproduces the index for every article cited here.
    const gt = JSON.parse(fs.readFileSync(defaultPaths('multihop-rag').groundTruth!, 'utf8')) as Record<
      string,
      { evidence_list: { url: string; title: string; source: string; published_at: string }[] }
    >;
    let checked = 0;
    for (const e of Object.values(gt).flatMap((x) => x.evidence_list)) {
      assert.equal(mhrDerivedDocName(e), index.byUrl.get(e.url));
      checked++;
    }
    assert.ok(checked > 1000);
  }
});

test('text multi-hop: 2Wiki 61 (no answers), MuSiQue 60, HotpotQA 60; gold titles are corpus documents', { skip: skipReason('text-multihop') }, () => {
  const w = loadBenchmark('2wiki');
  assert.equal(w.questions.length, 61);
  assert.equal(w.passages!.length, 6119);
  assert.ok(nonEmpty(w.questions).every((q) => q.answer === null));
  assert.deepEqual(
    count(w.questions, (q) => String(q.hops)),
    { 2: 48, 4: 13 },
  );
  assert.deepEqual(w.questions[0].goldDocs, ['Lothair II', 'Ermengarde of Tours']);

  const m = loadBenchmark('musique');
  assert.equal(m.questions.length, 60);
  assert.equal(m.passages!.length, 1764); // 1,890 passages, merged per title
  assert.deepEqual(
    count(m.questions, (q) => String(q.hops)),
    { 2: 37, 3: 21, 4: 2 },
  );
  const m0 = m.questions[0];
  assert.deepEqual(m0.goldDocs, ['Journal of Psychotherapy Integration', 'Adolescence']);
  assert.deepEqual(m0.altAnswers, ['Stanley Hall']);

  const h = loadBenchmark('hotpotqa');
  assert.equal(h.questions.length, 60);
  assert.equal(h.passages!.length, 994);
  assert.deepEqual(
    count(h.questions, (q) => q.type!),
    { bridge: 50, comparison: 10 },
  );
  assert.ok(nonEmpty(h.questions).every((q) => q.evidence.every((e) => e.text && e.text.length > 0)));
  for (const d of [w, m, h]) {
    const titles = new Set(d.passages!.map((p) => p.id));
    for (const q of d.questions) for (const g of q.goldDocs) assert.ok(titles.has(g));
  }
});

test('holdout paths swap .dev. for .holdout. in file names', () => {
  assert.equal(path.basename(defaultPaths('mmlongbench-doc', { split: 'holdout' }).samples), 'samples.holdout.json');
  assert.equal(path.basename(defaultPaths('musique', { split: 'holdout' }).questions), 'musique_questions.holdout.json');
  assert.equal(path.basename(defaultPaths('mmqa', { split: 'holdout' }).questions), 'MMQA_dev.holdout.jsonl.gz');
});
