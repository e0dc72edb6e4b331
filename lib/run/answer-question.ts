/**
 * One question, start to record: its view of the index (retriever + knowledge
 * base, searches timed and counted), the pipeline under the per-question time
 * limit, scoring, and the RunRecord (its trace stored first, so a record's
 * pointer always resolves). A question aborted by the user returns undefined:
 * it is not recorded and runs again on resume.
 */
import type { BenchmarkData, Question } from '../bench/types';
import { questionFieldValues } from '../bench/fields';
import type { Retriever, SearchOptions } from '../index/types';
import { retrievalScores } from '../eval/retrieval';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import { retrieverKnowledgeBase } from '../pipeline/retriever-knowledge-base';
import { ModelOutputError } from '../model-api/model-output-error';
import { redactDeep } from '../model-api/redact';
import { KfError, errorMessage, isKfError } from '../util/errors';
import { backendLabel } from './aggregate';
import type { ExperimentConfig } from './config';
import { recordErrorOf } from './error-kind';
import { asQuestionIndex, withForcedSearch, type RetrieverProvider } from './index-provider';
import { RECORD_VERSION, type RecordError, type RunRecord } from './records';
import type { RunnerRouter } from './runner-types';
import { questionSetup, type QuestionCalls } from './question-setup';

export type { QuestionCalls } from './question-setup';
import type { Scorer } from './scoring';
import { Aborted, anySignal, raceSignal } from './signals';
import type { TraceStore } from './trace-store';
import type { Pipeline, PipelineContext, PipelineResult, TraceEvent } from '../pipeline/types';

/** Fields always stored in records for --by. */
export const RECORD_BUCKET_FIELDS = ['modality', 'hops', 'type', 'format', 'page', 'source', 'answerable'];

/** What every question of a run shares. */
export interface QuestionEnv {
  config: ExperimentConfig;
  configHash: string;
  runId: string;
  models: RunnerRouter;
  configured: string;
  pipeline: Pipeline;
  settings: Record<string, unknown>;
  retrieverFor?: RetrieverProvider;
  forced: SearchOptions;
  scorer: Scorer;
  recallLevel: BenchmarkData['recallLevel'];
  /** Page-level recall beside the document level (own data over PDFs). */
  pageRecall?: boolean;
  traces: TraceStore;
  inFlight: Map<string, QuestionCalls>;
  abortSignal?: AbortSignal;
}

interface Timing {
  indexMs: number;
  pipelineMs: number;
  scoreMs: number;
  searchMs: number;
  searches: number;
}

function checkResult(r: unknown, q: Question, pipeline: string): PipelineResult {
  const x = r as PipelineResult;
  if (!x || typeof x !== 'object' || typeof x.prediction !== 'string' || typeof x.finalAnswer !== 'string') {
    throw new KfError(
      'bad_pipeline_result',
      `pipeline ${pipeline} returned no {prediction, finalAnswer} strings for question ${q.id}`,
      'fix the pipeline: run() must resolve to a PipelineResult',
    );
  }
  // Scoring reads an empty final answer as a refusal (a correct answer to an unanswerable question): it is never a model's answer.
  if (!x.finalAnswer.trim()) throw new ModelOutputError('final', 'no_final_answer', `pipeline ${pipeline} ended with an empty final answer`, x.prediction);
  return x;
}

/** The same view with every search passed through `hook` (the runner times and counts searches). */
function withSearchHook(kb: KnowledgeBase, hook: <T>(f: () => Promise<T>) => Promise<T>): KnowledgeBase {
  const view = Object.create(kb) as KnowledgeBase;
  Object.defineProperty(view, 'search', { value: (query: string, o?: Parameters<KnowledgeBase['search']>[1]) => hook(() => kb.search(query, o)) });
  return view;
}

/** The question's index view: retriever and knowledge base with the run's forced search settings, every search timed. */
async function questionView(
  env: QuestionEnv,
  q: Question,
  signal: AbortSignal,
  timing: Timing,
): Promise<Partial<Pick<PipelineContext, 'retriever' | 'kb' | 'fragment' | 'docTitle'>>> {
  if (!env.retrieverFor) return {};
  const ti = Date.now();
  const idx = asQuestionIndex(await raceSignal(Promise.resolve(env.retrieverFor(q)), signal));
  timing.indexMs = Date.now() - ti;
  if (!idx) return {};
  const base = withForcedSearch(idx.retriever, env.forced);
  const timed = async <T>(f: () => Promise<T>): Promise<T> => {
    const ts = Date.now();
    try {
      return await f();
    } finally {
      timing.searchMs += Date.now() - ts;
      timing.searches++;
    }
  };
  const retriever: Retriever = { search: (query, o) => timed(() => base.search(query, o)) };
  const view = idx.kb ?? retrieverKnowledgeBase(base, { fragment: idx.fragment, docTitle: idx.docTitle });
  return { retriever, kb: withSearchHook(view, timed), fragment: idx.fragment, docTitle: idx.docTitle };
}

/** What a question produced; filled step by step, so a failure while scoring still records the pipeline's counters and retrieval. */
interface Solved {
  result?: PipelineResult;
  scored?: Awaited<ReturnType<Scorer>>;
  retrieval?: Record<string, number> | null;
}

/** Run the pipeline on the question, then score its answer (and its retrieval, when it searched). */
async function solve(env: QuestionEnv, q: Question, signal: AbortSignal, trace: (e: TraceEvent) => void, timing: Timing, out: Solved): Promise<void> {
  const view = await questionView(env, q, signal, timing);
  const { ctx, model } = questionSetup({
    question: q,
    models: env.models,
    runId: env.runId,
    view,
    settings: env.settings,
    rngKey: `${env.config.seed}/${q.id}`,
    signal,
    trace,
  });
  const tp = Date.now();
  const result = checkResult(
    await raceSignal(
      Promise.resolve().then(() => env.pipeline.run(ctx)),
      signal,
    ),
    q,
    env.pipeline.name,
  );
  out.result = result;
  timing.pipelineMs = Date.now() - tp;
  const ts = Date.now();
  try {
    out.scored = await raceSignal(env.scorer(q, result, { model, embedder: env.models.embedder?.(), signal, config: env.config, runId: env.runId }), signal);
    out.retrieval = result.retrieval
      ? retrievalScores(q, result.retrieval, { ks: env.config.scoring.ks, level: env.recallLevel, alsoPages: env.pageRecall })
      : null;
    timing.scoreMs = Date.now() - ts;
  } catch (e) {
    if (e instanceof Aborted) throw e;
    throw new KfError('score_failed', `scoring question ${q.id} failed: ${errorMessage(e)}`, 'see the trace', { cause: e });
  }
}

function retrievalStatsOf(log: PipelineResult['retrieval']): Pick<RunRecord, 'retrievalStats'> {
  if (!log) return {};
  return {
    retrievalStats: {
      searches: log.searches?.length ?? 0,
      hits: (log.searches ?? []).reduce((n, s) => n + s.hits.length, 0),
      firstSearchDocs: (log.firstSearch ?? []).map((h) => h.docId),
      ...(log.poolChars !== undefined ? { poolChars: log.poolChars } : {}),
      ...(log.poolTrimmed !== undefined ? { poolTrimmed: log.poolTrimmed } : {}),
    },
  };
}

function recordOf(
  env: QuestionEnv,
  q: Question,
  x: { solved: Solved; error: RecordError | null; calls: QuestionCalls; tracePtr: RunRecord['trace']; t0: number; timing: Timing },
): RunRecord {
  const { solved, error } = x;
  const buckets: Record<string, string[]> = {};
  for (const f of [...RECORD_BUCKET_FIELDS, ...env.config.output.buckets]) buckets[f] = questionFieldValues(q, f);
  return {
    v: RECORD_VERSION,
    id: q.id,
    runId: env.runId,
    configHash: env.configHash,
    benchmark: q.benchmark,
    pipeline: env.pipeline.name,
    ...(env.pipeline.promptPack ? { promptPack: env.pipeline.promptPack } : {}),
    backend: x.calls.backends.size ? backendLabel(x.calls.backends) : env.configured,
    models: [...x.calls.models].sort(),
    seed: `${env.config.seed}/${q.id}`,
    question: q.question,
    gold: q.answer,
    ...(q.altAnswers?.length ? { altAnswers: q.altAnswers } : {}),
    prediction: error ? null : solved.result!.prediction,
    finalAnswer: error ? null : solved.result!.finalAnswer,
    scores: error ? {} : solved.scored!.scores,
    retrieval: error ? null : (solved.retrieval ?? null),
    ...retrievalStatsOf(solved.result?.retrieval),
    counters: solved.result?.counters ?? {},
    ...(solved.result?.system ? { system: solved.result.system } : {}),
    ...(solved.result?.departures?.length ? { departures: [...new Set(solved.result.departures)] } : {}),
    usage: env.models.ledger.byQuestion(q.id),
    timings: { startedAt: new Date(x.t0).toISOString(), totalMs: Date.now() - x.t0, ...x.timing },
    buckets,
    trace: x.tracePtr,
    error,
    ...(solved.scored?.extraction ? { extraction: solved.scored.extraction } : {}),
  };
}

/** Answer, score and record one question; undefined when the user aborted it (not recorded, answered again on resume). */
export async function answerQuestion(env: QuestionEnv, q: Question): Promise<RunRecord | undefined> {
  const t0 = Date.now();
  const events: TraceEvent[] = [];
  const trace = (e: TraceEvent) => void events.push({ t: Date.now() - t0, ...e });
  const calls: QuestionCalls = { backends: new Set(), models: new Set(), trace };
  env.inFlight.set(q.id, calls);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new Error('timeout')), env.config.limits.timeoutMs);
  const joined = env.abortSignal ? anySignal(timeout.signal, env.abortSignal) : undefined;
  const timing: Timing = { indexMs: 0, pipelineMs: 0, scoreMs: 0, searchMs: 0, searches: 0 };
  const solved: Solved = {};
  let error: RecordError | null = null;
  try {
    await solve(env, q, joined?.signal ?? timeout.signal, trace, timing, solved);
  } catch (e) {
    if (env.abortSignal?.aborted && !timeout.signal.aborted) return undefined; // aborted by the user
    error = recordErrorOf(e, timeout.signal.aborted ? { questionId: q.id, limitMs: env.config.limits.timeoutMs } : undefined);
    trace({
      kind: 'error',
      code: error.code,
      errorKind: error.kind,
      message: error.message,
      ...(error.stage ? { stage: error.stage } : {}),
      ...(e instanceof Error && !isKfError(e) ? { stack: e.stack?.split('\n').slice(0, 8).join('\n') } : {}),
    });
  } finally {
    clearTimeout(timer);
    joined?.dispose();
    env.inFlight.delete(q.id);
  }
  const result = solved.result;
  // Secrets by value (lib/model-api/redact.ts): an error body, a knowledge-base reply or a tool result may echo a key.
  const tracePtr = env.traces.write(
    q.id,
    redactDeep({
      id: q.id,
      runId: env.runId,
      seed: `${env.config.seed}/${q.id}`,
      pipeline: env.pipeline.name,
      events,
      retrieval: result?.retrieval ?? null,
      counters: result?.counters ?? {},
      error,
    }),
  );
  // The id stays as the benchmark wrote it: resume matches records by id.
  return { ...redactDeep(recordOf(env, q, { solved, error, calls, tracePtr, t0, timing })), id: q.id };
}
