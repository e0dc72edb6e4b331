/**
 * Buckets for breakdown tables: modality, hops, question type, single/cross
 * page, answer format, evidence source, ScienceQA subject/context/grade, pool
 * trimmed or not (a run-level fact), or any field of the question (dotted path
 * into Question or its meta). Multi-valued fields put a question in each of
 * its buckets (the benchmarks' own protocol), so bucket sizes can sum to more
 * than the question count.
 */
import type { Question } from '../bench/types';
import { NAMED_FIELDS, NONE, questionFieldValues } from '../bench/fields';
import { aggregateScores } from './retrieval';

export const BUCKET_FIELDS = [...NAMED_FIELDS, 'pool'] as const;

export interface BucketContext {
  /** Question id -> whether its evidence pool was trimmed (RetrievalLog.poolTrimmed). */
  poolTrimmed?: ReadonlyMap<string, boolean>;
}

/** The buckets one question falls in for a field. */
export function bucketValues(q: Question, field: string, ctx: BucketContext = {}): string[] {
  if (field === 'pool') {
    const t = ctx.poolTrimmed?.get(q.id);
    return [t === undefined ? NONE : t ? 'trimmed' : 'untrimmed'];
  }
  return questionFieldValues(q, field);
}

/** Bucket -> question ids (buckets sorted by name). */
export function groupByBucket(questions: readonly Question[], field: string, ctx: BucketContext = {}): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const q of questions) {
    for (const v of bucketValues(q, field, ctx)) {
      const g = groups.get(v);
      if (g) g.push(q.id);
      else groups.set(v, [q.id]);
    }
  }
  return new Map([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A function id -> buckets, for comparePairedByBucket. */
export function bucketsById(questions: readonly Question[], field: string, ctx: BucketContext = {}): (id: string) => string[] {
  const m = new Map(questions.map((q) => [q.id, bucketValues(q, field, ctx)]));
  return (id) => m.get(id) ?? [NONE];
}

/**
 * Mean of each score key per bucket. `scores` maps question id to its scores
 * (scoreAnswer/retrievalScores results); questions without scores are skipped.
 */
export function bucketMeans(
  questions: readonly Question[],
  scores: ReadonlyMap<string, Record<string, number> | null | undefined>,
  field: string,
  ctx: BucketContext = {},
): Record<string, { n: number; mean: Record<string, number>; count: Record<string, number> }> {
  const out: Record<string, { n: number; mean: Record<string, number>; count: Record<string, number> }> = {};
  for (const [bucket, ids] of groupByBucket(questions, field, ctx)) {
    const agg = aggregateScores(ids.map((id) => scores.get(id)));
    if (agg.n) out[bucket] = agg;
  }
  return out;
}
