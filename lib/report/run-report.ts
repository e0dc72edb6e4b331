/**
 * `kf report`: tables over one or more runs, in the shapes of the KnowForge
 * paper as far as the runs allow, each as CSV + Markdown (lib/report/table.ts)
 * with the backend label in the caption:
 *
 *   runs          one row per run: answer metrics (EM/F1 or accuracy), refusals,
 *                 first-search R@1/3/8, R@all, doc found, answer visible, usage
 *                 per question, time p50, "vs ref" flips won:lost (Tables 2-4, 6)
 *   paired        paired statistics of every run against the reference run
 *                 (diff, flips, sign test, bootstrap CI, se)
 *   usage         mean pipeline counters per question and the share of
 *                 questions where each is zero, e.g. no reads (Tables 2, 8)
 *   by-<field>    the main metric per bucket, one column per bucket (Tables 7, 10)
 *   retrieval-by-<field>  recall per bucket and run (Table 11)
 *
 * A manifest.json beside the tables names the runs (ids, config hashes,
 * backends) and the files written.
 */
import { departureNotes } from '../run/departures';
import * as path from 'node:path';
import { OFFLINE_NOTE, resultManifest, writeManifest } from '../run/result-manifest';
import { writeTable, type ColumnSpec, type Row, type TablePaths } from './table';
import { KfError } from '../util/errors';
import { shortHash } from '../util/hash';
import { backendLabel } from '../run/aggregate';
import { ERROR_KINDS, ERROR_KIND_LABEL } from '../run/error-kind';
import { compareRuns } from '../run/compare';
import {
  HELPER_SCORE_KEYS,
  assertBucketField,
  defaultResultsDir,
  metricValues,
  primaryMetric,
  summarizeByBucket,
  summarizeRun,
  type LoadedRun,
  type RunSummary,
} from '../run/results';

export interface ReportOptions {
  /** Output folder (default: <run>/report for one run, results/report-<hash> for several). */
  out?: string;
  /** Bucket fields for the by-<field> tables. */
  by?: string[];
  /** Reference run for "vs ref" (default: the first run). */
  ref?: string;
  /** Metric for vs-ref flips and bucket tables (default: the first run's main metric). */
  metric?: string;
  /** Flip margin for "vs ref" (default 0). */
  margin?: number;
  resultsDir?: string;
  decimals?: number;
}

export interface ReportResult {
  dir: string;
  tables: Record<string, TablePaths>;
  manifest: string;
  backend: string;
  metric?: string;
}

const ANSWER_KEYS_ORDER = ['em', 'f1', 'acc', 'rougeL', 'tokenEmbF1'];
const DOC_KEYS = ['R@1', 'R@2', 'R@3', 'R@5', 'R@8', 'R@all', 'docFound', 'answerVisible', 'poolTrimmed'];
// Page-level recall beside the document level where a benchmark scores both (own data with gold pages of PDFs).
const RETRIEVAL_KEYS = [...DOC_KEYS, ...['R@1', 'R@2', 'R@3', 'R@5', 'R@8', 'R@all', 'docFound'].map((k) => `page:${k}`)];

function pct(x: number | undefined): number | undefined {
  return x === undefined ? undefined : x * 100;
}

function backendCaption(runs: RunSummary[]): { label: string; note?: string } {
  const label = backendLabel(runs.map((r) => r.backend));
  const note =
    label === 'offline'
      ? OFFLINE_NOTE
      : label === 'mixed'
        ? `mixed backends (${[...new Set(runs.map((r) => `${r.runId}: ${r.backend}`))].join(', ')}): offline parts are not model results`
        : undefined;
  return { label, note };
}

export function defaultReportDir(runs: LoadedRun[], resultsDir = defaultResultsDir()): string {
  if (runs.length === 1) return path.join(runs[0].dir, 'report');
  return path.join(resultsDir, `report-${shortHash(runs.map((r) => r.runId).join('\n'), 8)}`);
}

/** What every table of a report shares. */
interface ReportContext {
  runs: LoadedRun[];
  summaries: ReturnType<typeof summarizeRun>[];
  ref: LoadedRun;
  metric?: string;
  margin: number;
  decimals: number;
  dir: string;
  label: string;
  note?: string;
  notes: string[];
  retrievalKeys: string[];
}

/** Check the asked-for metric and bucket fields before writing anything: a misspelt name would otherwise give empty "vs ref" cells or one "(none)" bucket. */
function checkMetricAndFields(runs: LoadedRun[], opts: ReportOptions): void {
  if (opts.metric) {
    let first: unknown;
    const found = runs.some((r) => {
      try {
        metricValues(r, opts.metric!);
        return true;
      } catch (e) {
        first ??= e;
        return false;
      }
    });
    if (!found) throw first;
  }
  for (const field of opts.by ?? []) assertBucketField(runs, field);
}

/** The runs table (Table 6 shape). */
function runsTable(c: ReportContext): TablePaths {
  const { runs, summaries, ref, metric, margin } = c;
  const answerKeys = ANSWER_KEYS_ORDER.filter((k) => summaries.some((s) => k in s.scores));
  const otherScoreKeys = [...new Set(summaries.flatMap((s) => Object.keys(s.scores)))]
    .filter((k) => !ANSWER_KEYS_ORDER.includes(k) && !HELPER_SCORE_KEYS.has(k))
    .sort();
  const rows: Row[] = runs.map((run, i) => {
    const s = summaries[i];
    const row: Row = { run: run.runId, pipeline: s.pipeline, benchmark: s.benchmark, backend: s.backend, n: s.n, answered: s.answered, errors: s.errors };
    for (const k of ERROR_KINDS) row[`failed_${k}`] = s.failedBy[k];
    for (const k of [...answerKeys, ...otherScoreKeys]) row[k] = pct(s.scores[k]);
    if (s.mmlongbench) row.mmlbF1 = pct(s.mmlongbench.f1);
    row.refused = pct(s.refusalRate);
    for (const k of c.retrievalKeys) row[k] = pct(s.retrieval[k]);
    row.callsPerQ = s.perQuestion.calls;
    row.tokensPerQ = s.perQuestion.promptTokens + s.perQuestion.completionTokens;
    row.costUsd = s.usage.costUsd;
    row.p50s = s.time.p50Ms === null ? undefined : s.time.p50Ms / 1000;
    if (metric && run !== ref) {
      try {
        const cmp = compareRuns(run, ref, { metric, margin });
        row.vsRef = `${cmp.won}:${cmp.lost}`;
      } catch {
        row.vsRef = undefined;
      }
    } else row.vsRef = run === ref ? 'ref' : undefined;
    return row;
  });
  const hasMmlb = summaries.some((s) => s.mmlongbench);
  const runCols: ColumnSpec[] = [
    { key: 'run' },
    { key: 'pipeline' },
    { key: 'benchmark' },
    { key: 'backend' },
    { key: 'n' },
    { key: 'answered' },
    { key: 'errors', label: 'failed' },
    ...ERROR_KINDS.map((k) => ({ key: `failed_${k}`, label: `failed: ${ERROR_KIND_LABEL[k]}` })),
    ...answerKeys.map((k) => ({ key: k, label: k === 'em' ? 'EM' : k === 'f1' ? 'F1' : k === 'acc' ? 'Acc' : k })),
    ...otherScoreKeys.map((k) => ({ key: k })),
    ...(hasMmlb ? [{ key: 'mmlbF1', label: 'F1 (MMLB)' }] : []),
    { key: 'refused', label: 'refused %' },
    ...c.retrievalKeys.map((k) => ({
      key: k,
      label:
        k === 'docFound'
          ? 'doc found'
          : k === 'page:docFound'
            ? 'page: doc found'
            : k === 'answerVisible'
              ? 'ans. visible'
              : k === 'poolTrimmed'
                ? 'pool trimmed'
                : k,
    })),
    { key: 'callsPerQ', label: 'calls/q', decimals: 2 },
    { key: 'tokensPerQ', label: 'tokens/q', decimals: 0 },
    { key: 'costUsd', label: 'cost $', decimals: 4 },
    { key: 'p50s', label: 'time p50 s', decimals: 2 },
    { key: 'vsRef', label: `vs ${ref.runId}${metric ? ` (${metric})` : ''}` },
  ];
  const benchmarks = [...new Set(summaries.map((s) => s.benchmark))].join(', ');
  return writeTable(rows, {
    dir: c.dir,
    name: 'runs',
    columns: runCols,
    decimals: c.decimals,
    caption:
      `Runs on ${benchmarks} (backend: ${c.label}). ` +
      `"vs ref" = questions won:lost against ${ref.runId}${metric ? ` on ${metric}` : ''} at margin ${margin}.`,
    notes: c.notes,
  });
}

/** Paired statistics of every run against the reference. */
function pairedTable(c: ReportContext, metric: string): TablePaths {
  const { ref, margin } = c;
  const pairedRows: Row[] = [];
  for (const run of c.runs) {
    if (run === ref) continue;
    try {
      const cmp = compareRuns(run, ref, { metric, margin });
      pairedRows.push({
        run: run.runId,
        ref: ref.runId,
        metric,
        n: cmp.n,
        mean: pct(cmp.meanA),
        refMean: pct(cmp.meanB),
        diff: pct(cmp.diff),
        won: cmp.won,
        lost: cmp.lost,
        tied: cmp.tied,
        signTestP: cmp.signTestP,
        ciLow: pct(cmp.bootstrapCI[0]),
        ciHigh: pct(cmp.bootstrapCI[1]),
        se: pct(cmp.se),
        dropped: cmp.droppedA + cmp.droppedB,
        warnings: cmp.warnings.join('; ') || undefined,
      });
    } catch (e) {
      pairedRows.push({ run: run.runId, ref: ref.runId, metric, warnings: (e as Error).message });
    }
  }
  return writeTable(pairedRows, {
    dir: c.dir,
    name: 'paired',
    columns: [
      { key: 'run' },
      { key: 'ref' },
      { key: 'metric' },
      { key: 'n' },
      { key: 'mean' },
      { key: 'refMean', label: 'ref mean' },
      { key: 'diff' },
      { key: 'won' },
      { key: 'lost' },
      { key: 'tied' },
      { key: 'signTestP', label: 'sign p', format: (v) => (typeof v === 'number' ? (v < 1e-4 ? v.toExponential(2) : v.toFixed(4)) : 'n/a') },
      { key: 'ciLow', label: 'CI low' },
      { key: 'ciHigh', label: 'CI high' },
      { key: 'se' },
      { key: 'dropped' },
      { key: 'warnings' },
    ],
    decimals: c.decimals,
    caption:
      `Paired comparison against ${ref.runId} on ${metric} (backend: ${c.label}): flips at margin ${margin}, two-sided exact sign test, ` +
      '95% paired bootstrap CI (2,000 resamples, seeded), paired standard error.',
    notes: c.notes,
  });
}

/** Pipeline usage per answered question (Tables 2 and 8 shape); undefined when no pipeline counted anything. */
function usageTable(c: ReportContext): TablePaths | undefined {
  const counterKeys = [...new Set(c.summaries.flatMap((s) => Object.keys(s.counters)))].sort();
  if (!counterKeys.length) return undefined;
  const usageRows = c.runs.map((run, i) => {
    const s = c.summaries[i];
    const row: Row = { run: run.runId, n: s.answered };
    for (const k of counterKeys) {
      row[k] = s.counters[k];
      row[`zero.${k}`] = pct(s.zeroShare[k]);
    }
    return row;
  });
  return writeTable(usageRows, {
    dir: c.dir,
    name: 'usage',
    columns: [
      { key: 'run' },
      { key: 'n' },
      ...counterKeys.flatMap((k) => [
        { key: k, label: `${k}/q`, decimals: 2 },
        { key: `zero.${k}`, label: `no ${k} %` },
      ]),
    ],
    decimals: c.decimals,
    caption: `Pipeline usage per answered question (backend: ${c.label}): mean count, and share of questions where it is zero.`,
    notes: c.note ? [c.note] : undefined,
  });
}

/** The metric and the retrieval by the values of one bucket field (Tables 7, 10, 11 shape). */
function bucketTables(c: ReportContext, field: string, tables: Record<string, TablePaths>): void {
  const { runs, metric } = c;
  const perRun = runs.map((r) => summarizeByBucket(r, field));
  const buckets = [...new Set(perRun.flatMap((p) => Object.keys(p)))].sort();
  const safe = field.replace(/[^A-Za-z0-9._-]+/g, '_');
  if (metric) {
    const bRows: Row[] = runs.map((run, i) => {
      const row: Row = { run: run.runId };
      for (const b of buckets) row[b] = pct(perRun[i][b]?.scores[metric]);
      return row;
    });
    const sizes = buckets.map((b) => `${b} ${perRun[0][b]?.n ?? 0}`).join(', ');
    tables[`by-${safe}`] = writeTable(bRows, {
      dir: c.dir,
      name: `by-${safe}`,
      columns: [{ key: 'run' }, ...buckets.map((b) => ({ key: b }))],
      decimals: c.decimals,
      caption: `${metric} (%) by ${field} (backend: ${c.label}). Bucket sizes (${runs[0].runId}): ${sizes}; a question with several values counts in each.`,
      notes: c.notes,
    });
  }
  const rRows: Row[] = [];
  for (let i = 0; i < runs.length; i++) {
    for (const b of buckets) {
      const s = perRun[i][b];
      if (!s || !s.retrievalN) continue;
      const row: Row = { run: runs[i].runId, [field]: b, n: s.retrievalN };
      for (const k of c.retrievalKeys) row[k] = pct(s.retrieval[k]);
      rRows.push(row);
    }
  }
  if (!rRows.length) return;
  tables[`retrieval-by-${safe}`] = writeTable(rRows, {
    dir: c.dir,
    name: `retrieval-by-${safe}`,
    columns: [{ key: 'run' }, { key: field }, { key: 'n' }, ...c.retrievalKeys.map((k) => ({ key: k }))],
    decimals: c.decimals,
    caption:
      `Document-level retrieval by ${field} (backend: ${c.label}): recall in the first search (R@k) and over all searches (R@all)` +
      `${c.retrievalKeys.some((k) => k.startsWith('page:')) ? '; page:* the same over gold pages, where the questions give them' : ''}.`,
    notes: c.notes,
  });
}

/** Write the report tables for these runs. */
export function writeRunReport(runs: LoadedRun[], opts: ReportOptions = {}): ReportResult {
  if (!runs.length) throw new KfError('no_runs', 'kf report needs at least one run', 'pass run ids or run folders (kf runs lists them)');
  const dir = opts.out ?? defaultReportDir(runs, opts.resultsDir);
  const summaries = runs.map(summarizeRun);
  const { label, note } = backendCaption(summaries);
  const ref = opts.ref ? runs.find((r) => r.runId === opts.ref || r.dir === path.resolve(opts.ref!)) : runs[0];
  if (!ref) throw new KfError('bad_ref', `reference run "${opts.ref}" is not among the reported runs`, `pass one of: ${runs.map((r) => r.runId).join(', ')}`);
  const metric = opts.metric ?? primaryMetric(ref);
  checkMetricAndFields(runs, opts);
  const margin = opts.margin ?? 0;
  const notes = [
    ...(note ? [note] : []),
    'answer metrics and recall in %; failed questions score 0 on answer metrics; recall averages answered questions with gold documents',
    ...departureNotes(runs),
  ];
  const retrievalKeys = RETRIEVAL_KEYS.filter((k) => summaries.some((s) => k in s.retrieval));
  const c: ReportContext = { runs, summaries, ref, metric, margin, decimals: opts.decimals ?? 1, dir, label, note, notes, retrievalKeys };
  const tables: Record<string, TablePaths> = {};
  tables.runs = runsTable(c);
  if (metric && runs.length > 1) tables.paired = pairedTable(c, metric);
  const usage = usageTable(c);
  if (usage) tables.usage = usage;
  for (const field of opts.by ?? []) bucketTables(c, field, tables);

  const stamp = resultManifest({
    config: { runs: runs.map((r) => ({ runId: r.runId, configHash: r.manifest?.configHash })), by: opts.by ?? [], ref: ref.runId, metric, margin },
    backend: label,
    models: [...new Set(summaries.flatMap((s) => s.models))],
    extra: {
      runs: summaries.map((s) => ({
        runId: s.runId,
        pipeline: s.pipeline,
        benchmark: s.benchmark,
        backend: s.backend,
        configHash: s.configHash,
        seed: s.seed,
        n: s.n,
        status: s.status,
      })),
    },
  });
  const manifest = writeManifest(
    dir,
    stamp,
    Object.values(tables).flatMap((t) => [t.csv, t.md]),
  );
  return { dir, tables, manifest, backend: label, metric };
}
