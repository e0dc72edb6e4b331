/**
 * The experiment runner: a resolved experiment in, one RunRecord per question
 * out, in `results/<run-id>/`:
 *
 *   records.jsonl   one line per finished question (answered or failed), appended
 *                   with fsync by a single writer: a kill -9 loses at most the
 *                   questions in flight, and a rerun with the same run id skips
 *                   every recorded id (never a duplicate record)
 *   traces/<id>.json  (or traces.jsonl) what happened inside the question
 *   manifest.json   config + hash, seed, git, models per stage, counts, usage;
 *                   rewritten atomically at start, at checkpoints and at the end
 *   .lock           while a process writes the run
 *
 * Questions run on `concurrency` async workers (default 4, the paper's harness).
 * A failing question is recorded with its error and the run goes on, until
 * `limits.maxErrors` failures in this invocation. `stopSignal` (first Ctrl-C)
 * stops taking new questions and lets the in-flight ones finish;
 * `abortSignal` (second Ctrl-C) aborts them (they stay unrecorded and rerun on
 * resume). Everything the run touches is injectable: pipeline, model router,
 * index provider, questions, scorer, progress.
 */
import * as path from 'node:path';
import type { BenchmarkData, Question } from '../bench/types';
import { questionFieldValues } from '../bench/fields';
import type { Embedder, Retriever } from '../index/types';
import { scoreAnswer, scoreAnswerWithJudge } from '../eval/score';
import { retrievalScores } from '../eval/retrieval';
import { conventionFor } from '../knowforge/conventions';
import type { LedgerTotals } from '../models/ledger';
import { createModelRouter, type StageRoute } from '../models/router';
import { registerOfflineHandlers } from '../offline-backend';
import type { ChatModel, Stage } from '../models/types';
import { KfError, errorMessage, isKfError } from '../util/errors';
import { JsonlWriter, ensureWritableDir } from '../util/fsx';
import { repoRoot } from '../util/paths';
import { makeRng } from '../util/rng';
import { configDiff, expandPath, resultAffecting, type ExperimentConfig, type ResolvedExperiment } from './config';
import { asQuestionIndex, indexProviderFromConfig, withForcedSearch, type IndexInfo, type RetrieverProvider } from './index-provider';
import { acquireRunLock } from './lock';
import { addTotals, backendLabel, emptyTotals, percentile } from './aggregate';
import { backendNoteFor, readRunManifest, stampNow, writeRunManifest, type RunCounts, type RunManifest, type RunSession, type RunStatus } from './manifest';
import { silentProgress, type ProgressSink } from './progress';
import { loadConfiguredBenchmark, selectQuestions, type Selection } from './questions';
import { RECORD_VERSION, keepRecordsCopy, readRecords, recordsFileOf, rewriteRecords, type RecordError, type RunRecord } from './records';
import { openTraceStore, type TraceStore } from './trace-store';
import { getPipeline } from './registry';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import { retrieverKnowledgeBase } from '../pipeline/retriever-knowledge-base';
import { SUBSET_KEYWORDS } from './schema';
import type { Pipeline, PipelineContext, PipelineResult, TraceEvent } from './types';

/** The part of a ModelRouter the runner uses (createModelRouter's result satisfies it; tests pass small fakes). */
export interface RunnerRouter {
  forStage(stage: Stage): ChatModel;
  describe(): StageRoute[];
  readonly ledger: {
    onRecord(listener: (e: { stage: string; model: string; backend: string; questionId?: string; promptTokens: number; completionTokens: number; latencyMs: number; cacheHit: boolean; error?: string }) => void): () => void;
    byQuestion(questionId: string): LedgerTotals;
    toJSON(): { totals: LedgerTotals; byStage: Record<string, LedgerTotals>; byModel: Record<string, LedgerTotals>; byBackend: Record<string, LedgerTotals> };
  };
  embedder?(): Embedder | undefined;
  close(): Promise<void>;
}

export interface ScoreContext {
  model(stage: Stage): ChatModel;
  embedder?: Embedder;
  signal: AbortSignal;
  config: ExperimentConfig;
  runId: string;
}

export type Scorer = (q: Question, result: PipelineResult, ctx: ScoreContext) => Promise<{ scores: Record<string, number>; extraction?: RunRecord['extraction'] }>;

export interface RunOptions {
  experiment: ResolvedExperiment;
  /** Default: `<name>-<subset>-<hash8>`, so rerunning the same command resumes. */
  runId?: string;
  /** Parent of run folders (default <repo>/results). */
  resultsDir?: string;
  /** Drop error records and answer those questions again. */
  retryErrors?: boolean;
  pipeline?: Pipeline;
  router?: RunnerRouter;
  retrieverFor?: RetrieverProvider;
  /** Questions (and recall level) to use instead of loading the configured benchmark. */
  benchmark?: BenchmarkData;
  scorer?: Scorer;
  /** Stop taking new questions (in-flight ones finish and are recorded). */
  stopSignal?: AbortSignal;
  /** Abort in-flight questions (not recorded; they rerun on resume). */
  abortSignal?: AbortSignal;
  progress?: ProgressSink;
  /** Status lines (default: progress.log). */
  log?: (line: string) => void;
  /** The command shown for resuming (default built from the experiment file and overrides). */
  resumeCommand?: string;
}

export interface RunOutcome {
  runId: string;
  dir: string;
  status: RunStatus;
  counts: RunCounts;
  /** Records written by this invocation, and how many carry an error. */
  recordedNow: number;
  errorsNow: number;
  resumedWith: number;
  manifest: RunManifest;
  resumeCommand: string;
}

const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,150}$/;

export function checkRunId(runId: string): string {
  if (!RUN_ID.test(runId) || runId.includes('..')) {
    throw new KfError('bad_run_id', `run id "${runId}" is not a plain folder name`, 'use letters, digits, ".", "_", "+" and "-" (it becomes results/<run-id>/)');
  }
  return runId;
}

/** `<name>-<subset>-<hash8>`: the same config and subset give the same id, so a rerun resumes. */
export function defaultRunId(exp: ResolvedExperiment): string {
  const subset = exp.config.benchmark.subset;
  const tag = (SUBSET_KEYWORDS as readonly string[]).includes(subset) ? (subset === 'all' ? 'full' : subset) : path.basename(subset).replace(/\.[^.]+$/, '');
  const sample = exp.config.benchmark.sample ? `-n${exp.config.benchmark.sample.n}` : '';
  return `${exp.config.name}-${tag}${sample}-${exp.hash.slice(0, 8)}`.replace(/[^A-Za-z0-9._+-]+/g, '_');
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function resumeCommandFor(exp: ResolvedExperiment, runId: string): string {
  const rel = exp.file ? path.relative(process.cwd(), exp.file) : '<experiment>';
  const file = exp.file && !rel.startsWith('..') ? rel : (exp.file ?? '<experiment>');
  return ['kf run', shellQuote(file), '--run-id', shellQuote(runId), ...exp.overrides.map((o) => `--override ${shellQuote(o)}`)].join(' ');
}


/** The configured label: backends of the answering stages (embedding excluded: it feeds retrieval, not answers). */
export function configuredBackend(routes: StageRoute[]): string {
  return backendLabel(routes.filter((r) => r.stage !== 'embedding').map((r) => r.backend));
}




/** Fields always stored in records for --by. */
export const RECORD_BUCKET_FIELDS = ['modality', 'hops', 'type', 'format', 'page', 'source', 'answerable'];

/** The default scorer: the benchmark's rule-based metrics, or the model-judge protocols with scoring.judge. */
export const defaultScorer: Scorer = async (q, result, ctx) => {
  const s = ctx.config.scoring;
  if (s.judge) {
    const judged = await scoreAnswerWithJudge(q, result.finalAnswer, {
      judge: ctx.model('scorer'),
      embedder: ctx.embedder,
      fullText: result.prediction,
      refusalAsNotAnswerable: s.refusalAsNotAnswerable,
      questionId: q.id,
      runId: ctx.runId,
      signal: ctx.signal,
    });
    return { scores: judged.scores, extraction: judged.extraction as RunRecord['extraction'] };
  }
  return { scores: scoreAnswer(q, result.finalAnswer, { refusalAsNotAnswerable: s.refusalAsNotAnswerable }) };
};

class Aborted extends Error {}

/** A signal that aborts when either does, and a dispose that detaches it (no listener piles up on a run-wide signal). */
function anySignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  const c = new AbortController();
  const onA = () => c.abort(a.reason);
  const onB = () => c.abort(b.reason);
  if (a.aborted) c.abort(a.reason);
  else if (b.aborted) c.abort(b.reason);
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return {
    signal: c.signal,
    dispose: () => {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}

/** Settle with the promise, or reject as soon as the signal fires (a pipeline that ignores its signal cannot hang the run). */
function raceSignal<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Aborted('aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Aborted('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function checkResult(r: unknown, q: Question, pipeline: string): PipelineResult {
  const x = r as PipelineResult;
  if (!x || typeof x !== 'object' || typeof x.prediction !== 'string' || typeof x.finalAnswer !== 'string') {
    throw new KfError('bad_pipeline_result', `pipeline ${pipeline} returned no {prediction, finalAnswer} strings for question ${q.id}`, 'fix the pipeline: run() must resolve to a PipelineResult');
  }
  return x;
}

/** The same view with every search passed through `hook` (the runner times and counts searches). */
function withSearchHook(kb: KnowledgeBase, hook: <T>(f: () => Promise<T>) => Promise<T>): KnowledgeBase {
  const view = Object.create(kb) as KnowledgeBase & { search: KnowledgeBase['search'] };
  Object.defineProperty(view, 'search', { value: (query: string, o?: Parameters<KnowledgeBase['search']>[1]) => hook(() => kb.search(query, o)) });
  return view;
}

interface QuestionCalls {
  backends: Set<string>;
  models: Set<string>;
  trace: (e: TraceEvent) => void;
}

/** Run (or resume) an experiment. Resolves when every selected question is recorded, or the run stopped (see status). */
export async function runExperiment(opts: RunOptions): Promise<RunOutcome> {
  const exp = opts.experiment;
  const config = exp.config;
  const runId = checkRunId(opts.runId ?? defaultRunId(exp));
  const resultsDir = opts.resultsDir ?? path.join(repoRoot(), 'results');
  const dir = ensureWritableDir(path.join(resultsDir, runId), 'run directory');
  const progress = opts.progress ?? silentProgress;
  const log = opts.log ?? ((l: string) => progress.log(l));
  const resumeCommand = opts.resumeCommand ?? resumeCommandFor(exp, runId);

  const lock = acquireRunLock(dir, runId);
  let ownsRouter = false;
  let router: RunnerRouter | undefined;
  let unsubscribe: (() => void) | undefined;
  let writer: JsonlWriter | undefined;
  let traces: TraceStore | undefined;
  try {
    if (lock.tookOver) log(`run ${runId}: taking over the lock of pid ${lock.tookOver.pid} (no longer running)`);
    const previous = readRunManifest(dir);
    if (previous && previous.configHash !== exp.hash) {
      const changed = configDiff(resultAffecting(previous.config), resultAffecting(config));
      throw new KfError(
        'run_config_changed',
        `run ${runId} was started with another config (hash ${previous.configHash}, now ${exp.hash}; changed: ${changed.slice(0, 8).join(', ') || 'unknown'})`,
        'resuming would mix answers of two configs: pass a new --run-id, or undo the change',
        { concerns: dir },
      );
    }

    // Questions.
    const bench = opts.benchmark ? { data: opts.benchmark, files: {} as Record<string, string> } : loadConfiguredBenchmark(config);
    const selection: Selection = selectQuestions(bench.data, config);
    const seen = new Set<string>();
    const selected = selection.questions.filter((q) => (seen.has(q.id) ? false : (seen.add(q.id), true)));
    const selectedIds = new Set(selected.map((q) => q.id));

    // Records already there (resume), compacted when a crash cut a line or errors are retried.
    const recFile = recordsFileOf(dir);
    const existing = readRecords(recFile);
    const foreign = existing.records.filter((r) => r.configHash !== exp.hash);
    if (foreign.length) {
      throw new KfError('run_config_changed', `${recFile} holds ${foreign.length} records of another config (hash ${foreign[0].configHash}, now ${exp.hash})`, 'pass a new --run-id for this config', { concerns: recFile });
    }
    let kept = existing.records;
    const retried = opts.retryErrors ? kept.filter((r) => r.error).length : 0;
    if (opts.retryErrors) kept = kept.filter((r) => !r.error);
    if (existing.badLines || existing.duplicates.length || retried) {
      // Unreadable or duplicate lines are dropped from the live file, but nothing is thrown
      // away: the file as it was stays beside it (a hand-edited or damaged line can be repaired).
      const copy = existing.badLines || existing.duplicates.length ? keepRecordsCopy(recFile) : undefined;
      rewriteRecords(recFile, kept);
      const what = [existing.badLines ? `${existing.badLines} cut line(s) dropped` : '', existing.duplicates.length ? `${existing.duplicates.length} duplicate record(s) dropped` : '', retried ? `${retried} error record(s) to retry` : ''].filter(Boolean);
      log(`run ${runId}: records compacted (${what.join(', ')})${copy ? `; the file as it was is kept as ${path.basename(copy)}` : ''}`);
    }
    const done = new Set(kept.map((r) => r.id));
    const todo = selected.filter((q) => !done.has(q.id));

    // Pipeline, models, index.
    const settings: Record<string, unknown> = { ...config.pipeline.settings, ...config.caps };
    const pipeline = opts.pipeline ?? getPipeline(config.pipeline.name, settings);
    if (opts.router) router = opts.router;
    else {
      ownsRouter = true;
      const cacheFile = config.models.cache?.file ? expandPath(config.models.cache.file) : undefined;
      registerOfflineHandlers();
      router = createModelRouter({ ...config.models, cache: config.models.cache ? { ...config.models.cache, file: cacheFile } : undefined }, { runId, cacheFile });
    }
    const models = router;
    const routes = models.describe();
    const configured = configuredBackend(routes);
    const indexSource = opts.retrieverFor ? undefined : indexProviderFromConfig(config, { models, data: bench.data, log });
    const retrieverFor = opts.retrieverFor ?? indexSource?.provider;
    const forced = config.index?.search ?? {};
    if (pipeline.needsIndex && !retrieverFor) {
      throw new KfError('no_index', `pipeline ${pipeline.name} searches an index but experiment ${config.name} configures none`, 'add an [index] table (dir, or build = "ensure"), or use S0 for closed book', { concerns: config.name });
    }

    // Per-question attribution of model calls (backends, models, trace events).
    const inFlight = new Map<string, QuestionCalls>();
    unsubscribe = models.ledger.onRecord((e) => {
      const c = e.questionId !== undefined ? inFlight.get(e.questionId) : undefined;
      if (!c) return;
      c.backends.add(e.backend);
      c.models.add(e.model);
      c.trace({ kind: 'model-call', stage: e.stage, model: e.model, backend: e.backend, promptTokens: e.promptTokens, completionTokens: e.completionTokens, latencyMs: e.latencyMs, cacheHit: e.cacheHit, ...(e.error ? { error: e.error } : {}) });
    });

    // Run-wide state (for the manifest): over all records, kept + new.
    const usage = emptyTotals();
    const backendsSeen = new Set<string>();
    const okTimes: number[] = [];
    let errorsTotal = 0;
    const account = (r: RunRecord) => {
      addTotals(usage, r.usage);
      if (r.usage?.calls) backendsSeen.add(r.backend);
      if (r.error) errorsTotal++;
      else if (typeof r.timings?.totalMs === 'number') okTimes.push(r.timings.totalMs);
    };
    kept.forEach(account);

    const startedAt = new Date().toISOString();
    const session: RunSession = { startedAt, pid: process.pid, status: 'running', recorded: 0, errors: 0, resumedWith: kept.length };
    const sessions = [...(previous?.sessions ?? []).map((s) => (s.status === 'running' ? { ...s, status: 'interrupted' as RunStatus, endedAt: s.endedAt ?? previous?.updatedAt } : s)), session];
    let indexInfo: IndexInfo | undefined = indexSource?.info();
    const manifestNow = (status: RunStatus, detail?: string): RunManifest => {
      const recorded = done.size;
      const inSelection = [...done].filter((id) => selectedIds.has(id)).length;
      const backend = backendsSeen.size ? backendLabel(backendsSeen) : configured;
      const now = new Date().toISOString();
      const m: RunManifest = {
        kind: 'kf-run',
        version: 1,
        runId,
        status,
        ...(detail ? { statusDetail: detail } : {}),
        experiment: { name: config.name, description: config.description, file: exp.file, files: exp.files, overrides: exp.overrides },
        config,
        configHash: exp.hash,
        seed: config.seed,
        backend,
        ...(backendNoteFor(backend) ? { backendNote: backendNoteFor(backend) } : {}),
        stamp: stampNow(),
        pipeline: { name: pipeline.name, description: pipeline.description },
        models: routes,
        benchmark: {
          name: config.benchmark.name,
          split: config.benchmark.split,
          subset: config.benchmark.subset,
          files: bench.files,
          questionsLoaded: bench.data.questions.length,
          missingIds: selection.missingIds.length,
          missingIdsSample: selection.missingIds.slice(0, 10),
          ...(selection.sample ? { sample: selection.sample } : {}),
        },
        startedAt: previous?.startedAt ?? startedAt,
        updatedAt: now,
        ...(status !== 'running' ? { endedAt: now } : {}),
        sessions,
        counts: { selected: selected.length, recorded, errors: errorsTotal, remaining: selected.length - inSelection, outsideSelection: recorded - inSelection },
        usage: { ...usage, unpricedModels: [...usage.unpricedModels] },
        ledger: (() => {
          const j = models.ledger.toJSON();
          return { totals: j.totals, byStage: j.byStage, byModel: j.byModel, byBackend: j.byBackend };
        })(),
        timing: { p50Ms: percentile(okTimes, 0.5), p90Ms: percentile(okTimes, 0.9) },
        resume: resumeCommand,
      };
      if (indexInfo) m.index = indexInfo;
      return m;
    };
    writeRunManifest(dir, manifestNow('running'));

    const label = `${pipeline.name} on ${config.benchmark.name}`;
    log(
      `run ${runId}: ${label}, ${selected.length} question(s)${kept.length ? ` (${done.size} already recorded, ${todo.length} to go)` : ''}, ` +
        `backend ${configured}${configured === 'offline' ? ' (offline backend: not model results)' : ''}, concurrency ${config.concurrency} -> ${dir}`,
    );
    if (selection.missingIds.length) log(`run ${runId}: ${selection.missingIds.length} id(s) of subset ${config.benchmark.subset} are not in the loaded questions (held back?) and are skipped`);

    if (todo.length && indexSource) {
      try {
        await indexSource.open();
      } catch (e) {
        session.status = 'failed';
        writeRunManifest(dir, manifestNow('failed', `index: ${errorMessage(e)}`));
        throw e;
      }
      indexInfo = indexSource.info();
    }

    writer = new JsonlWriter(recFile);
    traces = openTraceStore(dir, config.output.traces);

    const scorer = opts.scorer ?? defaultScorer;
    const timeoutMs = config.limits.timeoutMs;

    const answerOne = async (q: Question): Promise<RunRecord | undefined> => {
      const t0 = Date.now();
      const startedAtQ = new Date(t0).toISOString();
      const seed = `${config.seed}/${q.id}`;
      const events: TraceEvent[] = [];
      const trace = (e: TraceEvent) => {
        events.push({ t: Date.now() - t0, ...e });
      };
      const calls: QuestionCalls = { backends: new Set(), models: new Set(), trace };
      inFlight.set(q.id, calls);
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error('timeout')), timeoutMs);
      const joined = opts.abortSignal ? anySignal(timeout.signal, opts.abortSignal) : undefined;
      const signal = joined?.signal ?? timeout.signal;
      let searchMs = 0;
      let searches = 0;
      let indexMs = 0;
      let pipelineMs = 0;
      let scoreMs = 0;
      let result: PipelineResult | undefined;
      let scored: Awaited<ReturnType<Scorer>> | undefined;
      let retrieval: Record<string, number> | null = null;
      let error: RecordError | null = null;
      const model = (stage: Stage): ChatModel => {
        const m = models.forStage(stage);
        // Attribute every call to this question and run (the ledger's per-question usage depends on it).
        return { id: m.id, backend: m.backend, chat: (req, s) => m.chat({ ...req, questionId: req.questionId ?? q.id, runId: req.runId ?? runId }, s ?? signal) };
      };
      try {
        let retriever: Retriever | undefined;
        let kb: KnowledgeBase | undefined;
        let idx: ReturnType<typeof asQuestionIndex>;
        if (retrieverFor) {
          const ti = Date.now();
          idx = asQuestionIndex(await raceSignal(Promise.resolve(retrieverFor(q)), signal));
          indexMs = Date.now() - ti;
          if (idx) {
            const base = withForcedSearch(idx.retriever, forced);
            const timed = async <T>(f: () => Promise<T>): Promise<T> => {
              const ts = Date.now();
              try {
                return await f();
              } finally {
                searchMs += Date.now() - ts;
                searches++;
              }
            };
            retriever = { search: (query, o) => timed(() => base.search(query, o)) };
            const view = idx.kb ?? retrieverKnowledgeBase(base, { fragment: idx.fragment, docTitle: idx.docTitle });
            kb = withSearchHook(view, timed);
          }
        }
        const ctx: PipelineContext = {
          question: q,
          model,
          kb,
          retriever,
          fragment: idx?.fragment,
          docTitle: idx?.docTitle,
          convention: conventionFor(q.benchmark),
          settings,
          rng: makeRng(seed),
          signal,
          trace,
        };
        const tp = Date.now();
        result = checkResult(await raceSignal(Promise.resolve().then(() => pipeline.run(ctx)), signal), q, pipeline.name);
        pipelineMs = Date.now() - tp;
        const ts = Date.now();
        try {
          scored = await raceSignal(scorer(q, result, { model, embedder: models.embedder?.(), signal, config, runId }), signal);
          if (result.retrieval) retrieval = retrievalScores(q, result.retrieval, { ks: config.scoring.ks, level: bench.data.recallLevel });
        } catch (e) {
          if (e instanceof Aborted) throw e;
          throw new KfError('score_failed', `scoring question ${q.id} failed: ${errorMessage(e)}`, 'see the trace', { cause: e });
        }
        scoreMs = Date.now() - ts;
      } catch (e) {
        if (opts.abortSignal?.aborted && !timeout.signal.aborted) {
          inFlight.delete(q.id);
          clearTimeout(timer);
          joined?.dispose();
          return undefined; // aborted by the user: not recorded, answered again on resume
        }
        if (timeout.signal.aborted) error = { code: 'timeout', message: `question ${q.id} exceeded the per-question limit of ${timeoutMs} ms (limits.timeoutMs)` };
        else error = { code: isKfError(e) ? e.code : 'pipeline_failed', message: errorMessage(e) };
        trace({ kind: 'error', code: error.code, message: error.message, ...(e instanceof Error && !isKfError(e) ? { stack: e.stack?.split('\n').slice(0, 8).join('\n') } : {}) });
      } finally {
        clearTimeout(timer);
        joined?.dispose();
      }
      inFlight.delete(q.id);

      // The trace is stored before the record, so a record's pointer always resolves.
      const tracePtr = traces!.write(q.id, { id: q.id, runId, seed, pipeline: pipeline.name, events, retrieval: result?.retrieval ?? null, counters: result?.counters ?? {}, error });
      const log0 = result?.retrieval;
      const buckets: Record<string, string[]> = {};
      for (const f of [...RECORD_BUCKET_FIELDS, ...config.output.buckets]) buckets[f] = questionFieldValues(q, f);
      return {
        v: RECORD_VERSION,
        id: q.id,
        runId,
        configHash: exp.hash,
        benchmark: q.benchmark,
        pipeline: pipeline.name,
        backend: calls.backends.size ? backendLabel(calls.backends) : configured,
        models: [...calls.models].sort(),
        seed,
        question: q.question,
        gold: q.answer,
        ...(q.altAnswers?.length ? { altAnswers: q.altAnswers } : {}),
        prediction: error ? null : result!.prediction,
        finalAnswer: error ? null : result!.finalAnswer,
        scores: error ? {} : scored!.scores,
        retrieval: error ? null : retrieval,
        ...(log0
          ? {
              retrievalStats: {
                searches: log0.searches?.length ?? 0,
                hits: (log0.searches ?? []).reduce((n, s) => n + s.hits.length, 0),
                firstSearchDocs: (log0.firstSearch ?? []).map((h) => h.docId),
                ...(log0.poolChars !== undefined ? { poolChars: log0.poolChars } : {}),
                ...(log0.poolTrimmed !== undefined ? { poolTrimmed: log0.poolTrimmed } : {}),
              },
            }
          : {}),
        counters: result?.counters ?? {},
        usage: models.ledger.byQuestion(q.id),
        timings: { startedAt: startedAtQ, totalMs: Date.now() - t0, indexMs, pipelineMs, scoreMs, searchMs, searches },
        buckets,
        trace: tracePtr,
        error,
        ...(scored?.extraction ? { extraction: scored.extraction } : {}),
      };
    };

    // Workers.
    let next = 0;
    let recordedNow = 0;
    let errorsNow = 0;
    let stopping: RunStatus | undefined;
    let fatal: unknown;
    let lastCheckpoint = Date.now();
    const onStop = () => {
      if (!stopping) stopping = 'interrupted';
    };
    opts.stopSignal?.addEventListener('abort', onStop);
    opts.abortSignal?.addEventListener('abort', onStop);
    if (opts.stopSignal?.aborted || opts.abortSignal?.aborted) onStop();
    progress.start(selected.length, selected.length - todo.length);
    const worker = async () => {
      while (!stopping && next < todo.length) {
        const q = todo[next++];
        let rec: RunRecord | undefined;
        try {
          rec = await answerOne(q);
          if (!rec) continue;
          if (done.has(rec.id)) continue; // cannot happen (ids are unique per run), but never write a duplicate
          writer!.write(rec);
        } catch (e) {
          // Only the harness's own failures land here (disk full, unwritable trace): stop, keep what is recorded.
          fatal ??= e;
          stopping = 'failed';
          break;
        }
        done.add(rec.id);
        account(rec);
        recordedNow++;
        session.recorded++;
        if (rec.error) {
          errorsNow++;
          session.errors++;
          if (errorsNow >= config.limits.maxErrors && !stopping) {
            stopping = 'max-errors';
            log(`run ${runId}: ${errorsNow} failed question(s) reached limits.maxErrors=${config.limits.maxErrors}; finishing the questions in flight, then stopping (last error: ${rec.error.code}: ${rec.error.message})`);
          }
        }
        progress.tick(!rec.error);
        if (recordedNow % config.output.checkpointEvery === 0 || Date.now() - lastCheckpoint > 30_000) {
          lastCheckpoint = Date.now();
          try {
            writeRunManifest(dir, manifestNow('running'));
          } catch (e) {
            fatal ??= e;
            stopping = 'failed';
          }
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(config.concurrency, todo.length)) }, worker));
    opts.stopSignal?.removeEventListener('abort', onStop);
    opts.abortSignal?.removeEventListener('abort', onStop);
    progress.finish();

    const remaining = selected.filter((q) => !done.has(q.id)).length;
    const status: RunStatus = fatal ? 'failed' : remaining === 0 ? 'completed' : (stopping ?? 'interrupted');
    session.status = status;
    session.endedAt = new Date().toISOString();
    const detail =
      status === 'failed' ? errorMessage(fatal)
        : status === 'max-errors' ? `${errorsNow} failed questions (limits.maxErrors=${config.limits.maxErrors})`
          : status === 'interrupted' ? `stopped with ${remaining} question(s) left`
            : undefined;
    const manifest = manifestNow(status, detail);
    try {
      writeRunManifest(dir, manifest);
    } catch (e) {
      // A full disk fails this write too: report the first failure (the records are intact either way).
      if (!fatal) throw e;
    }
    if (fatal) throw fatal;
    return { runId, dir, status, counts: manifest.counts, recordedNow, errorsNow, resumedWith: kept.length, manifest, resumeCommand };
  } finally {
    unsubscribe?.();
    writer?.close();
    traces?.close();
    if (ownsRouter) await router?.close().catch(() => undefined);
    lock.release();
  }
}
