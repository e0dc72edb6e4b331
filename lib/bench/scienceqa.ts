/**
 * ScienceQA loader (official `problems.json`: one object keyed by problem id,
 * plus optional `pid_splits.json` {train, val, test, minival, minitest: [pid]}).
 * Not obtainable here; tested on a fixture written in the official layout.
 *
 * Fields relied on, per problem: `question`, `choices` (list of option texts),
 * `answer` (0-based index into choices), `hint` (text context, "" when none),
 * `image` (file name such as "image.png", or null), `subject` (natural science |
 * social science | language science), `grade` ("grade1".."grade12"), `split`,
 * and, when present, `topic`, `category`, `skill`, `task`, `lecture`, `solution`.
 *
 * The official breakdown (scienceqa `evaluations.py`): subject NAT/SOC/LAN;
 * context TXT (hint not empty), IMG (image present), NO (neither), which overlap;
 * grade G1-6 / G7-12. Stored as meta.subjectCode, meta.contextCodes (list),
 * meta.gradeBand so buckets and the breakdown read them directly.
 *
 * Corpus: the lectures of the loaded problems, deduplicated (id `lecture-<hash>`);
 * a problem's gold document is its lecture. The hint and image are the
 * question's own context (meta.hint, meta.imagePath), not retrieval targets.
 */
import * as path from 'node:path';
import type { BenchmarkData, CorpusPassage, Modality, Question } from './types';
import { RecordReader, readJsonFile } from './read';
import { shortHash } from '../util/hash';

export interface ScienceqaPaths {
  problems: string;
  splits?: string;
  /** The official images/ folder (images/<split>/<pid>/<image>). */
  images?: string;
}

export interface ScienceqaOptions {
  /** Default 'test' (DualG-MRAG reports the 4,241 test questions); 'all' keeps every problem. */
  split?: string;
}

const SUBJECT_CODES: Record<string, string> = { 'natural science': 'NAT', 'social science': 'SOC', 'language science': 'LAN' };

export function scienceqaGradeBand(grade: string): string | undefined {
  const m = /^grade(\d+)$/.exec(grade.trim());
  if (!m) return undefined;
  const g = Number(m[1]);
  return g >= 1 && g <= 6 ? 'G1-6' : g >= 7 && g <= 12 ? 'G7-12' : undefined;
}

export function loadScienceqa(paths: ScienceqaPaths, opts: ScienceqaOptions = {}): BenchmarkData {
  const split = opts.split ?? 'test';
  const file = paths.problems;
  const r: RecordReader = new RecordReader(file, 'ScienceQA problems');
  const problems = r.object(readJsonFile(file, 'ScienceQA problems'), 'top level', '(file)');
  let pids: string[];
  if (paths.splits && split !== 'all') {
    const s: RecordReader = new RecordReader(paths.splits, 'ScienceQA splits');
    const splits = s.object(readJsonFile(paths.splits, 'ScienceQA splits'), 'top level', '(file)');
    if (splits[split] === undefined) s.fail('top level', split, `is missing (splits: ${Object.keys(splits).join(', ')})`);
    pids = s.strList(splits, split, 'top level').map(String);
    for (const pid of pids) if (!(pid in problems)) s.fail(`split ${split}`, pid, `is not a problem id of ${file}`);
  } else {
    pids = Object.keys(problems);
  }
  const lectures = new Map<string, CorpusPassage>();
  const questions: Question[] = [];
  for (const pid of pids) {
    const where = `problem "${pid}"`;
    const rec = r.object(problems[pid], where);
    const recSplit = r.optStr(rec, 'split', where);
    if (!paths.splits && split !== 'all' && recSplit !== split) continue;
    const question = r.str(rec, 'question', where);
    const choices = r.strList(rec, 'choices', where);
    if (choices.length < 2) r.fail(where, 'choices', `must list at least 2 options, got ${choices.length}`);
    const answerIndex = r.num(rec, 'answer', where, { integer: true });
    if (answerIndex < 0 || answerIndex >= choices.length) r.fail(where, 'answer', `must index choices (0..${choices.length - 1}), got ${answerIndex}`);
    const hint = r.optStr(rec, 'hint', where) ?? '';
    const image = r.optStr(rec, 'image', where) ?? null;
    const subject = r.str(rec, 'subject', where);
    const subjectCode = SUBJECT_CODES[subject];
    if (!subjectCode) r.fail(where, 'subject', `must be natural/social/language science, got "${subject}"`);
    const grade = r.str(rec, 'grade', where);
    const gradeBand = scienceqaGradeBand(grade);
    if (!gradeBand) r.fail(where, 'grade', `must be grade1..grade12, got "${grade}"`);
    const contextCodes = [...(hint.trim() ? ['TXT'] : []), ...(image ? ['IMG'] : []), ...(!hint.trim() && !image ? ['NO'] : [])];
    const lecture = (r.optStr(rec, 'lecture', where) ?? '').trim();
    let goldDocs: string[] = [];
    if (lecture) {
      const id = `lecture-${shortHash(lecture)}`;
      if (!lectures.has(id))
        lectures.set(id, { id, title: (r.optStr(rec, 'topic', where) ?? subject).trim(), text: lecture, meta: { kind: 'lecture', subject } });
      goldDocs = [id];
    }
    const modality: Modality[] = [...(hint.trim() || !image ? ['text' as const] : []), ...(image ? ['image' as const] : [])];
    const imagePath = image ? (paths.images ? path.join(paths.images, recSplit ?? split, pid, image) : path.join(recSplit ?? split, pid, image)) : undefined;
    const meta: Record<string, unknown> = { choices, answerIndex, hint, subject, subjectCode, grade, gradeBand, contextCodes, split: recSplit };
    for (const k of ['topic', 'category', 'skill', 'task', 'solution']) if (typeof rec[k] === 'string') meta[k] = rec[k];
    if (imagePath) meta.imagePath = imagePath;
    questions.push({
      id: pid,
      benchmark: 'scienceqa',
      question,
      answer: choices[answerIndex],
      format: 'span',
      goldDocs,
      evidence: goldDocs.map((doc) => ({ doc, modality: 'text' as const })),
      modality,
      type: typeof rec.category === 'string' ? rec.category : undefined,
      meta,
    });
  }
  return { name: 'scienceqa', questions, passages: [...lectures.values()], recallLevel: 'document' };
}
