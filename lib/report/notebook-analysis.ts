/**
 * Per-run analyses the KnowForge notebooks show, computed from run records and
 * traces (never from the screen): a metric with its bootstrap interval, usage
 * counters, latency per stage and time to first event, a metric split by a
 * per-question flag (pool trimmed or not), a seeded sample of failures with a
 * rule-based class, and one question's trace condensed to rows.
 *
 * Numbers are x100 for shares, milliseconds for times; rounding is fixed so a
 * rerun on the same records writes the same tables.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pairedBootstrapCI, mean } from '../eval/stats';
import { percentile } from '../run/aggregate';
import { metricValues, summarizeRun, type LoadedRun } from '../run/results';
import type { RunRecord } from '../run/records';
import { makeRng } from '../util/rng';
import type { Row } from './table';
import { drawing } from './drawn-runs';

const r1 = (x: number | null | undefined): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 10) / 10);
const sec = (ms: number | null): number | null => (ms === null ? null : Math.round(ms) / 1000);
const pct = (x: number | null | undefined): number | null => (x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 1000) / 10);

export interface TraceEventLike {
  t?: number;
  kind: string;
  [k: string]: unknown;
}

/** The events of a question's trace (files or traces.jsonl); [] when traces were off or the file is gone. */
export function readTraceEvents(run: LoadedRun, rec: Pick<RunRecord, 'id' | 'trace'>): TraceEventLike[] {
  if (!rec.trace) return [];
  try {
    if (rec.trace.startsWith('traces.jsonl#')) {
      const lines = fs.readFileSync(path.join(run.dir, 'traces.jsonl'), 'utf8').split('\n');
      for (const l of lines) {
        if (!l.includes(`"id":${JSON.stringify(rec.id)}`)) continue;
        const doc = JSON.parse(l) as { id: string; events?: TraceEventLike[] };
        if (doc.id === rec.id) return doc.events ?? [];
      }
      return [];
    }
    const doc = JSON.parse(fs.readFileSync(path.join(run.dir, rec.trace), 'utf8')) as { events?: TraceEventLike[] };
    return doc.events ?? [];
  } catch {
    return [];
  }
}

/** Mean of a metric per run with its 95% bootstrap interval (x100; seeded per label). */
export function metricWithCI(
  runs: Map<string, LoadedRun>,
  metric: string,
  opts: { seed?: string | number; resamples?: number } = {},
): Map<string, { mean: number | null; lo: number | null; hi: number | null; n: number }> {
  const out = new Map<string, { mean: number | null; lo: number | null; hi: number | null; n: number }>();
  for (const [label, run] of runs) {
    let vs: number[];
    try {
      vs = [...metricValues(run, metric).values.values()];
    } catch {
      vs = [];
    }
    const ci = vs.length ? pairedBootstrapCI(vs, { seed: `${opts.seed ?? 0}/${label}`, resamples: opts.resamples ?? 2000 }) : [NaN, NaN];
    out.set(label, { mean: vs.length ? pct(mean(vs)) : null, lo: pct(ci[0]), hi: pct(ci[1]), n: vs.length });
  }
  return out;
}

/** Pipeline counters per run: mean per answered question and the share of questions where it is zero (x100). */
export function usageRows(runs: Map<string, LoadedRun>, keys?: string[]): Row[] {
  const sums = [...runs].map(([label, run]) => ({ label, s: summarizeRun(run) }));
  const all = keys ?? [...new Set(sums.flatMap((x) => Object.keys(x.s.counters)))].sort();
  const rows = sums.map(({ label, s }) => {
    const row: Row = { config: label, n: s.answered };
    for (const k of all) {
      row[k] = k in s.counters ? Math.round(s.counters[k] * 100) / 100 : null;
      row[`zero ${k} %`] = k in s.zeroShare ? pct(s.zeroShare[k]) : null;
    }
    return row;
  });
  return drawing(rows, runs);
}

/** Model latency (ms) per stage summed over a question's model-call events. */
function stageLatency(events: TraceEventLike[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) {
    if (e.kind !== 'model-call') continue;
    const stage = String(e.stage ?? 'model');
    const ms = Number(e.latencyMs ?? 0);
    if (Number.isFinite(ms)) out[stage] = (out[stage] ?? 0) + ms;
  }
  return out;
}

/** When the first trace event came (ms after the question started): the trace's timing event, else the first event's t. */
export function firstEventMs(events: TraceEventLike[]): number | null {
  const timing = events.find((e) => e.kind === 'timing' && typeof e.firstEventMs === 'number');
  if (timing) return timing.firstEventMs as number;
  const ts = events.map((e) => e.t).filter((t): t is number => typeof t === 'number');
  return ts.length ? Math.min(...ts) : null;
}

/**
 * Latency per run: p50/p90 of the whole question, mean pipeline and search time,
 * model latency per stage (from traces), model calls and tokens per question,
 * p50 time to first event.
 */
export function latencyRows(runs: Map<string, LoadedRun>): { rows: Row[]; stages: string[] } {
  const perRun = [...runs].map(([label, run]) => {
    const recs = run.records.filter((r) => !r.error);
    const stage: Record<string, number> = {};
    const first: number[] = [];
    for (const rec of recs) {
      const ev = readTraceEvents(run, rec);
      for (const [k, v] of Object.entries(stageLatency(ev))) stage[k] = (stage[k] ?? 0) + v;
      const f = firstEventMs(ev);
      if (f !== null) first.push(f);
    }
    return { label, run, recs, stage, first };
  });
  const stages = [...new Set(perRun.flatMap((p) => Object.keys(p.stage)))].sort();
  const rows = perRun.map(({ label, run, recs, stage, first }) => {
    const s = summarizeRun(run);
    const n = Math.max(1, recs.length);
    const row: Row = {
      config: label,
      n: recs.length,
      p50s: sec(
        percentile(
          recs.map((r) => r.timings.totalMs),
          0.5,
        ),
      ),
      p90s: sec(
        percentile(
          recs.map((r) => r.timings.totalMs),
          0.9,
        ),
      ),
      pipelineMs: r1(recs.reduce((a, r) => a + r.timings.pipelineMs, 0) / n),
      searchMs: r1(recs.reduce((a, r) => a + r.timings.searchMs, 0) / n),
      searches: Math.round((recs.reduce((a, r) => a + r.timings.searches, 0) / n) * 100) / 100,
      callsPerQ: Math.round(s.perQuestion.calls * 100) / 100,
      tokensPerQ: Math.round(s.perQuestion.promptTokens + s.perQuestion.completionTokens),
      firstEventMsP50: r1(percentile(first, 0.5)),
    };
    for (const st of stages) row[`${st} ms`] = r1((stage[st] ?? 0) / n);
    return row;
  });
  return { rows: drawing(rows, runs), stages };
}

/** A metric (x100) per run on the questions where `flag` of the reference run's retrieval is 1 vs 0 (e.g. poolTrimmed). */
export function flagSplitRows(runs: Map<string, LoadedRun>, metric: string, flag: string, ref: string): Row[] {
  const refRun = runs.get(ref);
  if (!refRun) return [];
  const on = new Set(refRun.records.filter((r) => r.retrieval?.[flag] === 1).map((r) => r.id));
  const off = new Set(refRun.records.filter((r) => r.retrieval && r.retrieval[flag] === 0).map((r) => r.id));
  const rows = [...runs].map(([label, run]) => {
    let vals = new Map<string, number>();
    try {
      vals = metricValues(run, metric).values;
    } catch {
      /* no such metric */
    }
    const m = (ids: Set<string>) => {
      const xs = [...ids].filter((id) => vals.has(id)).map((id) => vals.get(id)!);
      return xs.length ? pct(mean(xs)) : null;
    };
    return { config: label, [`${flag}=1 (n ${on.size})`]: m(on), [`${flag}=0 (n ${off.size})`]: m(off) };
  });
  return drawing(rows, runs);
}

/**
 * Why an answer failed, from the record alone (a rule-based stand-in for the
 * paper's LLM-assigned classes A-G; the paper's letters are in brackets where
 * they match): retrieval miss, gold never in the pool, refusal [F], partial
 * answer / granularity [E], or reading / assembly [A-D].
 */
export function failureClass(rec: RunRecord): string {
  const r = rec.retrieval ?? {};
  if (rec.error) return `error: ${rec.error.code}`;
  if (r.docFound === 0) return 'retrieval miss (gold document never found)';
  if (r.answerVisible === 0) return 'not in pool (document found, answer text not in the final pool)';
  if (rec.scores.refused === 1) return 'refusal with the answer in the pool [F]';
  if ((rec.scores.f1 ?? 0) > 0) return 'partial / granularity [E]';
  return 'wrong reading or assembly [A-D]';
}

/** A seeded sample of failures (metric < threshold) with their class, answers and trace pointer. */
export function failureSample(run: LoadedRun, opts: { n?: number; seed?: string | number; metric?: string; threshold?: number } = {}): Row[] {
  const metric = opts.metric ?? 'f1';
  const failures = run.records
    .filter((r) => r.error || (typeof r.scores[metric] === 'number' && r.scores[metric] < (opts.threshold ?? 0.5)))
    .sort((a, b) => a.id.localeCompare(b.id));
  const picked = makeRng(opts.seed ?? 0)
    .sample(failures, opts.n ?? 20)
    .sort((a, b) => a.id.localeCompare(b.id));
  const rows = picked.map((r) => ({
    id: r.id,
    class: failureClass(r),
    question: r.question,
    gold: Array.isArray(r.gold) ? JSON.stringify(r.gold) : (r.gold ?? ''),
    prediction: r.finalAnswer ?? '',
    [metric]: pct(r.scores[metric]),
    docFound: r.retrieval?.docFound ?? null,
    answerVisible: r.retrieval?.answerVisible ?? null,
    modality: (r.buckets.modality ?? []).join('+'),
    trace: r.trace ? path.join(path.basename(run.dir), r.trace) : '',
  }));
  return drawing<Row[]>(rows, [run]);
}

/** Counts per failure class (of the sample rows). */
export function classCounts(sample: Row[]): Row[] {
  const counts = new Map<string, number>();
  for (const r of sample) counts.set(String(r.class), (counts.get(String(r.class)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([cls, n]) => ({ class: cls, n }));
}

function short(v: unknown, n = 90): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s === undefined ? '' : s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** One question's trace as rows: searches, tool steps, judge, pool, synthesis, checker (model-call details left out). */
export function traceRows(events: TraceEventLike[]): Row[] {
  const rows: Row[] = [];
  for (const e of events) {
    const who = String(e.role ?? e.stage ?? e.by ?? '');
    let what: string;
    switch (e.kind) {
      case 'search':
        what = `search "${short(e.query, 70)}" (${e.mode ?? ''})`;
        break;
      case 'step':
        what = e.step === 'tool' ? `${e.tool}(${short(e.args, 70)})` : `final: ${short(e.thought, 70)}`;
        break;
      case 'judge':
        what = `need_more=${e.needMore}; run ${short(e.toRun, 60)}; ${short(e.reason, 60)}`;
        break;
      case 'pool':
        what = `pool ${short(e.after, 70)}`;
        break;
      case 'synth':
      case 'checker':
        what = `final "${short(e.final, 60)}"`;
        break;
      case 'role-end':
        what = `stop: ${e.stopReason} after ${e.rounds} round(s)`;
        break;
      default:
        continue;
    }
    rows.push({ t: typeof e.t === 'number' ? e.t : null, kind: e.kind, who, what });
  }
  return rows;
}
