/**
 * danfojs DataFrames of run records, for interactive analysis in notebooks:
 * one row per question with its bucket fields and every score, so a researcher
 * can group, filter and pivot without writing loops (`df.groupby(['hops'])`).
 *
 * danfojs-node is loaded lazily (it takes ~1.5 s and shares tfjs-core with
 * lib/tf/backend), only when a frame is asked for. Multi-valued buckets
 * (a question with image AND table evidence) are joined with '+' in the frame;
 * the benchmark's own protocol, counting such a question in each bucket, is what
 * lib/run/results summarizeByBucket does.
 */
import type { DataFrame } from 'danfojs-node';
import type { LoadedRun } from '../run/results';
import { KfError } from '../util/errors';

type Dfd = typeof import('danfojs-node');
let dfd: Dfd | undefined;

/** The danfojs-node module (loaded on first use). */
export function danfo(): Dfd {
  dfd ??= require('danfojs-node') as Dfd;
  return dfd;
}

export interface RecordsFrameOptions {
  /** Score keys to include (default: every answer score and recall key present). */
  metrics?: string[];
  /** Bucket fields to include (default: those stored in the records). */
  fields?: string[];
  /** Failed questions: score 0 on answer metrics (default, as in comparisons) or leave them out. */
  errors?: 'zero' | 'drop';
}

/** Plain rows (one per question) of a run: id, run, bucket fields, answer scores, recall, time. */
export function recordRows(run: LoadedRun, opts: RecordsFrameOptions = {}): Record<string, string | number>[] {
  const recs = run.records.filter((r) => !(opts.errors === 'drop' && r.error));
  const scoreKeys = opts.metrics ?? [...new Set(recs.flatMap((r) => [...Object.keys(r.scores), ...Object.keys(r.retrieval ?? {})]))].sort();
  const fields = opts.fields ?? [...new Set(recs.flatMap((r) => Object.keys(r.buckets ?? {})))].sort();
  return recs.map((r) => {
    const row: Record<string, string | number> = { run: run.runId, id: r.id };
    for (const f of fields) row[f] = (r.buckets?.[f] ?? []).join('+') || 'none';
    for (const k of scoreKeys) {
      const v = r.scores[k] ?? r.retrieval?.[k];
      row[k] = typeof v === 'number' ? v : r.error && k in (recs.find((x) => !x.error)?.scores ?? {}) ? 0 : NaN;
    }
    row.seconds = (r.timings?.totalMs ?? NaN) / 1000;
    return row;
  });
}

/** A DataFrame of one or more runs' records (rows stacked; the `run` column tells them apart). */
export function recordsFrame(runs: LoadedRun | LoadedRun[], opts: RecordsFrameOptions = {}): DataFrame {
  const list = Array.isArray(runs) ? runs : [runs];
  const rows = list.flatMap((r) => recordRows(r, opts));
  if (!rows.length)
    throw new KfError('empty_frame', `no records in ${list.map((r) => r.runId).join(', ')}`, 'run the experiment first (kf run), or check the run id');
  return new (danfo().DataFrame)(rows);
}

/** Mean of `columns` per value of `by` (a column of the frame), with the group size as `n`. */
export function groupMeans(df: DataFrame, by: string[], columns: string[]): DataFrame {
  const missing = [...by, ...columns].filter((c) => !df.columns.includes(c));
  if (missing.length)
    throw new KfError('bad_frame_column', `the frame has no column ${missing.map((m) => `"${m}"`).join(', ')}`, `use one of: ${df.columns.join(', ')}`);
  const g = df.groupby(by);
  const means = g.col(columns).mean();
  const counts = g.col([columns[0]]).count();
  means.addColumn('n', counts[`${columns[0]}_count`].values as number[], { inplace: true });
  return means;
}
