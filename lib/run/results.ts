/**
 * Reading runs back: load a run folder (records + manifest), list runs, turn
 * a metric into per-question values, summarise a run (means of every score,
 * counts, errors, usage, time), and summarise per bucket.
 *
 * Convention: a question that failed (record.error) scores 0 on every answer
 * metric (it produced no answer), so a run with many errors never looks better
 * than it is; retrieval metrics and counters are averaged over answered
 * questions only (a failed question has no retrieval log).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Question } from '../bench/types';
import { NONE, questionFieldValues } from '../bench/fields';
import { benchmarkSpec } from '../bench/registry';
import { benchmarkDisplayName } from '../bench/own';
import type { LedgerTotals } from '../models/ledger';
import { KfError } from '../util/errors';
import { repoRoot } from '../util/paths';
import { pidLockState } from '../util/pid-lock';
import { readRunManifest, type RunManifest } from './manifest';
import { loadConfiguredBenchmark } from './questions';
import { readRecords, recordsFileOf, type RunRecord } from './records';
import { findStoredRun, isRunDir, storedRuns } from './run-stores';
import { addTotals, backendLabel, emptyTotals, percentile } from './aggregate';
import { ERROR_KINDS, ERROR_KIND_LABEL, errorKindOf, type ErrorKind } from './error-kind';
import { didYouMean } from './schema';

export interface LoadedRun {
  runId: string;
  dir: string;
  manifest?: RunManifest;
  records: RunRecord[];
  badLines: number;
  duplicates: string[];
}

export function defaultResultsDir(): string {
  return path.join(repoRoot(), 'results');
}

/** A run folder from a reference: a folder path, a records.jsonl/manifest.json path, or a run id under the results folder. */
export function resolveRunDir(ref: string, resultsDir = defaultResultsDir()): string {
  const asPath = path.resolve(ref);
  if (fs.existsSync(asPath)) {
    const st = fs.statSync(asPath);
    if (st.isFile() && /(records\.jsonl|manifest\.json)$/.test(asPath)) return path.dirname(asPath);
    if (st.isDirectory() && isRunDir(asPath)) return asPath;
  }
  const byId = path.join(resultsDir, ref);
  if (/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(ref) && fs.existsSync(byId) && isRunDir(byId)) return byId;
  // The ids the main job (results/demo-main/runs/), suites and notebooks (results/runs/) print.
  const stored = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(ref) ? findStoredRun(resultsDir, ref) : undefined;
  if (stored) return stored;
  const ids = [...new Set(storedRuns(resultsDir).map((r) => r.runId))];
  const near = didYouMean(ref, ids) ?? ids.find((id) => id.startsWith(ref));
  throw new KfError(
    'run_missing',
    `no run "${ref}" (neither a run folder nor a run id in ${resultsDir})`,
    near ? `did you mean "${near}"?` : ids.length ? `kf runs lists the ${ids.length} run(s)` : 'run an experiment first: kf run <experiment>',
    { concerns: ref },
  );
}

export function loadRun(ref: string, opts: { resultsDir?: string } = {}): LoadedRun {
  const dir = resolveRunDir(ref, opts.resultsDir);
  const manifest = readRunManifest(dir);
  const { records, badLines, duplicates } = readRecords(recordsFileOf(dir));
  return { runId: manifest?.runId ?? path.basename(dir), dir, manifest, records, badLines, duplicates };
}

// ---------------------------------------------------------------------------
// Metrics as per-question values

/** Score keys that describe a question rather than grade it (left out of "every score" tables). */
export const HELPER_SCORE_KEYS = new Set(['goldAnswerable', 'predAnswerable', 'judgeFailed', 'refused']);

export type ErrorPolicy = 'zero' | 'drop';

/** Whether a failed record's question would have carried answer scores (it has a gold answer, or is unanswerable). */
export function wouldBeScored(r: RunRecord): boolean {
  return r.gold !== null || !!r.buckets?.answerable?.includes('unanswerable');
}

export interface MetricValues {
  values: Map<string, number>;
  /** Answered records without this metric (e.g. no gold answer, no gold documents). */
  missing: number;
  /** Failed records scored 0 (policy zero) or left out (policy drop). */
  errors: number;
  /** Where the metric was found: scores, retrieval, counters, timings, usage. */
  source?: string;
}

const SOURCES = ['scores', 'retrieval', 'counters', 'timings', 'usage'] as const;

function lookupMetric(r: RunRecord, metric: string): { value: number | undefined; source?: string } {
  const dot = metric.indexOf('.');
  if (dot > 0 && (SOURCES as readonly string[]).includes(metric.slice(0, dot))) {
    const src = metric.slice(0, dot) as (typeof SOURCES)[number];
    const v = (r[src] as Record<string, unknown> | null | undefined)?.[metric.slice(dot + 1)];
    return { value: typeof v === 'number' ? v : undefined, source: src };
  }
  for (const src of SOURCES) {
    const v = (r[src] as Record<string, unknown> | null | undefined)?.[metric];
    if (typeof v === 'number') return { value: v, source: src };
  }
  return { value: undefined };
}

/** Every metric name a run's records carry (for did-you-mean and report columns). */
export function metricNames(run: LoadedRun): string[] {
  const names = new Set<string>();
  for (const r of run.records) {
    for (const src of SOURCES)
      for (const [k, v] of Object.entries((r[src] as Record<string, unknown> | null) ?? {}))
        if (typeof v === 'number') names.add(src === 'scores' || src === 'retrieval' ? k : `${src}.${k}`);
  }
  return [...names].sort();
}

/** Per-question values of a metric. Failed records: 0 for answer scores under 'zero', left out under 'drop'. */
export function metricValues(run: LoadedRun, metric: string, errors: ErrorPolicy = 'zero'): MetricValues {
  const values = new Map<string, number>();
  let missing = 0;
  let errs = 0;
  let source: string | undefined;
  for (const r of run.records) {
    const { value, source: s } = lookupMetric(r, metric);
    if (s) source ??= s;
    if (value !== undefined && Number.isFinite(value)) values.set(r.id, value);
    else if (r.error) errs++;
    else missing++;
  }
  if (!values.size && !source) {
    const names = metricNames(run);
    const near = didYouMean(metric, names);
    throw new KfError(
      'metric_missing',
      `run ${run.runId} has no metric "${metric}"`,
      near ? `did you mean "${near}"?` : names.length ? `its metrics: ${names.join(', ')}` : 'the run has no scored records',
      { concerns: metric },
    );
  }
  // Failed questions answered nothing: 0 on answer scores; nothing to say about retrieval/counters/time.
  if (errors === 'zero' && (source === 'scores' || source === undefined))
    for (const r of run.records) if (r.error && !values.has(r.id) && wouldBeScored(r)) values.set(r.id, 0);
  return { values, missing, errors: errs, source };
}

/** Main answer metric of a run: f1, else acc, else rougeL, else em (undefined when none). */
export function primaryMetric(run: LoadedRun): string | undefined {
  const keys = new Set(run.records.flatMap((r) => Object.keys(r.scores ?? {})));
  return ['f1', 'acc', 'rougeL', 'em', 'tokenEmbF1'].find((k) => keys.has(k));
}

// ---------------------------------------------------------------------------
// Joining runs by question id

export interface JoinedRuns {
  /** Ids every run has a value for, sorted. */
  ids: string[];
  /** values[i][j] = run i's value on ids[j]. */
  values: number[][];
  /** Per run: ids with a value that are not in every run. */
  dropped: number[];
}

export function joinRuns(runs: LoadedRun[], metric: string, errors: ErrorPolicy = 'zero'): JoinedRuns {
  const maps = runs.map((r) => metricValues(r, metric, errors).values);
  const ids = [...(maps[0]?.keys() ?? [])].filter((id) => maps.every((m) => m.has(id))).sort();
  return { ids, values: maps.map((m) => ids.map((id) => m.get(id)!)), dropped: maps.map((m) => m.size - ids.length) };
}

// ---------------------------------------------------------------------------
// Summaries

export interface RunSummary {
  runId: string;
  name?: string;
  pipeline: string;
  benchmark: string;
  backend: string;
  status: string;
  configHash?: string;
  seed?: string | number;
  /** Model ids that answered (from records; the manifest's routes when no call was recorded). */
  models: string[];
  n: number;
  answered: number;
  errors: number;
  errorCodes: Record<string, number>;
  /** Failed records by kind (model output, transport, timeout, other): each points at a different fix. */
  failedBy: Record<ErrorKind, number>;
  /** Answered records whose final answer is a refusal (scores.refused = 1). */
  refused: number;
  /** Failed records whose reply the endpoint cut at its token limit (error reason `length`): never scored. */
  cutReplies: number;
  /** Repaired tool-call arguments (or reply JSON) the agent loops used, over all records (counters.repairs). */
  repairs: number;
  /** Mean of every answer score over all records (failed = 0). */
  scores: Record<string, number>;
  /** Mean of each retrieval metric over answered records that have it, with counts. */
  retrieval: Record<string, number>;
  retrievalN: number;
  /** Mean of each pipeline counter over answered records, and the share of them where it is 0. */
  counters: Record<string, number>;
  zeroShare: Record<string, number>;
  refusalRate?: number;
  /** MMLongBench-Doc's official accuracy and F1 (answered records). */
  mmlongbench?: { acc: number; f1: number; n: number };
  usage: LedgerTotals;
  perQuestion: { calls: number; promptTokens: number; completionTokens: number; costUsd: number };
  time: { p50Ms: number | null; p90Ms: number | null };
}

function means(rows: Record<string, number>[], keys?: Iterable<string>, denominator?: number): { mean: Record<string, number>; count: Record<string, number> } {
  const sum: Record<string, number> = {};
  const count: Record<string, number> = {};
  for (const r of rows) {
    for (const [k, v] of Object.entries(r)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      sum[k] = (sum[k] ?? 0) + v;
      count[k] = (count[k] ?? 0) + 1;
    }
  }
  const mean: Record<string, number> = {};
  for (const k of keys ?? Object.keys(sum)) if (k in sum) mean[k] = sum[k] / (denominator ?? count[k]);
  return { mean, count };
}

/** Summary of a set of records (a whole run, or one bucket of it). */
export function summarizeRecords(records: RunRecord[], base: Partial<RunSummary> & { runId: string }): RunSummary {
  const answered = records.filter((r) => !r.error);
  const failed = records.length - answered.length;
  const errorCodes: Record<string, number> = {};
  const failedBy: Record<ErrorKind, number> = { model_output: 0, transport: 0, timeout: 0, other: 0 };
  for (const r of records) {
    if (!r.error) continue;
    errorCodes[r.error.code] = (errorCodes[r.error.code] ?? 0) + 1;
    failedBy[errorKindOf(r.error)]++;
  }
  // Answer scores: a failed record counts 0 for every key the answered records carry (helper keys aside),
  // when its question would have been scored at all (wouldBeScored).
  const s = means(answered.map((r) => r.scores ?? {}));
  const failedScored = records.filter((r) => r.error && wouldBeScored(r)).length;
  const scores: Record<string, number> = {};
  for (const [k, m] of Object.entries(s.mean)) {
    if (HELPER_SCORE_KEYS.has(k)) continue;
    scores[k] = (m * s.count[k]) / (s.count[k] + failedScored);
  }
  const retrievalRows = answered.map((r) => r.retrieval).filter((x): x is Record<string, number> => !!x);
  const ret = means(retrievalRows);
  const counterKeys = new Set(answered.flatMap((r) => Object.keys(r.counters ?? {})));
  const counters: Record<string, number> = {};
  const zeroShare: Record<string, number> = {};
  for (const k of [...counterKeys].sort()) {
    const vals = answered.map((r) => r.counters?.[k] ?? 0);
    counters[k] = vals.reduce((a, b) => a + b, 0) / Math.max(1, vals.length);
    zeroShare[k] = vals.filter((v) => v === 0).length / Math.max(1, vals.length);
  }
  const usage = emptyTotals();
  for (const r of records) addTotals(usage, r.usage);
  const n = Math.max(1, records.length);
  const refused = answered.filter((r) => typeof r.scores?.refused === 'number');
  const models = new Set(records.flatMap((r) => r.models ?? []));
  const benchmark = base.benchmark ?? records[0]?.benchmark ?? 'unknown';
  const out: RunSummary = {
    pipeline: records[0]?.pipeline ?? 'unknown',
    backend: backendLabel(records.map((r) => r.backend)),
    status: 'unknown',
    models: [...models].sort(),
    ...base,
    benchmark,
    n: records.length,
    answered: answered.length,
    errors: failed,
    errorCodes,
    failedBy,
    refused: refused.filter((r) => r.scores.refused === 1).length,
    cutReplies: records.filter((r) => r.error?.reason === 'length').length,
    repairs: records.reduce((n, r) => n + (r.counters?.repairs ?? 0), 0),
    scores,
    retrieval: ret.mean,
    retrievalN: retrievalRows.length,
    counters,
    zeroShare,
    usage,
    perQuestion: { calls: usage.calls / n, promptTokens: usage.promptTokens / n, completionTokens: usage.completionTokens / n, costUsd: usage.costUsd / n },
    time: {
      p50Ms: percentile(
        answered.map((r) => r.timings?.totalMs).filter((x): x is number => typeof x === 'number'),
        0.5,
      ),
      p90Ms: percentile(
        answered.map((r) => r.timings?.totalMs).filter((x): x is number => typeof x === 'number'),
        0.9,
      ),
    },
  };
  if (refused.length) out.refusalRate = refused.filter((r) => r.scores.refused === 1).length / refused.length;
  const official = benchmarkSpec(benchmark)?.aggregate;
  if (official && answered.some((r) => typeof r.scores?.goldAnswerable === 'number')) {
    out.mmlongbench = official(answered.map((r) => r.scores));
  }
  return out;
}

export function summarizeRun(run: LoadedRun): RunSummary {
  const m = run.manifest;
  const routeModels = (m?.models ?? []).filter((r) => r.stage !== 'embedding' && r.backend !== 'offline').map((r) => r.model);
  const s = summarizeRecords(run.records, {
    runId: run.runId,
    name: m?.experiment.name,
    pipeline: m?.pipeline.name ?? run.records[0]?.pipeline,
    // Own data carries the name its user gave (benchmark.options.name), never the loader's.
    benchmark: (m ? benchmarkDisplayName(m.config.benchmark) : undefined) ?? run.records[0]?.benchmark,
    status: m?.status ?? 'unknown',
    configHash: m?.configHash,
    seed: m?.seed,
  });
  if (m) s.backend = run.records.some((r) => r.usage?.calls) ? backendLabel(run.records.filter((r) => r.usage?.calls).map((r) => r.backend)) : m.backend;
  if (!s.models.length) s.models = [...new Set(routeModels)].sort();
  return s;
}

// ---------------------------------------------------------------------------
// Buckets

const questionCache = new Map<string, Map<string, Question>>();

/** The run's questions by id, reloaded from the benchmark files named in its manifest (for fields not stored in records). */
export function questionsOfRun(run: LoadedRun): Map<string, Question> {
  if (!run.manifest)
    throw new KfError(
      'manifest_missing',
      `run ${run.runId} has no manifest.json, so its questions cannot be reloaded`,
      'use a field stored in the records (modality, hops, type, format, page, source, answerable)',
    );
  const key = `${run.manifest.configHash}:${JSON.stringify(run.manifest.config.benchmark)}`;
  let m = questionCache.get(key);
  if (!m) {
    const { data } = loadConfiguredBenchmark(run.manifest.config);
    m = new Map(data.questions.map((q) => [q.id, q]));
    questionCache.set(key, m);
  }
  return m;
}

/**
 * id -> bucket values of a field for a run's records: the run-level fields
 * `pool` (trimmed/untrimmed), `error` (ok or the error code) and `backend`; a
 * question field stored in the records (runner RECORD_BUCKET_FIELDS +
 * output.buckets); any other question field by reloading the run's questions.
 */
export function bucketsOf(run: LoadedRun, field: string): (id: string) => string[] {
  const byId = new Map(run.records.map((r) => [r.id, r]));
  if (field === 'pool') {
    return (id) => {
      const t = byId.get(id)?.retrievalStats?.poolTrimmed;
      return [t === undefined ? NONE : t ? 'trimmed' : 'untrimmed'];
    };
  }
  if (field === 'error') return (id) => [byId.get(id)?.error?.code ?? 'ok'];
  if (field === 'backend') return (id) => [byId.get(id)?.backend ?? NONE];
  const stored = run.records.length > 0 && run.records.every((r) => r.buckets && field in r.buckets);
  if (stored) return (id) => byId.get(id)?.buckets?.[field] ?? [NONE];
  const questions = questionsOfRun(run);
  return (id) => {
    const q = questions.get(id);
    return q ? questionFieldValues(q, field) : [NONE];
  };
}

/** Bucket fields every run knows (for the message when a --by field matches nothing). */
export const KNOWN_BUCKET_FIELDS = [
  'modality',
  'hops',
  'type',
  'format',
  'page',
  'source',
  'answerable',
  'subject',
  'context',
  'grade',
  'pool',
  'error',
  'backend',
];

/**
 * Refuse a bucket field that is not a known one and that no record of these
 * runs has a value for: a misspelt --by would otherwise put every question in
 * one "(none)" bucket and look like a result.
 */
export function assertBucketField(runs: readonly LoadedRun[], field: string): void {
  if (KNOWN_BUCKET_FIELDS.includes(field)) return;
  const withRecords = runs.filter((r) => r.records.length);
  if (!withRecords.length) return;
  const anyValue = withRecords.some((run) => {
    const of = bucketsOf(run, field);
    return run.records.some((r) => of(r.id).some((b) => b !== NONE));
  });
  if (anyValue) return;
  const near = didYouMean(field, KNOWN_BUCKET_FIELDS);
  throw new KfError(
    'bucket_field_unknown',
    `no question of ${withRecords.map((r) => r.runId).join(', ')} has a value for the bucket field "${field}"`,
    `${near ? `did you mean "${near}"? ` : ''}use one of ${KNOWN_BUCKET_FIELDS.join(', ')}, or a dotted path such as meta.docType`,
    { concerns: field },
  );
}

/** Summary of each bucket of a field (buckets sorted by name; a question may be in several). */
export function summarizeByBucket(run: LoadedRun, field: string): Record<string, RunSummary> {
  const of = bucketsOf(run, field);
  const groups = new Map<string, RunRecord[]>();
  for (const r of run.records) {
    for (const b of of(r.id)) {
      const g = groups.get(b);
      if (g) g.push(r);
      else groups.set(b, [r]);
    }
  }
  const base = summarizeRun(run);
  const out: Record<string, RunSummary> = {};
  for (const b of [...groups.keys()].sort()) {
    out[b] = summarizeRecords(groups.get(b)!, {
      runId: run.runId,
      name: base.name,
      pipeline: base.pipeline,
      benchmark: base.benchmark,
      status: base.status,
      backend: base.backend,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------
// Listing

export interface RunListing {
  runId: string;
  dir: string;
  status: string;
  pipeline: string;
  benchmark: string;
  backend: string;
  recorded: number;
  selected?: number;
  errors: number;
  /** Of the errors, replies cut by the token limit (never scored). */
  cutReplies?: number;
  metric?: string;
  value?: number;
  startedAt?: string;
  updatedAt?: string;
  /** A run whose manifest says running but whose lock's process is gone (kill -9, power loss): how to go on. */
  dead?: { pid?: number; resume?: string };
}

/**
 * The status a listing shows: a manifest that says `running` is believed only while the run's lock is held
 * by a live process; otherwise the run died (its last checkpoint is what the manifest shows).
 */
function liveStatus(run: LoadedRun): Pick<RunListing, 'status' | 'dead'> {
  const status = run.manifest?.status ?? 'unknown';
  if (status !== 'running') return { status };
  const lock = pidLockState(path.join(run.dir, '.lock'));
  if (lock.state === 'alive') return { status };
  return { status: 'dead', dead: { ...(lock.holder ? { pid: lock.holder.pid } : {}), ...(run.manifest?.resume ? { resume: run.manifest.resume } : {}) } };
}

export function listRuns(resultsDir = defaultResultsDir()): RunListing[] {
  const out: RunListing[] = [];
  for (const { runId: id, dir } of storedRuns(resultsDir)) {
    try {
      const run = loadRun(dir, { resultsDir });
      const s = summarizeRun(run);
      const metric = primaryMetric(run);
      out.push({
        runId: run.runId,
        dir: run.dir,
        ...liveStatus(run),
        pipeline: s.pipeline,
        benchmark: s.benchmark,
        backend: s.backend,
        recorded: run.records.length,
        selected: run.manifest?.counts.selected,
        errors: s.errors,
        ...(s.cutReplies ? { cutReplies: s.cutReplies } : {}),
        metric,
        value: metric ? s.scores[metric] : undefined,
        startedAt: run.manifest?.startedAt,
        updatedAt: run.manifest?.updatedAt,
      });
    } catch (e) {
      out.push({
        runId: id,
        dir,
        status: `unreadable: ${(e as Error).message.slice(0, 80)}`,
        pipeline: '?',
        benchmark: '?',
        backend: '?',
        recorded: 0,
        errors: 0,
      });
    }
  }
  return out.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || a.runId.localeCompare(b.runId));
}

/** "n answered, n refused, n failed (model output n, transport n, timeout n, other n)": the outcome line of a run or bucket. */
export function outcomeLine(s: Pick<RunSummary, 'answered' | 'refused' | 'errors' | 'failedBy'> & Partial<Pick<RunSummary, 'cutReplies' | 'repairs'>>): string {
  const kinds = ERROR_KINDS.filter((k) => s.failedBy[k]).map((k) => `${ERROR_KIND_LABEL[k]} ${s.failedBy[k]}`);
  const notes = [
    s.cutReplies ? `${s.cutReplies} cut by the token limit (not scored)` : '',
    s.repairs ? `${s.repairs} repaired tool argument(s) used` : '',
  ].filter(Boolean);
  return `${s.answered} answered, ${s.refused} refused, ${s.errors} failed${kinds.length ? ` (${kinds.join(', ')})` : ''}${notes.length ? `; ${notes.join(', ')}` : ''}`;
}
