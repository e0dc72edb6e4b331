/**
 * Your own data: a folder of documents (PDF / HTML / Markdown / text) and a
 * questions file where only `question` and `answer` are required. Optional per
 * question: `id`, `format` (span | number | yes-no | list | unanswerable; guessed
 * from the answer otherwise), gold documents (`docs`: file names in the folder,
 * with or without extension) and gold pages (`pages`, 1-based, of the one gold
 * document). The file is JSON (a list, or {"questions": [...]}) or JSON lines.
 * Every problem of the whole file is reported in one error, not one at a time.
 *
 * Gold documents give document-level retrieval recall; gold pages of a PDF give
 * page-level recall beside it (`page:` keys). Markdown, HTML and text files have
 * no pages: their questions' pages are dropped and the run says so once (a note),
 * rather than scoring page recall as zero.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AnswerFormat, Evidence, Question } from './types';
import { describe, readJsonFile, readJsonLines, readText } from './read';
import { listDocFiles } from './corpus-documents';
import { isBenchmarkName } from './names';
import { didYouMean } from '../util/did-you-mean';
import { KfError } from '../util/errors';
import type { BenchmarkData } from './types';

export interface OwnPaths {
  questions: string;
  corpus?: string;
}

/** The name results carry when none is given (`kf run --name`). */
export const OWN_DEFAULT_NAME = 'own';

const FORMATS: readonly AnswerFormat[] = ['span', 'number', 'yes-no', 'list', 'unanswerable'];
/** Accepted spellings of each field (the first is the one the README shows). */
const ALIASES: Record<string, readonly string[]> = {
  id: ['id', 'qid', 'question_id'],
  question: ['question', 'query'],
  answer: ['answer', 'answers', 'gold'],
  format: ['format', 'answer_format', 'answerFormat'],
  docs: ['docs', 'doc', 'gold_docs', 'goldDocs', 'documents', 'document'],
  pages: ['pages', 'page', 'gold_pages', 'goldPages'],
};
const KNOWN = Object.values(ALIASES).flat();
const MAX_PROBLEMS = 12;

/** The benchmark name own-data results carry: letters, digits, . _ + - and not a registered benchmark's name. */
export function checkOwnName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,60}$/.test(name)) {
    throw new KfError('bad_flag', `benchmark name "${name}" is not usable in run ids`, 'use letters, digits, ".", "_", "+" and "-" (e.g. --name my-reports)');
  }
  if (isBenchmarkName(name) && name !== OWN_DEFAULT_NAME) {
    throw new KfError(
      'bad_flag',
      `benchmark name "${name}" is a registered benchmark's`,
      `name your data otherwise (e.g. --name my-${name}) so its results are never read as ${name}'s`,
    );
  }
  return name;
}

function readRecords(file: string): unknown[] {
  const what = 'questions file';
  if (/\.jsonl(\.gz)?$/i.test(file)) return readJsonLines(file, what);
  const text = readText(file, what).trimStart();
  if (!text.startsWith('[') && !text.startsWith('{')) return readJsonLines(file, what);
  const v = readJsonFile(file, what);
  if (Array.isArray(v)) return v;
  if (v && typeof v === 'object' && Array.isArray((v as { questions?: unknown }).questions)) return (v as { questions: unknown[] }).questions;
  throw new KfError(
    'bench_bad_record',
    `questions file ${file}: the top level must be a list of questions or {"questions": [...]}`,
    'e.g. [{"question": "...", "answer": "..."}]',
    {
      concerns: file,
    },
  );
}

function pick(rec: Record<string, unknown>, key: string): { field: string; value: unknown } | undefined {
  for (const f of ALIASES[key]) if (rec[f] !== undefined) return { field: f, value: rec[f] };
  return undefined;
}

function guessFormat(answer: string | string[] | null): AnswerFormat {
  if (answer === null) return 'unanswerable';
  if (Array.isArray(answer)) return answer.length > 1 ? 'list' : 'span';
  if (/^(yes|no)$/i.test(answer.trim())) return 'yes-no';
  if (/^[-+]?[\d,]*\.?\d+%?$/.test(answer.trim())) return 'number';
  return 'span';
}

function scalarText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

class Problems {
  readonly lines: string[] = [];
  add(where: string, field: string, problem: string): void {
    this.lines.push(`${where}: "${field}" ${problem}`);
  }
}

function readAnswer(rec: Record<string, unknown>, where: string, p: Problems): string | string[] | null | undefined {
  const a = pick(rec, 'answer');
  if (!a) {
    p.add(where, 'answer', 'is missing (a string, a number or a list of strings; null = unanswerable)');
    return undefined;
  }
  if (a.value === null) return null;
  const one = scalarText(a.value);
  if (one !== undefined) return one;
  if (Array.isArray(a.value) && a.value.length && a.value.every((x) => scalarText(x) !== undefined)) return a.value.map((x) => scalarText(x)!);
  p.add(where, a.field, `must be a string, a number, a list of strings or null, got ${describe(a.value)}`);
  return undefined;
}

function readDocs(rec: Record<string, unknown>, where: string, docs: Set<string> | undefined, p: Problems): string[] {
  const d = pick(rec, 'docs');
  if (!d) return [];
  const raw = Array.isArray(d.value) ? d.value : [d.value];
  const out: string[] = [];
  raw.forEach((x) => {
    if (typeof x !== 'string' || !x.trim()) return p.add(where, d.field, `must be a file name or a list of them, got ${describe(x)}`);
    const id = x.trim().replace(/^\.\//, '');
    const noExt = id.replace(/\.(md|markdown|html?|pdf|txt)$/i, '');
    if (!docs || docs.has(noExt)) out.push(noExt);
    else if (docs.has(id)) out.push(id);
    else {
      const near = didYouMean(noExt, [...docs]);
      p.add(where, d.field, `names "${x}", which is not a document of the corpus folder${near ? ` (did you mean "${near}"?)` : ''}`);
    }
  });
  return [...new Set(out)];
}

function readPages(rec: Record<string, unknown>, where: string, goldDocs: string[], p: Problems): number[] | undefined {
  const g = pick(rec, 'pages');
  if (!g) return undefined;
  const raw = Array.isArray(g.value) ? g.value : [g.value];
  if (!raw.every((x) => typeof x === 'number' && Number.isInteger(x) && x >= 1)) {
    p.add(where, g.field, `must be page numbers from 1, got ${describe(g.value)}`);
    return undefined;
  }
  if (goldDocs.length !== 1) p.add(where, g.field, 'needs exactly one gold document ("docs") the pages belong to');
  return raw as number[];
}

function readOne(x: unknown, i: number, name: string, docs: Set<string> | undefined, p: Problems): Question | undefined {
  const where = `question ${i + 1}`;
  if (!x || typeof x !== 'object' || Array.isArray(x)) {
    p.add(where, '(record)', `must be an object like {"question": "...", "answer": "..."}, got ${describe(x)}`);
    return undefined;
  }
  const rec = x as Record<string, unknown>;
  for (const k of Object.keys(rec)) {
    if (KNOWN.includes(k)) continue;
    const near = didYouMean(k, KNOWN);
    p.add(where, k, `is not a field of a questions file${near ? ` (did you mean "${near}"?)` : ''}; fields: question, answer, id, format, docs, pages`);
  }
  const qf = pick(rec, 'question');
  const question = typeof qf?.value === 'string' ? qf.value.trim() : '';
  if (!question) p.add(where, qf?.field ?? 'question', qf ? `must be a non-empty string, got ${describe(qf.value)}` : 'is missing');
  const answer = readAnswer(rec, where, p);
  const idv = pick(rec, 'id');
  const id = idv ? scalarText(idv.value) : `q${i + 1}`;
  if (id === undefined || !id.trim()) p.add(where, idv!.field, `must be a string or a number, got ${describe(idv!.value)}`);
  const fv = pick(rec, 'format');
  let format: AnswerFormat | undefined;
  if (fv) {
    if (FORMATS.includes(fv.value as AnswerFormat)) format = fv.value as AnswerFormat;
    else p.add(where, fv.field, `must be one of ${FORMATS.join(', ')}, got ${describe(fv.value)}`);
  }
  const goldDocs = readDocs(rec, where, docs, p);
  const goldPages = readPages(rec, where, goldDocs, p);
  if (!question || answer === undefined || id === undefined) return undefined;
  const evidence: Evidence[] = goldPages?.length ? goldPages.map((page) => ({ doc: goldDocs[0], page })) : goldDocs.map((doc) => ({ doc }));
  const q: Question = {
    id: id.trim(),
    benchmark: name,
    question,
    answer,
    format: format ?? guessFormat(answer),
    goldDocs,
    evidence,
    modality: [],
    meta: { source: 'own' },
  };
  // No `doc`: it would confine the search to the gold document (single-document benchmarks).
  if (goldPages?.length) q.goldPages = goldPages;
  return q;
}

/** Load your own questions (and check gold documents against the corpus folder when one is given). */
export function loadOwn(paths: OwnPaths, opts: { name?: string } = {}): BenchmarkData {
  const name = checkOwnName(opts.name ?? OWN_DEFAULT_NAME);
  if (paths.corpus && !fs.existsSync(paths.corpus)) {
    throw new KfError(
      'bench_file_missing',
      `corpus folder ${paths.corpus} does not exist`,
      'pass the folder of your PDF / HTML / Markdown files with --corpus',
      {
        concerns: paths.corpus,
      },
    );
  }
  const files = paths.corpus ? listDocFiles(paths.corpus) : undefined;
  const docs = files ? new Set(files.keys()) : undefined;
  if (docs && !docs.size) {
    throw new KfError(
      'bench_file_missing',
      `corpus folder ${paths.corpus} holds no document (.md, .html, .pdf, .txt)`,
      'put your documents in it (subfolders are fine)',
      {
        concerns: paths.corpus,
      },
    );
  }
  const p = new Problems();
  const records = readRecords(paths.questions);
  if (!records.length) p.add('(file)', '(top level)', 'holds no question');
  const questions = records.map((x, i) => readOne(x, i, name, docs, p)).filter((q): q is Question => !!q);
  const seen = new Map<string, number>();
  questions.forEach((q, i) => {
    if (seen.has(q.id)) p.add(`question ${i + 1}`, 'id', `"${q.id}" repeats question ${seen.get(q.id)! + 1}'s`);
    seen.set(q.id, i);
  });
  if (p.lines.length) {
    const shown = p.lines.slice(0, MAX_PROBLEMS).map((l) => `  ${l}`);
    const more = p.lines.length > MAX_PROBLEMS ? [`  ... and ${p.lines.length - MAX_PROBLEMS} more`] : [];
    throw new KfError(
      'bench_bad_record',
      `questions file ${paths.questions}: ${p.lines.length} problem(s):\n${[...shown, ...more].join('\n')}`,
      'each question needs "question" and "answer"; optional: id, format, docs (gold file names), pages (README: "Your own data")',
      { concerns: paths.questions },
    );
  }
  const notes = dropPagesWithoutPages(questions, files);
  return {
    name,
    questions,
    corpusDir: paths.corpus ? path.resolve(paths.corpus) : undefined,
    recallLevel: 'document',
    ...(questions.some((q) => q.goldPages?.length) ? { pageRecall: true } : {}),
    ...(notes.length ? { notes } : {}),
  };
}

/**
 * Gold pages count only in files that have pages (PDF): a question whose gold document is Markdown,
 * HTML or text keeps its document-level recall and loses its pages. Returns the note that says so.
 */
function dropPagesWithoutPages(questions: Question[], files: Map<string, string> | undefined): string[] {
  if (!files) return [];
  const dropped: Question[] = [];
  const kinds = new Set<string>();
  for (const q of questions) {
    const file = q.goldPages?.length ? files.get(q.goldDocs[0]) : undefined;
    if (!file || /\.pdf$/i.test(file)) continue;
    dropped.push(q);
    kinds.add(path.extname(file).slice(1).toLowerCase());
    delete q.goldPages;
    q.evidence = q.goldDocs.map((doc) => ({ doc }));
  }
  if (!dropped.length) return [];
  const ids =
    dropped
      .slice(0, 5)
      .map((q) => q.id)
      .join(', ') + (dropped.length > 5 ? ', ...' : '');
  return [
    `page recall does not apply to ${dropped.length} question(s) with gold pages (${ids}): their gold documents are ${[...kinds].sort().join('/')} files, ` +
      'which have no pages (only PDFs do); their document-level recall is scored',
  ];
}

/** The name a configured benchmark is shown by: own data by its user's name, every other by its loader's. */
export function benchmarkDisplayName(b: { name: string; options?: { name?: string } }): string {
  return b.name === 'own' ? (b.options?.name ?? OWN_DEFAULT_NAME) : b.name;
}
