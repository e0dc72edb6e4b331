/**
 * The run manifest, `results/<run-id>/manifest.json`: everything needed to
 * know what produced the records beside it (resolved config and its hash,
 * seed, git commit, model id and backend per stage, benchmark files, ledger
 * totals, counts, sessions). Rewritten atomically at start, at checkpoints and
 * at the end, so a reader never sees half of it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EndpointTotals, LedgerTotals } from '../models/ledger';
import type { StageRoute } from '../models/router';
import { OFFLINE_NOTE, resultManifest, type ResultManifest } from './result-manifest';
import { KfError } from '../util/errors';
import { writeJsonAtomic } from '../util/fsx';
import type { ExperimentConfig } from './config';
import type { IndexInfo } from './index-provider';
import type { RunIdentity } from './run-identity';
import type { Departure } from './departures';

export const MANIFEST_KIND = 'kf-run';

export type RunStatus = 'running' | 'completed' | 'interrupted' | 'max-errors' | 'failed';

export interface RunSession {
  startedAt: string;
  endedAt?: string;
  pid: number;
  status: RunStatus;
  /** Questions this session recorded (answered or failed). */
  recorded: number;
  errors: number;
  /** Records already present when it started (a resume). */
  resumedWith: number;
}

export interface RunCounts {
  /** Questions selected by this invocation (subset, sample, limit). */
  selected: number;
  /** Records in records.jsonl (unique ids). */
  recorded: number;
  /** Records that carry an error. */
  errors: number;
  /** The errors by kind: model_output, transport, timeout, other (lib/run/error-kind.ts). */
  errorsByKind?: Record<'model_output' | 'transport' | 'timeout' | 'other', number>;
  /** Of the errors, the replies cut by the endpoint's token limit (reason `length`, kind model_output): never scored. */
  cutReplies?: number;
  /** Selected questions without a record. */
  remaining: number;
  /** Records whose id is not in the current selection (an earlier, larger selection). */
  outsideSelection: number;
}

export interface RunManifest {
  kind: typeof MANIFEST_KIND;
  version: 1;
  runId: string;
  status: RunStatus;
  statusDetail?: string;
  experiment: { name: string; description?: string; file?: string; files: string[]; overrides: string[] };
  config: ExperimentConfig;
  configHash: string;
  seed: string | number;
  /** offline | openai | scripted | mixed: what answered (offline results are never model results). */
  backend: string;
  backendNote?: string;
  /** Who made it: harness version, git commit (+ dirty), node, host, platform. */
  stamp: Pick<ResultManifest, 'harness' | 'git' | 'node' | 'hostname' | 'platform'>;
  pipeline: {
    name: string;
    description: string;
    promptPack?: { name: string; sha256: string };
    /** The retriever variant that ranked (first record that reports one: DualG scorer, checkpoint id, preset, size). */
    system?: { label: string; [fact: string]: unknown };
    /** Labels of other variants some records report (a checkpoint retrained between sessions): the run mixes systems. */
    otherSystems?: string[];
  };
  /** Per-stage route: backend, model id, base URL (never a key). */
  models: StageRoute[];
  /** What the run is beyond its config (model per stage, prompt pack, embedder, index build): a resume with any changed is refused. */
  identity?: RunIdentity;
  /** Departures from the paper: stand-ins, fallbacks and variants, with counts (lib/run/departures.ts). */
  departures?: Departure[];
  benchmark: {
    name: string;
    split: string;
    subset: string;
    /** Absolute paths of the files the loader read. */
    files: Record<string, string>;
    questionsLoaded: number;
    /** Ids of the subset list absent from the loaded questions (held-back ids), count and first few. */
    missingIds: number;
    missingIdsSample: string[];
    sample?: { n: number; by?: string; seed: string | number; strata: Record<string, { size: number; taken: number }> };
    /** What the run says once about scoring this data (BenchmarkData.notes, e.g. why page recall does not apply). */
    notes?: string[];
  };
  startedAt: string;
  updatedAt: string;
  endedAt?: string;
  sessions: RunSession[];
  counts: RunCounts;
  /** Model usage summed over every record of the run (all sessions). */
  usage: LedgerTotals;
  /** This session's ledger aggregates (per stage, model, backend; HTTP attempts per endpoint, URLs without credentials). */
  ledger?: {
    totals: LedgerTotals;
    byStage: Record<string, LedgerTotals>;
    byModel: Record<string, LedgerTotals>;
    byBackend: Record<string, LedgerTotals>;
    byEndpoint?: Record<string, EndpointTotals>;
  };
  /** Median/p90 seconds per question (recorded questions without error). */
  timing: { p50Ms: number | null; p90Ms: number | null };
  /** The command that resumes (or reproduces) this run. */
  resume: string;
  /** The index the questions searched (absent without an index section or with an injected provider). */
  index?: IndexInfo;
}

export function manifestFileOf(runDir: string): string {
  return path.join(runDir, 'manifest.json');
}

export function stampNow(): RunManifest['stamp'] {
  const m = resultManifest();
  return { harness: m.harness, git: m.git, node: m.node, hostname: m.hostname, platform: m.platform };
}

export function backendNoteFor(backend: string): string | undefined {
  if (backend === 'offline') return OFFLINE_NOTE;
  if (backend === 'mixed') return 'mixed backends: some stages offline (not model results)';
  if (backend === 'scripted') return 'scripted backend: test replies, not model results';
  return undefined;
}

export function writeRunManifest(runDir: string, m: RunManifest): void {
  writeJsonAtomic(manifestFileOf(runDir), m);
}

/** Read a run manifest; undefined when the run has none yet. */
export function readRunManifest(runDir: string): RunManifest | undefined {
  const file = manifestFileOf(runDir);
  if (!fs.existsSync(file)) return undefined;
  let m: RunManifest;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as RunManifest;
  } catch (e) {
    throw new KfError(
      'bad_manifest',
      `run manifest ${file} is not valid JSON (${(e as Error).message})`,
      'the records beside it are intact: move the manifest away and rerun with the same --run-id to rebuild it',
      { concerns: file, cause: e },
    );
  }
  if (m?.kind !== MANIFEST_KIND) {
    throw new KfError('bad_manifest', `${file} is not a kf run manifest`, 'point at a folder written by kf run', { concerns: file });
  }
  return m;
}
