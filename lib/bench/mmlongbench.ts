/**
 * MMLongBench-Doc loader (official `samples.json` layout; the dev/holdout
 * files here use the same records plus `sample_index`).
 *
 * Fields relied on, per record: `doc_id` (PDF file name in the documents
 * folder), `doc_type`, `question`, `answer` (a string; Python list repr for
 * List), `answer_format` (Int | Float | Str | List | None), `evidence_pages`
 * (Python list repr of 1-based pages, e.g. "[5, 7]"), `evidence_sources`
 * (Python list repr of 'Pure-text (Plain-text)' | 'Table' | 'Chart' | 'Figure' |
 * 'Generalized-text (Layout)'), optional `sample_index` (position in the
 * official 1,082-question file; our id `mmlb-<sample_index>`, else the record
 * position in this file).
 *
 * One index per document: `Question.doc` = the document id = the file name
 * without `.pdf` (how lib/corpus names documents from files).
 */
import * as path from 'node:path';
import type { AnswerFormat, BenchmarkData, Evidence, Modality, Question } from './types';
import { RecordReader, at, readJsonFile, uniq } from './read';
import { PyLiteralError, parsePyLiteral, parsePyStringList } from './python-literal';

export interface MmlongbenchPaths {
  /** samples.json / samples.dev.json / samples.holdout.json */
  samples: string;
  /** Folder of the PDFs (corpusDir); optional for scoring-only use. */
  documents?: string;
}

export const MMLB_FORMATS = ['Int', 'Float', 'Str', 'List', 'None'] as const;
export type MmlbFormat = (typeof MMLB_FORMATS)[number];

/** Official evidence-source names -> the paper's short bucket names. */
const SOURCE_SHORT: Record<string, string> = {
  'Pure-text (Plain-text)': 'Text',
  'Generalized-text (Layout)': 'Layout',
  Table: 'Table',
  Chart: 'Chart',
  Figure: 'Figure',
};
const SOURCE_MODALITY: Record<string, Modality> = { Text: 'text', Layout: 'text', Table: 'table', Chart: 'image', Figure: 'image' };

export const NOT_ANSWERABLE = 'Not answerable';

export function mmlbDocId(docFile: string): string {
  return docFile.replace(/\.pdf$/i, '');
}

export function loadMmlongbench(paths: MmlongbenchPaths): BenchmarkData {
  const file = paths.samples;
  const r: RecordReader = new RecordReader(file, 'MMLongBench-Doc samples');
  const raw = readJsonFile(file, 'MMLongBench-Doc samples');
  const records = r.array(raw, 'top level', '(file)');
  const questions: Question[] = [];
  const seen = new Set<string>();
  records.forEach((x, i) => {
    const rec = r.object(x, at(i));
    const where = at(i, rec.sample_index as number | undefined);
    const sampleIndex = rec.sample_index === undefined ? i : r.num(rec, 'sample_index', where, { integer: true });
    const id = `mmlb-${sampleIndex}`;
    if (seen.has(id)) r.fail(where, 'sample_index', `repeats ${sampleIndex} (ids must be unique)`);
    seen.add(id);
    const docFile = r.str(rec, 'doc_id', where);
    const question = r.str(rec, 'question', where);
    const fmt = r.str(rec, 'answer_format', where) as MmlbFormat;
    if (!MMLB_FORMATS.includes(fmt)) r.fail(where, 'answer_format', `must be one of ${MMLB_FORMATS.join('/')}, got "${fmt}"`);
    const answerRaw = typeof rec.answer === 'number' ? String(rec.answer) : r.str(rec, 'answer', where, { allowEmpty: true });
    const pagesRaw = pyIntList(r, rec, 'evidence_pages', where);
    const sourcesRaw = pyStrList(r, rec, 'evidence_sources', where);
    const docType = r.optStr(rec, 'doc_type', where) ?? '';

    let answer: string | string[];
    if (fmt === 'List') {
      try {
        answer = answerRaw.trim().startsWith('[') ? parsePyStringList(answerRaw) : [answerRaw];
      } catch (e) {
        r.fail(where, 'answer', `is not a Python list literal (${(e as Error).message}): ${answerRaw.slice(0, 60)}`);
      }
    } else {
      answer = answerRaw;
    }
    const unanswerable = fmt === 'None' || answerRaw.trim() === NOT_ANSWERABLE;
    const format: AnswerFormat = unanswerable
      ? 'unanswerable'
      : fmt === 'Int' || fmt === 'Float'
        ? 'number'
        : fmt === 'List'
          ? 'list'
          : /^(yes|no)$/i.test(answerRaw.trim())
            ? 'yes-no'
            : 'span';
    const sources = uniq(sourcesRaw.map((s) => SOURCE_SHORT[s] ?? s));
    const modality = uniq(sources.map((s) => SOURCE_MODALITY[s]).filter((m): m is Modality => !!m));
    const doc = mmlbDocId(docFile);
    const pages = uniq(pagesRaw).sort((a, b) => a - b);
    const evidence: Evidence[] = pages.map((page) => ({ doc, page }));
    questions.push({
      id,
      benchmark: 'mmlongbench-doc',
      question,
      answer,
      format,
      // Page-level gold; the gold document is the question's own document (one index per document).
      goldDocs: unanswerable && !pages.length ? [] : [doc],
      goldPages: pages,
      evidence,
      modality: modality.length ? modality : ['text'],
      doc,
      meta: {
        sampleIndex,
        docFile,
        docType,
        answerFormat: fmt,
        answerRaw,
        // The official buckets use the raw lists (single page = exactly one listed page).
        evidencePagesRaw: pagesRaw,
        evidenceSourcesRaw: sourcesRaw,
        evidenceSources: sources,
      },
    });
  });
  return {
    name: 'mmlongbench-doc',
    questions,
    corpusDir: paths.documents ? path.resolve(paths.documents) : undefined,
    recallLevel: 'page',
  };
}

function pyList(r: RecordReader, rec: Record<string, unknown>, field: string, where: string): unknown[] {
  const v = rec[field];
  if (Array.isArray(v)) return v;
  if (typeof v !== 'string') r.fail(where, field, v === undefined ? 'is missing' : 'must be a list or a Python list literal');
  try {
    const parsed = parsePyLiteral(v);
    if (!Array.isArray(parsed)) r.fail(where, field, `must be a list literal, got ${v.slice(0, 40)}`);
    return parsed;
  } catch (e) {
    if (e instanceof PyLiteralError) r.fail(where, field, `is not a Python list literal (${e.message}): ${v.slice(0, 40)}`);
    throw e;
  }
}

function pyIntList(r: RecordReader, rec: Record<string, unknown>, field: string, where: string): number[] {
  return pyList(r, rec, field, where).map((p, j) => {
    if (typeof p !== 'number' || !Number.isInteger(p)) r.fail(where, `${field}[${j}]`, `must be an integer page, got ${JSON.stringify(p)}`);
    return p;
  });
}

function pyStrList(r: RecordReader, rec: Record<string, unknown>, field: string, where: string): string[] {
  return pyList(r, rec, field, where).map((p, j) => {
    if (typeof p !== 'string') r.fail(where, `${field}[${j}]`, `must be a string, got ${JSON.stringify(p)}`);
    return p;
  });
}
