/**
 * One `RunRecord` per question: the line the runner appends to
 * `results/<run-id>/records.jsonl`, and what compare/report read back.
 * Reading tolerates what a crash can leave (a cut last line) and never lets
 * a question count twice (the first record of an id wins; later ones are
 * reported as duplicates).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LedgerTotals } from '../models/ledger';
import { fsError, readJsonl, writeFileAtomic } from '../util/fsx';
import { shortHash } from '../util/hash';

export const RECORD_VERSION = 1;

export interface RecordError {
  /** Short code: timeout, model_output, model_call_failed, pipeline_failed, score_failed, no_index, bad_pipeline_result, or a KfError code. */
  code: string;
  /** model_output | transport | timeout | other (lib/run/error-kind.ts); absent in records of older versions. */
  kind?: 'model_output' | 'transport' | 'timeout' | 'other';
  message: string;
  /** The stage whose call or reply failed (model_output, transport). */
  stage?: string;
  /** model_output: the reply as received, cut to a few hundred characters. */
  received?: string;
  /** model_output: why the reply was refused: `length` (cut by the token limit), empty, unparseable, no_final_answer, truncated. */
  reason?: string;
  /** The endpoint refused the setup (401/403 key, 404 model or path, no server): the run stops at the first one. */
  setup?: true;
}

export interface RecordTimings {
  startedAt: string;
  /** Whole question (index open + pipeline + scoring). */
  totalMs: number;
  indexMs: number;
  pipelineMs: number;
  scoreMs: number;
  /** Time inside retriever.search calls, and how many were made. */
  searchMs: number;
  searches: number;
}

export interface RetrievalStats {
  searches: number;
  hits: number;
  /** Documents of the first search's hits, in rank order. */
  firstSearchDocs: string[];
  poolChars?: number;
  poolTrimmed?: boolean;
}

export interface RunRecord {
  v: typeof RECORD_VERSION;
  id: string;
  runId: string;
  /** Hash of the result-affecting config (the manifest holds the config itself). */
  configHash: string;
  benchmark: string;
  pipeline: string;
  /** The prompt pack the pipeline sent (name and sha256), when it declares one. */
  promptPack?: { name: string; sha256: string };
  /** Where this question's answers came from: offline | openai | scripted | mixed (several) | none (no model call). */
  backend: string;
  /** Model ids that answered this question's calls. */
  models: string[];
  /** The question's seed: `${seed}/${id}`. */
  seed: string;
  question: string;
  gold: string | string[] | null;
  altAnswers?: string[];
  /** Full answer text (null on error). */
  prediction: string | null;
  /** Value of the last FINAL ANSWER line: what is scored (null on error). */
  finalAnswer: string | null;
  /** Answer scores (em, f1, acc, ... in 0..1); empty on error. */
  scores: Record<string, number>;
  /** Model-free recall metrics (R@k, R@all, docFound, answerVisible); null without gold documents or retrieval. */
  retrieval: Record<string, number> | null;
  retrievalStats?: RetrievalStats;
  /** Pipeline usage counters (searches, reads, rounds...). */
  counters: Record<string, number>;
  /** This question's model usage from the ledger. */
  usage: LedgerTotals;
  timings: RecordTimings;
  /** Question field values for --by (modality, hops, type, format, page, source, answerable + output.buckets). */
  buckets: Record<string, string[]>;
  /** Relative path of the trace (`traces/<file>.json`, or `traces.jsonl#<id>`); null when traces are off. */
  trace: string | null;
  error: RecordError | null;
  /** Which retriever variant ranked the evidence (PipelineResult.system: DualG scorer, checkpoint id, preset, size). */
  system?: { label: string; [fact: string]: unknown };
  /** Departures from the paper on this question (PipelineResult.departures); absent when none. */
  departures?: string[];
  /** Judge extraction (MMLongBench-Doc with scoring.judge). */
  extraction?: { pred: string; failed: boolean; [k: string]: unknown };
}

/** A file name for a question's trace: the id when it is safe, else a cleaned id plus a hash (ids may hold '/', spaces...). */
export function traceFileName(id: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$/.test(id)) return `${id}.json`;
  const clean = id
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(0, 60);
  return `${clean || 'q'}-${shortHash(id, 10)}.json`;
}

export interface RecordsFile {
  /** Unique by id, first occurrence kept, file order. */
  records: RunRecord[];
  /** Lines that did not parse (a crash cut them). */
  badLines: number;
  /** Ids that appeared more than once (should never happen; reported, not hidden). */
  duplicates: string[];
}

export function readRecords(file: string): RecordsFile {
  const { records: raw, badLines } = readJsonl<RunRecord>(file);
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const records: RunRecord[] = [];
  let malformed = 0;
  for (const r of raw) {
    if (!r || typeof r !== 'object' || typeof r.id !== 'string') {
      malformed++;
      continue;
    }
    if (seen.has(r.id)) {
      duplicates.push(r.id);
      continue;
    }
    seen.add(r.id);
    records.push(r);
  }
  return { records, badLines: badLines + malformed, duplicates };
}

/**
 * Copy a records file aside (records.jsonl.<time>.bak) before a rewrite drops
 * lines from it: an unreadable line in the middle is damage, not a crash cut,
 * and may be worth repairing by hand. Returns the copy's path.
 */
export function keepRecordsCopy(file: string): string {
  const copy = `${file}.${new Date().toISOString().replace(/[:.]/g, '-')}.bak`;
  try {
    fs.copyFileSync(file, copy, fs.constants.COPYFILE_EXCL);
  } catch (e) {
    throw fsError(e, copy, 'keep a copy of the records as');
  }
  return copy;
}

/** Rewrite a records file atomically with exactly these records (resume compaction). */
export function rewriteRecords(file: string, records: readonly RunRecord[]): void {
  writeFileAtomic(file, records.map((r) => JSON.stringify(r)).join('\n') + (records.length ? '\n' : ''));
}

export function recordsFileOf(runDir: string): string {
  return path.join(runDir, 'records.jsonl');
}
