/**
 * MultiModalQA question records (`MMQA_dev.jsonl`, one JSON object per line,
 * optionally gzip-compressed): shared by the MMQA image-side loader and the
 * M3DocVQA loader (M3DocVQA = the MMQA dev questions over Wikipedia PDFs).
 *
 * Fields relied on: `qid`, `question`, `answers` [{answer, type
 * (string|yesno|number), modality (text|table|image)}], `metadata.type` (the
 * question program, e.g. "Compose(TableQ,ImageListQ)"), `metadata.modalities`,
 * `metadata.image_doc_ids`, `metadata.text_doc_ids`, `metadata.table_id`,
 * `supporting_context` [{doc_id, doc_part (text|table|image)}].
 */
import type { AnswerFormat, Modality, Question } from './types';
import { RecordReader, at, readJsonLines, uniq } from './read';

export interface MmqaRecord {
  qid: string;
  question: string;
  answers: string[];
  answerTypes: string[];
  program: string;
  modalities: Modality[];
  supporting: { docId: string; part: Modality }[];
  imageDocIds: string[];
  textDocIds: string[];
  tableId?: string;
}

const PARTS: readonly Modality[] = ['text', 'table', 'image'];

export function readMmqaRecords(file: string, what: string): MmqaRecord[] {
  const r: RecordReader = new RecordReader(file, what);
  const seen = new Set<string>();
  return readJsonLines(file, what).map((x, i) => {
    const rec = r.object(x, at(i));
    const where = at(i, rec.qid as string | undefined);
    const qid = r.str(rec, 'qid', where);
    if (seen.has(qid)) r.fail(where, 'qid', 'repeats an earlier record');
    seen.add(qid);
    const question = r.str(rec, 'question', where);
    const answersRaw = r.list(rec, 'answers', where);
    if (!answersRaw.length) r.fail(where, 'answers', 'is empty (every MMQA question has at least one answer)');
    const answers: string[] = [];
    const answerTypes: string[] = [];
    answersRaw.forEach((a, j) => {
      const ar = r.object(a, where, `answers[${j}]`);
      const v = ar.answer;
      // A few MMQA answers are numbers in the JSON: keep their text.
      if (typeof v === 'number') answers.push(String(v));
      else answers.push(r.str(ar, 'answer', `${where} answers[${j}]`, { allowEmpty: true }));
      answerTypes.push(typeof ar.type === 'string' ? ar.type : 'string');
    });
    const meta = r.object(rec.metadata, where, 'metadata');
    const program = r.str(meta, 'type', `${where} metadata`);
    const modalities = r.strList(meta, 'modalities', `${where} metadata`, { optional: true });
    modalities.forEach((m, j) => {
      if (!PARTS.includes(m as Modality)) r.fail(where, `metadata.modalities[${j}]`, `must be text/table/image, got "${m}"`);
    });
    const supporting = r.list(rec, 'supporting_context', where).map((s, j) => {
      const sr = r.object(s, where, `supporting_context[${j}]`);
      const part = r.str(sr, 'doc_part', `${where} supporting_context[${j}]`);
      if (!PARTS.includes(part as Modality)) r.fail(where, `supporting_context[${j}].doc_part`, `must be text/table/image, got "${part}"`);
      return { docId: r.str(sr, 'doc_id', `${where} supporting_context[${j}]`), part: part as Modality };
    });
    return {
      qid,
      question,
      answers,
      answerTypes,
      program,
      modalities: uniq(modalities as Modality[]),
      supporting,
      imageDocIds: r.strList(meta, 'image_doc_ids', `${where} metadata`, { optional: true }),
      textDocIds: r.strList(meta, 'text_doc_ids', `${where} metadata`, { optional: true }),
      tableId: r.optStr(meta, 'table_id', `${where} metadata`),
    };
  });
}

/** Number of atomic sub-questions in an MMQA program ("Compose(TableQ,ImageListQ)" -> 2). */
export function mmqaHops(program: string): number {
  return Math.max(1, (program.match(/[A-Za-z]+Q\b/g) ?? []).length);
}

/** Question fields shared by every MMQA-based benchmark. */
export function mmqaQuestionBase(rec: MmqaRecord, benchmark: string): Omit<Question, 'goldDocs' | 'evidence'> {
  const answer = rec.answers.length === 1 ? rec.answers[0] : uniq(rec.answers);
  const format: AnswerFormat = Array.isArray(answer) ? 'list' : rec.answerTypes[0] === 'yesno' ? 'yes-no' : rec.answerTypes[0] === 'number' ? 'number' : 'span';
  return {
    id: rec.qid,
    benchmark,
    question: rec.question,
    answer,
    format,
    modality: rec.modalities.length ? rec.modalities : uniq(rec.supporting.map((s) => s.part)),
    hops: mmqaHops(rec.program),
    type: rec.program,
    meta: { answerTypes: rec.answerTypes },
  };
}
