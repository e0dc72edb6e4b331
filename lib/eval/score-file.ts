/**
 * Scoring any system's outputs with a benchmark's own scorer (`kf score`):
 * researchers score their systems the way the paper scored KnowForge.
 *
 * A predictions file is JSON lines; each line has
 * - `response` (the whole reply; benchmarks whose released scorer reads the
 *   reply, such as M3DocVQA, take the prediction from it) or `final` (the final
 *   answer value alone);
 * - `id` (a question id of the benchmark) or an inline `gold` (a string, or a
 *   list for list answers), optionally with `type` (MultiHop-RAG question type)
 *   and `answer_format` (MMLongBench-Doc: Str, Int, Float, List, None).
 * Every line is checked before anything is scored: a bad line is an error
 * naming its line number, and nothing is written.
 */
import * as fs from 'node:fs';
import { benchmarkSpec } from '../bench/registry';
import type { AnswerFormat, Question } from '../bench/types';
import { KfError } from '../util/errors';
import { findFinalAnswer } from './metrics/final-answer';
import { scoreAnswer, scoreAnswerWithJudge, type JudgeScoreOptions } from './score';

export interface PredictionLine {
  /** 1-based line number in the file. */
  line: number;
  id?: string;
  response?: string;
  final?: string;
  gold?: string | string[];
  type?: string;
  answerFormat?: string;
  /** The question text, for a judge reading an inline-gold line (MMLongBench-Doc). */
  question?: string;
}

export interface ScoredLine {
  line: number;
  id?: string;
  /** The value that was scored (the final answer; for reply-reading scorers, the reply decided). */
  final: string;
  gold: string | string[] | null;
  scores: Record<string, number>;
}

export interface ScoreSummary {
  bench: string;
  n: number;
  /** Mean of each metric over the lines that have it (0..1). */
  mean: Record<string, number>;
  /** The benchmark's own run-level numbers (MMLongBench-Doc accuracy and F1), where it has them. */
  official?: Record<string, number>;
  /** Lines scored against an inline gold rather than a benchmark question. */
  inlineGold: number;
}

const MMLB_FORMATS = ['Str', 'Int', 'Float', 'List', 'None'];

function bad(file: string, line: number, problem: string, fix: string): KfError {
  return new KfError('bad_predictions', `${file}: line ${line} ${problem}`, fix, { concerns: file });
}

function optionalString(o: Record<string, unknown>, key: string, file: string, line: number): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(file, line, `field "${key}" must be a string, got ${typeof v}`, `write "${key}" as a JSON string`);
  return v;
}

function goldOf(o: Record<string, unknown>, file: string, line: number): string | string[] | undefined {
  const g = o.gold;
  if (g === undefined || g === null) return undefined;
  if (typeof g === 'string') return g;
  if (Array.isArray(g) && g.every((x) => typeof x === 'string' || typeof x === 'number')) return g.map(String);
  throw bad(file, line, 'field "gold" must be a string or a list of strings', 'e.g. "gold": "Paris" or "gold": ["Paris", "Rome"]');
}

/** One line's fields, checked. */
function parseLine(o: unknown, file: string, line: number): PredictionLine {
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw bad(file, line, 'is not a JSON object', 'write one object per line');
  const r = o as Record<string, unknown>;
  const id = r.id === undefined || r.id === null ? undefined : String(r.id);
  const p: PredictionLine = {
    line,
    id,
    response: optionalString(r, 'response', file, line),
    final: optionalString(r, 'final', file, line),
    gold: goldOf(r, file, line),
    type: optionalString(r, 'type', file, line),
    answerFormat: optionalString(r, 'answer_format', file, line) ?? optionalString(r, 'answerFormat', file, line),
    question: optionalString(r, 'question', file, line),
  };
  if (p.response === undefined && p.final === undefined)
    throw bad(file, line, 'has neither "response" nor "final"', 'give the reply as "response" or the final answer as "final"');
  if (p.id === undefined && p.gold === undefined)
    throw bad(file, line, 'has neither a question "id" nor an inline "gold"', 'add the benchmark question id, or the gold answer as "gold"');
  if (p.answerFormat !== undefined && !MMLB_FORMATS.includes(p.answerFormat))
    throw bad(file, line, `answer_format "${p.answerFormat}" is not one of ${MMLB_FORMATS.join(', ')}`, 'use an MMLongBench-Doc answer format');
  return p;
}

/** Read and check a predictions file (JSON lines; blank lines skipped). */
export function readPredictions(file: string): PredictionLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new KfError('predictions_unreadable', `cannot read predictions file ${file}: ${(e as Error).message}`, 'check --predictions', {
      concerns: file,
      cause: e,
    });
  }
  const out: PredictionLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let o: unknown;
    try {
      o = JSON.parse(raw);
    } catch (e) {
      throw bad(file, i + 1, `is not valid JSON (${(e as Error).message})`, 'write one JSON object per line');
    }
    out.push(parseLine(o, file, i + 1));
  });
  if (!out.length) throw new KfError('bad_predictions', `predictions file ${file} has no lines`, 'write one JSON object per prediction', { concerns: file });
  return out;
}

function inferredFormat(gold: string | string[], p: PredictionLine): AnswerFormat {
  if (Array.isArray(gold)) return 'list';
  if (p.type === 'null' || p.answerFormat === 'None') return 'unanswerable';
  return p.answerFormat === 'Int' || p.answerFormat === 'Float' ? 'number' : 'span';
}

/** A question standing for an inline gold answer. */
export function inlineQuestion(bench: string, p: PredictionLine): Question {
  const gold = p.gold!;
  const meta: Record<string, unknown> = {};
  if (p.answerFormat) meta.answerFormat = p.answerFormat;
  if (typeof gold === 'string') meta.answerRaw = gold;
  return {
    id: p.id ?? `line-${p.line}`,
    benchmark: bench,
    question: p.question ?? '',
    answer: gold,
    format: inferredFormat(gold, p),
    goldDocs: [],
    evidence: [],
    modality: [],
    ...(p.type ? { type: p.type } : {}),
    meta,
  };
}

/** The question each line is scored against: its inline gold, else the benchmark question of its id. */
export function questionsFor(bench: string, lines: readonly PredictionLine[], byId: ReadonlyMap<string, Question> | undefined, file: string): Question[] {
  const missing = lines.filter((p) => p.gold === undefined && !byId?.has(p.id!));
  if (missing.length) {
    const ids = missing.slice(0, 5).map((p) => `${p.id} (line ${p.line})`);
    throw new KfError(
      'unknown_question',
      `${file}: ${missing.length} line(s) name a question ${bench} does not have: ${ids.join(', ')}${missing.length > 5 ? ', ...' : ''}`,
      byId
        ? 'check the ids against --questions, or give each line an inline "gold"'
        : 'pass --questions <file> (the benchmark file is absent here), or give each line an inline "gold"',
      { concerns: file },
    );
  }
  return lines.map((p) => (p.gold !== undefined ? inlineQuestion(bench, p) : byId!.get(p.id!)!));
}

/** The value a line is scored on: its final answer, else the reply's final line, else the reply. */
const valueOf = (p: PredictionLine) => p.final ?? findFinalAnswer(p.response!) ?? p.response!.trim();

/** Score every line; the summary has the mean of each metric and the benchmark's official aggregate. */
export function scorePredictions(
  bench: string,
  lines: readonly PredictionLine[],
  questions: readonly Question[],
): { summary: ScoreSummary; scored: ScoredLine[] } {
  const scored = lines.map((p, i): ScoredLine => {
    const q = questions[i];
    // A reply without a final line is scored on its text by the harness's rule; reply-reading scorers decide themselves.
    const value = valueOf(p);
    const scores = scoreAnswer(q, value, p.response === undefined ? {} : { reply: p.response });
    return { line: p.line, ...(p.id === undefined ? {} : { id: p.id }), final: value, gold: q.answer, scores };
  });
  return { summary: summarise(bench, lines, scored), scored };
}

/**
 * Score every line with the benchmark's model-judge protocol (MMLongBench-Doc: the judge extracts the
 * answer from the whole reply, then the rule-based scorer grades it), one line at a time.
 */
export async function judgePredictions(
  bench: string,
  lines: readonly PredictionLine[],
  questions: readonly Question[],
  opts: JudgeScoreOptions,
): Promise<{ summary: ScoreSummary; scored: (ScoredLine & { extracted?: string })[] }> {
  const scored: (ScoredLine & { extracted?: string })[] = [];
  for (const [i, p] of lines.entries()) {
    const q = questions[i];
    const value = valueOf(p);
    const r = await scoreAnswerWithJudge(q, value, { ...opts, fullText: p.response ?? value, questionId: p.id ?? q.id, reply: p.response });
    scored.push({ line: p.line, ...(p.id === undefined ? {} : { id: p.id }), final: value, gold: q.answer, scores: r.scores, extracted: r.extraction?.pred });
  }
  return { summary: summarise(bench, lines, scored), scored };
}

function summarise(bench: string, lines: readonly PredictionLine[], scored: readonly ScoredLine[]): ScoreSummary {
  const sums = new Map<string, { total: number; n: number }>();
  for (const s of scored)
    for (const [k, v] of Object.entries(s.scores)) {
      const e = sums.get(k) ?? { total: 0, n: 0 };
      e.total += v;
      e.n++;
      sums.set(k, e);
    }
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const mean = Object.fromEntries([...sums].map(([k, e]) => [k, round(e.total / e.n)]));
  const agg = benchmarkSpec(bench)?.aggregate?.(scored.map((s) => s.scores));
  const official = agg ? { acc: round(agg.acc), f1: round(agg.f1), n: agg.n } : undefined;
  const summary: ScoreSummary = {
    bench,
    n: scored.length,
    mean,
    ...(official ? { official } : {}),
    inlineGold: lines.filter((p) => p.gold !== undefined).length,
  };
  return summary;
}
