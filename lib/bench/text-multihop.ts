/**
 * Text multi-hop loaders: 2WikiMultiHopQA, MuSiQue, HotpotQA (HippoRAG's
 * subsets and layouts). Document id = passage title; recall is document-level.
 *
 * Fields relied on:
 * - 2Wiki: `question`, `gold_titles` (the reduced layout shipped here; no
 *   answers -> answer null). The full HippoRAG/official layout also works:
 *   `_id`, `answer`, `type`, `supporting_facts` [[title, sent], ...].
 *   Id: `_id` when present, else `2wiki-` + first 16 hex of md5(question).
 * - MuSiQue: `id`, `question`, `answer`, `answer_aliases`, `paragraphs`
 *   [{idx, title, paragraph_text, is_supporting}], `question_decomposition`
 *   [{paragraph_support_idx, ...}] (hops = its length), `answerable`.
 * - HotpotQA: `_id`, `question`, `answer`, `type` (bridge/comparison), `level`,
 *   `supporting_facts` [[title, sentence index], ...].
 */
import type { AnswerFormat, BenchmarkData, CorpusPassage, Evidence, Question } from './types';
import { RecordReader, at, readJsonFile, uniq } from './read';
import { loadTitledPassages } from './text-corpus';
import { md5 } from '../util/hash';

export interface TextMultihopPaths {
  questions: string;
  corpus?: string;
}

export interface TextMultihopOptions {
  /** Gold titles missing from the corpus fail the load unless this is set (then they are dropped and counted in meta.goldMissing). */
  allowMissingGold?: boolean;
}

function formatOf(answer: string | null): AnswerFormat {
  if (answer === null) return 'span';
  const a = answer.trim().toLowerCase();
  if (a === 'yes' || a === 'no') return 'yes-no';
  if (/^[-+]?[\d,]*\.?\d+%?$/.test(a)) return 'number';
  return 'span';
}

/** Check gold titles against the corpus (when one is loaded). */
function checkGold(
  r: RecordReader,
  where: string,
  field: string,
  gold: string[],
  titles: Set<string> | undefined,
  opts: TextMultihopOptions,
): { kept: string[]; missing: string[] } {
  if (!titles) return { kept: gold, missing: [] };
  const missing = gold.filter((g) => !titles.has(g));
  if (missing.length && !opts.allowMissingGold) {
    r.fail(
      where,
      field,
      `names "${missing[0]}", which is not a title of the corpus`,
      'use the corpus file that belongs to these questions (or allowMissingGold)',
    );
  }
  return { kept: gold.filter((g) => titles.has(g)), missing };
}

function corpusOf(paths: TextMultihopPaths, what: string): { passages?: CorpusPassage[]; titles?: Set<string>; sentences?: Map<string, string[]> } {
  if (!paths.corpus) return {};
  const c = loadTitledPassages(paths.corpus, what);
  return { passages: c.passages, titles: new Set(c.passages.map((p) => p.id)), sentences: c.sentences };
}

export function load2Wiki(paths: TextMultihopPaths, opts: TextMultihopOptions = {}): BenchmarkData {
  const { passages, titles } = corpusOf(paths, '2Wiki corpus');
  const file = paths.questions;
  const r: RecordReader = new RecordReader(file, '2Wiki questions');
  const records = r.array(readJsonFile(file, '2Wiki questions'), 'top level', '(file)');
  const seen = new Set<string>();
  const questions = records.map((x, i): Question => {
    const rec = r.object(x, at(i));
    const where = at(i, rec._id as string | undefined);
    const question = r.str(rec, 'question', where);
    const id = typeof rec._id === 'string' && rec._id ? rec._id : `2wiki-${md5(question).slice(0, 16)}`;
    if (seen.has(id)) r.fail(where, rec._id ? '_id' : 'question', `repeats an earlier record (id ${id})`);
    seen.add(id);
    let gold: string[];
    let field = 'gold_titles';
    if (rec.gold_titles !== undefined) gold = r.strList(rec, 'gold_titles', where);
    else {
      field = 'supporting_facts';
      gold = supportingTitles(r, rec, where);
    }
    gold = uniq(gold);
    const { kept, missing } = checkGold(r, where, field, gold, titles, opts);
    const answer = rec.answer === undefined || rec.answer === null ? null : r.str(rec, 'answer', where, { allowEmpty: true });
    const type = r.optStr(rec, 'type', where);
    return {
      id,
      benchmark: '2wiki',
      question,
      answer,
      format: formatOf(answer),
      goldDocs: kept,
      evidence: kept.map((doc) => ({ doc, modality: 'text' })),
      modality: ['text'],
      // 2Wiki: 2 gold titles for compositional/comparison/inference, 4 for bridge-comparison.
      hops: gold.length,
      ...(type ? { type } : {}),
      meta: { ...(missing.length ? { goldMissing: missing } : {}) },
    };
  });
  return { name: '2wiki', questions, passages, recallLevel: 'document' };
}

function supportingTitles(r: RecordReader, rec: Record<string, unknown>, where: string): string[] {
  return r.list(rec, 'supporting_facts', where).map((sf, j) => {
    if (!Array.isArray(sf) || typeof sf[0] !== 'string') r.fail(where, `supporting_facts[${j}]`, 'must be [title, sentence index]');
    return sf[0] as string;
  });
}

export function loadMusique(paths: TextMultihopPaths, opts: TextMultihopOptions = {}): BenchmarkData {
  const { passages, titles } = corpusOf(paths, 'MuSiQue corpus');
  const file = paths.questions;
  const r: RecordReader = new RecordReader(file, 'MuSiQue questions');
  const records = r.array(readJsonFile(file, 'MuSiQue questions'), 'top level', '(file)');
  const seen = new Set<string>();
  const questions = records.map((x, i): Question => {
    const rec = r.object(x, at(i));
    const where = at(i, rec.id as string | undefined);
    const id = r.str(rec, 'id', where);
    if (seen.has(id)) r.fail(where, 'id', 'repeats an earlier record');
    seen.add(id);
    const question = r.str(rec, 'question', where);
    const answer = r.str(rec, 'answer', where, { allowEmpty: true });
    const aliases = r.strList(rec, 'answer_aliases', where, { optional: true });
    const paragraphs = r.list(rec, 'paragraphs', where).map((p, j) => {
      const pr = r.object(p, where, `paragraphs[${j}]`);
      return {
        idx: typeof pr.idx === 'number' ? pr.idx : j,
        title: r.str(pr, 'title', `${where} paragraphs[${j}]`, { allowEmpty: true }),
        text: r.str(pr, 'paragraph_text', `${where} paragraphs[${j}]`, { allowEmpty: true }),
        supporting: r.bool(pr, 'is_supporting', `${where} paragraphs[${j}]`),
      };
    });
    const decomposition = r.list(rec, 'question_decomposition', where, { optional: true });
    // Gold order follows the reasoning chain (decomposition order), then any other supporting paragraph.
    const byIdx = new Map(paragraphs.map((p) => [p.idx, p]));
    const chain = decomposition
      .map((d) => (d && typeof d === 'object' ? byIdx.get((d as Record<string, unknown>).paragraph_support_idx as number) : undefined))
      .filter((p): p is (typeof paragraphs)[number] => !!p);
    const supporting = uniq([...chain, ...paragraphs.filter((p) => p.supporting)]);
    const gold = uniq(supporting.map((p) => p.title));
    const { kept, missing } = checkGold(r, where, 'paragraphs', gold, titles, opts);
    const evidence: Evidence[] = supporting.filter((p) => kept.includes(p.title)).map((p) => ({ doc: p.title, modality: 'text', text: p.text }));
    const answerable = rec.answerable === undefined ? true : r.bool(rec, 'answerable', where);
    return {
      id,
      benchmark: 'musique',
      question,
      answer,
      ...(aliases.length ? { altAnswers: aliases } : {}),
      format: answerable ? formatOf(answer) : 'unanswerable',
      goldDocs: kept,
      evidence,
      modality: ['text'],
      hops: decomposition.length || gold.length,
      // MuSiQue ids start with the reasoning shape: 2hop, 3hop1, 3hop2, 4hop1, 4hop2, 4hop3.
      type: id.includes('__') ? id.split('__')[0] : undefined,
      meta: { answerable, ...(missing.length ? { goldMissing: missing } : {}) },
    };
  });
  return { name: 'musique', questions, passages, recallLevel: 'document' };
}

export function loadHotpotqa(paths: TextMultihopPaths, opts: TextMultihopOptions = {}): BenchmarkData {
  const { passages, titles, sentences } = corpusOf(paths, 'HotpotQA corpus');
  const file = paths.questions;
  const r: RecordReader = new RecordReader(file, 'HotpotQA questions');
  const records = r.array(readJsonFile(file, 'HotpotQA questions'), 'top level', '(file)');
  const seen = new Set<string>();
  const questions = records.map((x, i): Question => {
    const rec = r.object(x, at(i));
    const where = at(i, rec._id as string | undefined);
    const id = r.str(rec, '_id', where);
    if (seen.has(id)) r.fail(where, '_id', 'repeats an earlier record');
    seen.add(id);
    const question = r.str(rec, 'question', where);
    const answer = r.str(rec, 'answer', where, { allowEmpty: true });
    const facts = r.list(rec, 'supporting_facts', where).map((sf, j) => {
      if (!Array.isArray(sf) || typeof sf[0] !== 'string' || typeof sf[1] !== 'number')
        r.fail(where, `supporting_facts[${j}]`, 'must be [title, sentence index]');
      return { title: sf[0] as string, sent: sf[1] as number };
    });
    const gold = uniq(facts.map((f) => f.title));
    const { kept, missing } = checkGold(r, where, 'supporting_facts', gold, titles, opts);
    const evidence: Evidence[] = facts
      .filter((f) => kept.includes(f.title))
      .map((f) => {
        const s = sentences?.get(f.title)?.[f.sent]?.trim();
        return s ? { doc: f.title, modality: 'text' as const, text: s } : { doc: f.title, modality: 'text' as const };
      });
    const type = r.optStr(rec, 'type', where);
    const level = r.optStr(rec, 'level', where);
    return {
      id,
      benchmark: 'hotpotqa',
      question,
      answer,
      format: formatOf(answer),
      goldDocs: kept,
      evidence,
      modality: ['text'],
      hops: 2,
      ...(type ? { type } : {}),
      meta: { ...(level ? { level } : {}), ...(missing.length ? { goldMissing: missing } : {}) },
    };
  });
  return { name: 'hotpotqa', questions, passages, recallLevel: 'document' };
}
