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
 *
 * The steps, in order: lock the folder -> refuse a changed config -> select the
 * questions -> resume the records -> pipeline, models, index -> manifest ->
 * answer on the worker pool (lib/run/answer-question.ts) -> final manifest.
 */
import * as path from 'node:path';
import type { Question } from '../bench/types';
import type { StageRoute } from '../models/router';
import { KfError, errorMessage } from '../util/errors';
import { JsonlWriter, ensureWritableDir } from '../util/fsx';
import { repoRoot } from '../util/paths';
import { runPool } from '../util/worker-pool';
import { backendLabel } from './aggregate';
import { answerQuestion, type QuestionCalls, type QuestionEnv } from './answer-question';
import { attributeCalls } from './question-setup';
import type { ExperimentConfig } from './config';
import { experimentRouter } from './experiment-router';
import { indexProviderFromConfig, type ConfiguredIndex } from './index-provider';
import { acquireRunLock } from './lock';
import { readRunManifest, writeRunManifest, type RunManifest, type RunSession, type RunStatus } from './manifest';
import { silentProgress, type ProgressSink } from './progress';
import { loadConfiguredBenchmark, selectQuestions } from './questions';
import type { RunRecord } from './records';
import { getPipeline } from './registry';
import { RunTally, previousIdentity, refuseChangedConfig, resumeRecords, runManifest, sessionsWith, type RunFacts } from './run-book';
import { configuredRoutes, indexIdentity, refuseChangedIdentity, runIdentity } from './run-identity';
import { checkRunId, defaultRunId, prepareCommandFor, resumeCommandFor } from './run-id';
import type { RunOptions, RunOutcome, RunnerRouter } from './runner-types';
import { defaultScorer } from './scoring';
import { errorShareExceeded } from './error-kind';
import { openTraceStore } from './trace-store';
import { benchmarkDisplayName } from '../bench/own';

export type { RunnerRouter, RunOptions, RunOutcome } from './runner-types';
export type { Scorer, ScoreContext } from './scoring';
export { defaultScorer } from './scoring';
export { checkRunId, defaultRunId, resumeCommandFor } from './run-id';
export { RECORD_BUCKET_FIELDS } from './answer-question';

/** The configured label: backends of the answering stages (embedding excluded: it feeds retrieval, not answers). */
export function configuredBackend(routes: StageRoute[]): string {
  return backendLabel(routes.filter((r) => r.stage !== 'embedding').map((r) => r.backend));
}

/** What a run holds open (closed in this order when it ends, however it ends). */
interface Held {
  ownsRouter: boolean;
  router?: RunnerRouter;
  unsubscribe?: () => void;
  writer?: JsonlWriter;
  traces?: ReturnType<typeof openTraceStore>;
}

/** Everything one invocation of a run works with. */
interface Run {
  opts: RunOptions;
  config: ExperimentConfig;
  runId: string;
  dir: string;
  log: (line: string) => void;
  progress: ProgressSink;
  facts: RunFacts;
  session: RunSession;
  kept: RunRecord[];
  done: Set<string>;
  todo: Question[];
  tally: RunTally;
  models: RunnerRouter;
  indexSource?: ConfiguredIndex;
  recFile: string;
}

/** The questions of this invocation (deduplicated by id) and the records already there. */
function selectAndResume(opts: RunOptions, dir: string, runId: string, log: (line: string) => void) {
  const bench = opts.benchmark ? { data: opts.benchmark, files: {} as Record<string, string> } : loadConfiguredBenchmark(opts.experiment.config);
  const selection = selectQuestions(bench.data, opts.experiment.config);
  const seen = new Set<string>();
  const selected = selection.questions.filter((q) => (seen.has(q.id) ? false : (seen.add(q.id), true)));
  const { recFile, kept, all } = resumeRecords(dir, opts.experiment, { runId, retryErrors: opts.retryErrors, log });
  const done = new Set(kept.map((r) => r.id));
  return { bench, selection, selected, recFile, kept, all, done, todo: selected.filter((q) => !done.has(q.id)) };
}

function modelRouter(opts: RunOptions, runId: string, held: Held): RunnerRouter {
  if (opts.router) return (held.router = opts.router);
  held.ownsRouter = true;
  return (held.router = experimentRouter(opts.experiment.config, runId, opts.cacheMode));
}

/**
 * The retriever variant the records report goes into the manifest (the first one seen); a record reporting
 * another variant (e.g. a checkpoint retrained between sessions) is listed, so a mixed run says so.
 */
function noteSystem(facts: RunFacts, rec: RunRecord, log?: (line: string) => void): void {
  if (!rec.system) return;
  const p = facts.pipeline;
  if (!p.system) {
    p.system = rec.system;
    return;
  }
  if (rec.system.label === p.system.label || p.otherSystems?.includes(rec.system.label)) return;
  p.otherSystems = [...(p.otherSystems ?? []), rec.system.label];
  log?.(`run: question ${rec.id} was ranked by another system than the run's first records (${rec.system.label}); the manifest lists both`);
}

function manifestOf(run: Run, status: RunStatus, detail?: string): RunManifest {
  return runManifest(run.facts, { status, detail, done: run.done, tally: run.tally, ledger: run.models.ledger, index: run.indexSource?.info() });
}

function announce(run: Run): void {
  const { config, runId, facts } = run;
  const label = `${facts.pipeline.name} on ${benchmarkDisplayName(config.benchmark)}`;
  const n = facts.selected.length;
  run.log(
    `run ${runId}: ${label}, ${n} question(s)${run.kept.length ? ` (${run.done.size} already recorded, ${run.todo.length} to go)` : ''}, ` +
      `backend ${facts.configured}${facts.configured === 'offline' ? ' (offline backend: not model results)' : ''}, ` +
      `concurrency ${config.concurrency} -> ${run.dir}`,
  );
  const missing = facts.selection.missingIds.length;
  if (missing) run.log(`run ${runId}: ${missing} id(s) of subset ${config.benchmark.subset} are not in the loaded questions (held back?) and are skipped`);
}

/**
 * Open the index before the first question, so a missing one fails the run at once (the manifest says why);
 * a resume whose index is another build than the one its records searched is refused (the manifest keeps the old one).
 */
async function openIndexFirst(run: Run): Promise<void> {
  if (!run.todo.length || !run.indexSource) return;
  try {
    await run.indexSource.open();
  } catch (e) {
    run.session.status = 'failed';
    writeRunManifest(run.dir, manifestOf(run, 'failed', `index: ${errorMessage(e)}`));
    throw e;
  }
  const index = indexIdentity(run.indexSource.info());
  if (!index) return;
  refuseChangedIdentity(run.facts.identity, { ...run.facts.identity, index }, run.runId, run.dir, run.kept.length);
  run.facts.identity.index = index;
}

/** Answer the questions still to do on the worker pool; stops on the signals, at limits.maxErrors, or on a harness failure. */
async function answerAll(run: Run, env: QuestionEnv, writer: JsonlWriter) {
  const { opts, config, session } = run;
  const state: { recordedNow: number; errorsNow: number; stopping?: RunStatus; why?: string; fatal?: unknown } = { recordedNow: 0, errorsNow: 0 };
  let lastCheckpoint = Date.now();
  const onStop = () => void (state.stopping ??= 'interrupted');
  opts.stopSignal?.addEventListener('abort', onStop);
  opts.abortSignal?.addEventListener('abort', onStop);
  if (opts.stopSignal?.aborted || opts.abortSignal?.aborted) onStop();
  run.progress.start(run.facts.selected.length, run.facts.selected.length - run.todo.length);
  await runPool(
    run.todo,
    config.concurrency,
    async (q) => {
      let rec: RunRecord | undefined;
      try {
        rec = await answerQuestion(env, q);
        if (!rec || run.done.has(rec.id)) return; // aborted by the user; a duplicate cannot happen, but is never written
        writer.write(rec);
      } catch (e) {
        // Only the harness's own failures land here (disk full, unwritable trace): stop, keep what is recorded.
        state.fatal ??= e;
        state.stopping = 'failed';
        return;
      }
      run.done.add(rec.id);
      run.tally.account(rec);
      noteSystem(run.facts, rec, run.log);
      state.recordedNow++;
      session.recorded++;
      if (rec.error) {
        state.errorsNow++;
        session.errors++;
        if (rec.error.setup && !state.stopping) {
          // A wrong key or model fails every call alike: one clear error, not a run of identical failures.
          state.stopping = 'max-errors';
          state.why = `the endpoint refused the setup at question ${rec.id}: ${rec.error.message}`;
          run.log(`run ${run.runId}: ${state.why}; finishing the questions in flight, then stopping`);
        }
        const tooMany = state.errorsNow >= config.limits.maxErrors;
        if ((tooMany || errorShareExceeded(run.tally.errors, run.done.size, config.limits.maxErrorShare, false)) && !state.stopping) {
          state.stopping = 'max-errors';
          state.why = tooMany ? `${state.errorsNow} failed questions (limits.maxErrors=${config.limits.maxErrors})` : errorShareText(run);
          run.log(`run ${run.runId}: ${state.why}; finishing the questions in flight, then stopping (last error: ${rec.error.code}: ${rec.error.message})`);
        }
      }
      run.progress.tick(!rec.error, rec.scores);
      if (state.recordedNow % config.output.checkpointEvery === 0 || Date.now() - lastCheckpoint > 30_000) {
        lastCheckpoint = Date.now();
        try {
          writeRunManifest(run.dir, manifestOf(run, 'running'));
        } catch (e) {
          state.fatal ??= e;
          state.stopping = 'failed';
        }
      }
    },
    () => !!state.stopping,
  );
  opts.stopSignal?.removeEventListener('abort', onStop);
  opts.abortSignal?.removeEventListener('abort', onStop);
  run.progress.finish();
  return state;
}

function errorShareText(run: Run): string {
  const { errors } = run.tally;
  const n = run.done.size;
  return `${errors} of ${n} records failed (${((100 * errors) / n).toFixed(0)}%), more than limits.maxErrorShare=${run.config.limits.maxErrorShare}`;
}

/** The final status and manifest (written even after a failure; the first failure is the one reported). */
function finish(run: Run, state: Awaited<ReturnType<typeof answerAll>>): RunOutcome {
  const { config, session } = run;
  const remaining = run.facts.selected.filter((q) => !run.done.has(q.id)).length;
  let status: RunStatus = state.fatal ? 'failed' : remaining === 0 ? 'completed' : (state.stopping ?? 'interrupted');
  if (status === 'completed' && errorShareExceeded(run.tally.errors, run.done.size, config.limits.maxErrorShare, true)) {
    status = 'max-errors'; // every question has a record, but too many of them are failures to read the scores as results
    state.why = errorShareText(run);
  }
  session.status = status;
  session.endedAt = new Date().toISOString();
  const detail =
    status === 'failed'
      ? errorMessage(state.fatal)
      : status === 'max-errors'
        ? (state.why ?? `${state.errorsNow} failed questions (limits.maxErrors=${config.limits.maxErrors})`)
        : status === 'interrupted'
          ? `stopped with ${remaining} question(s) left`
          : undefined;
  const manifest = manifestOf(run, status, detail);
  try {
    writeRunManifest(run.dir, manifest);
  } catch (e) {
    // A full disk fails this write too: report the first failure (the records are intact either way).
    if (!state.fatal) throw e;
  }
  if (state.fatal) throw state.fatal;
  const { recordedNow, errorsNow } = state;
  return {
    runId: run.runId,
    dir: run.dir,
    status,
    counts: manifest.counts,
    recordedNow,
    errorsNow,
    resumedWith: run.kept.length,
    manifest,
    resumeCommand: run.facts.resumeCommand,
  };
}

/** Questions, records, pipeline, models and index of the run, checked before anything is written. */
function prepareRun(
  opts: RunOptions,
  base: Pick<Run, 'runId' | 'dir' | 'log' | 'progress'>,
  previous: RunManifest | undefined,
  resumeCommand: string,
  held: Held,
) {
  const config = opts.experiment.config;
  const picked = selectAndResume(opts, base.dir, base.runId, base.log);
  const settings: Record<string, unknown> = { ...config.pipeline.settings, ...config.caps };
  const pipeline = opts.pipeline ?? getPipeline(config.pipeline.name, settings);
  const models = modelRouter(opts, base.runId, held);
  const routes = models.describe();
  // A configuration that reads no index (closed book, S0) opens none; one that does never builds it with model calls here.
  const readsIndex = pipeline.needsIndex !== false;
  const indexSource =
    opts.retrieverFor || !readsIndex
      ? undefined
      : indexProviderFromConfig(config, { models, data: picked.bench.data, log: base.log, prepareCommand: prepareCommandFor(opts.experiment) });
  const retrieverFor = opts.retrieverFor ?? indexSource?.provider;
  if (pipeline.needsIndex && !retrieverFor) {
    throw new KfError(
      'no_index',
      `pipeline ${pipeline.name} searches an index but experiment ${config.name} configures none`,
      'add an [index] table (dir, or build = "ensure"), or use S0 for closed book',
      { concerns: config.name },
    );
  }
  const before = previousIdentity(previous);
  const identity = runIdentity(config, routes, pipeline.promptPack);
  refuseChangedIdentity(before, identity, base.runId, base.dir, picked.kept.length);
  if (before?.index) identity.index = before.index; // until the index opens and is checked (openIndexFirst)
  const startedAt = new Date().toISOString();
  const session: RunSession = { startedAt, pid: process.pid, status: 'running', recorded: 0, errors: 0, resumedWith: picked.kept.length };
  const facts: RunFacts = {
    exp: opts.experiment,
    runId: base.runId,
    pipeline: { name: pipeline.name, description: pipeline.description, ...(pipeline.promptPack ? { promptPack: pipeline.promptPack } : {}) },
    routes,
    configured: configuredBackend(routes),
    bench: picked.bench,
    selection: picked.selection,
    selected: picked.selected,
    previous,
    startedAt,
    sessions: sessionsWith(previous, session, picked.all),
    resumeCommand,
    identity,
    readsIndex,
  };
  const tally = new RunTally();
  picked.kept.forEach((r) => tally.account(r));
  picked.kept.forEach((r) => noteSystem(facts, r));
  const run: Run = {
    ...base,
    opts,
    config,
    facts,
    session,
    kept: picked.kept,
    done: picked.done,
    todo: picked.todo,
    tally,
    models,
    indexSource,
    recFile: picked.recFile,
  };
  return { run, pipeline, settings, retrieverFor };
}

/** Run (or resume) an experiment. Resolves when every selected question is recorded, or the run stopped (see status). */
export async function runExperiment(opts: RunOptions): Promise<RunOutcome> {
  const exp = opts.experiment;
  // A model-backed run's default id names its models (lib/run/run-identity.ts): another model is another run.
  const runId = checkRunId(opts.runId ?? defaultRunId(exp, opts.router ? opts.router.describe() : configuredRoutes(exp.config)));
  const dir = ensureWritableDir(path.join(opts.resultsDir ?? path.join(repoRoot(), 'results'), runId), 'run directory');
  const progress = opts.progress ?? silentProgress;
  const log = opts.log ?? ((l: string) => progress.log(l));
  const lock = acquireRunLock(dir, runId);
  const held: Held = { ownsRouter: false };
  try {
    if (lock.tookOver) log(`run ${runId}: taking over the lock of pid ${lock.tookOver.pid} (no longer running)`);
    const previous = readRunManifest(dir);
    refuseChangedConfig(previous, exp, runId, dir);
    const { run, pipeline, settings, retrieverFor } = prepareRun(
      opts,
      { runId, dir, log, progress },
      previous,
      opts.resumeCommand ?? resumeCommandFor(exp, runId),
      held,
    );
    const inFlight = new Map<string, QuestionCalls>();
    held.unsubscribe = attributeCalls(run.models, inFlight);
    writeRunManifest(dir, manifestOf(run, 'running'));
    announce(run);
    await openIndexFirst(run);
    held.writer = new JsonlWriter(run.recFile);
    held.traces = openTraceStore(dir, exp.config.output.traces);
    const env: QuestionEnv = {
      config: exp.config,
      configHash: exp.hash,
      runId,
      models: run.models,
      configured: run.facts.configured,
      pipeline,
      settings,
      retrieverFor,
      forced: exp.config.index?.search ?? {},
      scorer: opts.scorer ?? defaultScorer,
      recallLevel: run.facts.bench.data.recallLevel,
      pageRecall: run.facts.bench.data.pageRecall,
      traces: held.traces,
      inFlight,
      abortSignal: opts.abortSignal,
    };
    return finish(run, await answerAll(run, env, held.writer));
  } finally {
    held.unsubscribe?.();
    held.writer?.close();
    held.traces?.close();
    if (held.ownsRouter) await held.router?.close().catch(() => undefined);
    lock.release();
  }
}
