/**
 * The runner's bookkeeping of one run folder: what is already recorded (resume,
 * with compaction of cut or duplicate lines), the run-wide tally over every
 * record (usage, backends, timings, errors) and the manifest built from them.
 */
import * as path from 'node:path';
import type { BenchmarkData } from '../bench/types';
import { redactDeep } from '../model-api/redact';
import type { StageRoute } from '../models/router';
import { KfError } from '../util/errors';
import { addTotals, backendLabel, emptyTotals, percentile } from './aggregate';
import { errorKindOf, type ErrorKind } from './error-kind';
import { configDiff, resultAffecting, type ResolvedExperiment } from './config';
import type { IndexInfo } from './index-provider';
import { backendNoteFor, stampNow, type RunManifest, type RunSession, type RunStatus } from './manifest';
import type { Selection } from './questions';
import { keepRecordsCopy, readRecords, recordsFileOf, rewriteRecords, type RunRecord } from './records';
import type { RunnerRouter } from './runner-types';
import { indexIdentity, runIdentity, type RunIdentity } from './run-identity';
import { runDepartures } from './departures';

/** A rerun of a run id with another config would mix answers of two configs: refuse it. */
export function refuseChangedConfig(previous: RunManifest | undefined, exp: ResolvedExperiment, runId: string, dir: string): void {
  if (!previous || previous.configHash === exp.hash) return;
  const changed = configDiff(resultAffecting(previous.config), resultAffecting(exp.config));
  throw new KfError(
    'run_config_changed',
    `run ${runId} was started with another config (hash ${previous.configHash}, now ${exp.hash}; changed: ${changed.slice(0, 8).join(', ') || 'unknown'})`,
    'resuming would mix answers of two configs: pass a new --run-id, or undo the change',
    { concerns: dir },
  );
}

/** The records already there (resume), compacted when a crash cut a line or errors are to be retried. */
export function resumeRecords(
  dir: string,
  exp: ResolvedExperiment,
  opts: { runId: string; retryErrors?: boolean; log: (line: string) => void },
): { recFile: string; kept: RunRecord[]; all: RunRecord[] } {
  const recFile = recordsFileOf(dir);
  const existing = readRecords(recFile);
  const foreign = existing.records.filter((r) => r.configHash !== exp.hash);
  if (foreign.length) {
    throw new KfError(
      'run_config_changed',
      `${recFile} holds ${foreign.length} records of another config (hash ${foreign[0].configHash}, now ${exp.hash})`,
      'pass a new --run-id for this config',
      { concerns: recFile },
    );
  }
  let kept = existing.records;
  const retried = opts.retryErrors ? kept.filter((r) => r.error).length : 0;
  if (opts.retryErrors) kept = kept.filter((r) => !r.error);
  if (existing.badLines || existing.duplicates.length || retried) {
    // Unreadable or duplicate lines are dropped from the live file, but nothing is thrown
    // away: the file as it was stays beside it (a hand-edited or damaged line can be repaired).
    const copy = existing.badLines || existing.duplicates.length ? keepRecordsCopy(recFile) : undefined;
    rewriteRecords(recFile, kept);
    const what = [
      existing.badLines ? `${existing.badLines} cut line(s) dropped` : '',
      existing.duplicates.length ? `${existing.duplicates.length} duplicate record(s) dropped` : '',
      retried ? `${retried} error record(s) to retry` : '',
    ].filter(Boolean);
    opts.log(`run ${opts.runId}: records compacted (${what.join(', ')})${copy ? `; the file as it was is kept as ${path.basename(copy)}` : ''}`);
  }
  return { recFile, kept, all: existing.records };
}

/** Run-wide totals over every record (kept + new), for the manifest. */
export class RunTally {
  readonly usage = emptyTotals();
  readonly backends = new Set<string>();
  readonly okTimes: number[] = [];
  errors = 0;
  /** Failed records whose reply the endpoint cut at its token limit (error reason `length`): never scored. */
  cutReplies = 0;
  readonly errorsByKind: Record<ErrorKind, number> = { model_output: 0, transport: 0, timeout: 0, other: 0 };
  /** Per-question departures from the paper, by text: on how many records. */
  readonly departures = new Map<string, number>();

  account(r: RunRecord): void {
    addTotals(this.usage, r.usage);
    for (const d of r.departures ?? []) this.departures.set(d, (this.departures.get(d) ?? 0) + 1);
    if (r.usage?.calls) this.backends.add(r.backend);
    if (r.error) {
      this.errors++;
      this.errorsByKind[errorKindOf(r.error)]++;
      if (r.error.reason === 'length') this.cutReplies++;
    } else if (typeof r.timings?.totalMs === 'number') this.okTimes.push(r.timings.totalMs);
  }
}

/** What the manifest says that does not change during a run. */
export interface RunFacts {
  exp: ResolvedExperiment;
  runId: string;
  /** The manifest's pipeline block (name, description, prompt pack, the system that ranked). */
  pipeline: RunManifest['pipeline'];
  routes: StageRoute[];
  /** The configured backend label (used until a model call says otherwise). */
  configured: string;
  bench: { data: BenchmarkData; files: Record<string, string> };
  selection: Selection;
  selected: readonly { id: string }[];
  previous?: RunManifest;
  startedAt: string;
  sessions: RunSession[];
  resumeCommand: string;
  /** What the run is (the index part is set once the opened index matched the previous sessions'). */
  identity: RunIdentity;
  /** False for a configuration that reads no index (closed book): no embedder departure. */
  readsIndex: boolean;
}

/** The identity a previous manifest records (an older manifest without one: rebuilt from its routes, prompt pack and index). */
export function previousIdentity(previous: RunManifest | undefined): RunIdentity | undefined {
  if (!previous) return undefined;
  if (previous.identity) return previous.identity;
  const id = runIdentity(previous.config, previous.models ?? [], previous.pipeline?.promptPack);
  const index = indexIdentity(previous.index);
  return index ? { ...id, index } : id;
}

/**
 * The previous sessions followed by this one. A session still marked running was killed (kill -9, power
 * loss): it is marked interrupted, and its counts, which its last checkpoint may have left behind, are
 * recounted from the records it wrote (`records`: the file as found; a record belongs to the session during
 * which its question started).
 */
export function sessionsWith(previous: RunManifest | undefined, session: RunSession, records: readonly RunRecord[] = []): RunSession[] {
  const list = previous?.sessions ?? [];
  const old = list.map((s, i) => {
    if (s.status !== 'running') return s;
    const until = list[i + 1]?.startedAt ?? session.startedAt;
    const mine = records.filter((r) => {
      const t = r.timings?.startedAt;
      return typeof t === 'string' && t >= s.startedAt && t < until;
    });
    const counted = mine.length > s.recorded ? { recorded: mine.length, errors: mine.filter((r) => r.error).length } : {};
    return { ...s, ...counted, status: 'interrupted' as RunStatus, endedAt: s.endedAt ?? previous?.updatedAt };
  });
  return [...old, session];
}

/** The manifest as of now. */
export function runManifest(
  f: RunFacts,
  live: { status: RunStatus; detail?: string; done: Set<string>; tally: RunTally; ledger: RunnerRouter['ledger']; index?: IndexInfo },
): RunManifest {
  const { config } = f.exp;
  const selectedIds = new Set(f.selected.map((q) => q.id));
  const recorded = live.done.size;
  const inSelection = [...live.done].filter((id) => selectedIds.has(id)).length;
  // What answered and what is configured together: a manifest never says "offline" over model answers.
  const backend = live.tally.backends.size ? backendLabel([...live.tally.backends, ...(f.configured === 'mixed' ? [] : [f.configured])]) : f.configured;
  const now = new Date().toISOString();
  const j = live.ledger.toJSON();
  const m: RunManifest = {
    kind: 'kf-run',
    version: 1,
    runId: f.runId,
    status: live.status,
    ...(live.detail ? { statusDetail: live.detail } : {}),
    experiment: { name: config.name, description: config.description, file: f.exp.file, files: f.exp.files, overrides: f.exp.overrides },
    config,
    configHash: f.exp.hash,
    seed: config.seed,
    backend,
    ...(backendNoteFor(backend) ? { backendNote: backendNoteFor(backend) } : {}),
    stamp: stampNow(),
    pipeline: f.pipeline,
    models: f.routes,
    identity: f.identity,
    departures: runDepartures({
      config,
      routes: f.routes,
      index: live.index,
      readsIndex: f.readsIndex,
      embedder: f.identity.embedder?.replace(/:.*/, ''),
      perQuestion: live.tally.departures,
      recorded,
    }),
    benchmark: {
      name: config.benchmark.name,
      split: config.benchmark.split,
      subset: config.benchmark.subset,
      files: f.bench.files,
      questionsLoaded: f.bench.data.questions.length,
      missingIds: f.selection.missingIds.length,
      missingIdsSample: f.selection.missingIds.slice(0, 10),
      ...(f.bench.data.notes?.length ? { notes: f.bench.data.notes } : {}),
      ...(f.selection.sample ? { sample: f.selection.sample } : {}),
    },
    startedAt: f.previous?.startedAt ?? f.startedAt,
    updatedAt: now,
    ...(live.status !== 'running' ? { endedAt: now } : {}),
    sessions: f.sessions,
    counts: {
      selected: f.selected.length,
      recorded,
      errors: live.tally.errors,
      errorsByKind: { ...live.tally.errorsByKind },
      cutReplies: live.tally.cutReplies,
      remaining: f.selected.length - inSelection,
      outsideSelection: recorded - inSelection,
    },
    usage: { ...live.tally.usage, unpricedModels: [...live.tally.usage.unpricedModels] },
    ledger: { totals: j.totals, byStage: j.byStage, byModel: j.byModel, byBackend: j.byBackend, ...(j.byEndpoint ? { byEndpoint: j.byEndpoint } : {}) },
    timing: { p50Ms: percentile(live.tally.okTimes, 0.5), p90Ms: percentile(live.tally.okTimes, 0.9) },
    resume: f.resumeCommand,
  };
  if (live.index) m.index = live.index;
  // The resolved config holds base URLs as configured (user:password, ?token=): the manifest gets them redacted.
  // (Resume compares configHash, computed from the real values, so a redacted copy never blocks a resume.)
  return redactDeep(m);
}
