/**
 * Check that a JSON value is a well-formed `Question` (files already in our
 * normalised shape: the demo world's questions.json, subset/question files
 * written by tools). Errors name the file, record and field.
 */
import type { AnswerFormat, Evidence, Modality, Question } from './types';
import { RecordReader, at, describe, readJsonFile } from './read';

const FORMATS: readonly AnswerFormat[] = ['span', 'number', 'yes-no', 'list', 'unanswerable'];
const MODALITIES: readonly Modality[] = ['text', 'table', 'image'];

export function validateQuestion(x: unknown, r: RecordReader, i: number): Question {
  const rec = r.object(x, at(i));
  const where = at(i, rec.id as string | undefined);
  const id = r.str(rec, 'id', where);
  const benchmark = r.str(rec, 'benchmark', where);
  const question = r.str(rec, 'question', where);
  const a = rec.answer;
  let answer: Question['answer'];
  if (a === null || typeof a === 'string') answer = a;
  else if (Array.isArray(a) && a.every((v) => typeof v === 'string')) answer = a as string[];
  else r.fail(where, 'answer', `must be a string, a list of strings or null, got ${describe(a)}`);
  const format = r.str(rec, 'format', where) as AnswerFormat;
  if (!FORMATS.includes(format)) r.fail(where, 'format', `must be one of ${FORMATS.join('/')}, got "${format}"`);
  const goldDocs = r.strList(rec, 'goldDocs', where);
  const modality = r.strList(rec, 'modality', where) as Modality[];
  modality.forEach((m, j) => {
    if (!MODALITIES.includes(m)) r.fail(where, `modality[${j}]`, `must be text/table/image, got "${m}"`);
  });
  const evidence = r.list(rec, 'evidence', where).map((e, j): Evidence => {
    const er = r.object(e, where, `evidence[${j}]`);
    const w = `${where} evidence[${j}]`;
    const ev: Evidence = { doc: r.str(er, 'doc', w) };
    if (er.page !== undefined) ev.page = r.num(er, 'page', w, { integer: true });
    if (er.modality !== undefined) {
      const m = r.str(er, 'modality', w) as Modality;
      if (!MODALITIES.includes(m)) r.fail(w, 'modality', `must be text/table/image, got "${m}"`);
      ev.modality = m;
    }
    if (er.text !== undefined) ev.text = r.str(er, 'text', w, { allowEmpty: true });
    return ev;
  });
  const q: Question = { id, benchmark, question, answer, format, goldDocs, evidence, modality, meta: {} };
  if (rec.altAnswers !== undefined) q.altAnswers = r.strList(rec, 'altAnswers', where);
  if (rec.goldPages !== undefined) {
    q.goldPages = r.list(rec, 'goldPages', where).map((p, j) => {
      if (typeof p !== 'number' || !Number.isInteger(p)) r.fail(where, `goldPages[${j}]`, `must be an integer page, got ${describe(p)}`);
      return p;
    });
  }
  if (rec.hops !== undefined) q.hops = r.num(rec, 'hops', where, { integer: true });
  if (rec.type !== undefined) q.type = r.str(rec, 'type', where);
  if (rec.doc !== undefined) q.doc = r.str(rec, 'doc', where);
  if (rec.meta !== undefined) q.meta = r.object(rec.meta, where, 'meta');
  return q;
}

/** Read and check a JSON list of Questions; ids must be unique. */
export function readQuestionsFile(file: string, what = 'questions file'): Question[] {
  const r: RecordReader = new RecordReader(file, what);
  const list = r.array(readJsonFile(file, what), 'top level', '(file)');
  const seen = new Set<string>();
  return list.map((x, i) => {
    const q = validateQuestion(x, r, i);
    if (seen.has(q.id)) r.fail(at(i, q.id), 'id', 'repeats an earlier question');
    seen.add(q.id);
    return q;
  });
}

/** True when a parsed JSON value looks like our normalised Question list (vs a raw benchmark file). */
export function looksLikeQuestionList(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0 && v.every((x) => x && typeof x === 'object' && 'id' in x && 'benchmark' in x && 'goldDocs' in x);
}
