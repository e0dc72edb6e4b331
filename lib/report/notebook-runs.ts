/**
 * Runs for notebooks: a list of configurations (a registered pipeline plus
 * config overrides) on the demo world or an experiment file, each run once and
 * reused afterwards. Reuse is the runner's: the run id is
 * `<name>-<subset>-<confighash>`, so the same configuration finds its folder
 * again and only unanswered questions are run (a notebook rerun costs the
 * index open). Runs live in results/runs/ (KF_NB_RUNS moves them), shared by
 * every notebook: notebooks 20, 21 and 27 read the same S4 run.
 *
 * A configuration that does not exist in this checkout (a pipeline not
 * registered yet, an experiment file not written yet) or whose run fails to
 * start is SKIPPED with a printed note (and a line in the manifest): the
 * notebook goes on with what exists.
 *
 * With a question limit, a reused run may hold more questions than asked (a
 * full run earlier): its records are cut to the first N questions of the
 * benchmark, so a table depends only on the parameters, not on history.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../util/paths';
import { errorMessage } from '../util/errors';
import { experimentFromObject, loadExperiment, type ResolvedExperiment } from '../run/config';
import { runExperiment } from '../run/runner';
import { loadRun, summarizeRun, type LoadedRun } from '../run/results';
import { listPipelines } from '../run/registry';
import { compareRuns } from '../run/compare';
import { loadConfiguredBenchmark, selectQuestions } from '../run/questions';
import { demoPresetOverrides } from '../bench/benchmarks/demo';
import { ensureDemoWorld } from '../demo';
import type { Row } from './table';
import { pairedRow } from './notebook-retrieval';
import type { NotebookSession } from './notebook-session';
import { drawing } from './drawn-runs';

export type DemoPreset = 'tiny' | 'default';

/** One configuration a notebook wants a run of. */
export interface Configuration {
  /** Its name in tables and figures ('S4', 'M5', '4+4 #2'). */
  label: string;
  /** Registered pipeline (default: the label). */
  pipeline?: string;
  /** An experiment file (relative to experiments/, or absolute) instead of the demo base; run as written plus overrides. */
  experiment?: string;
  /** A whole experiment object (another benchmark, e.g. { benchmark: { name: 'multihop-rag' }, pipeline: { name: 'S0' } }). */
  config?: Record<string, unknown>;
  /** Config overrides (key.path=value), e.g. caps.locatorRounds=4, seed=1, index.search.mode=dense. */
  overrides?: string[];
  /** Tried in order when this one does not exist here (e.g. pipeline M5VEC, else M5 with index.search.mode=dense). */
  alternatives?: Omit<Configuration, 'label' | 'alternatives'>[];
}

export interface RunConfigurationsOptions {
  /** Demo world size (default KF_NB_PRESET or 'tiny'). */
  preset?: DemoPreset;
  /** First N questions (undefined = all). */
  limit?: number;
  /** Where runs live (default KF_NB_RUNS or results/runs). */
  runsDir?: string;
  log?: (line: string) => void;
}

export function notebookRunsDir(): string {
  return path.resolve(process.env.KF_NB_RUNS || path.join(repoRoot(), 'results', 'runs'));
}

/** The preset of headless runs: KF_NB_PRESET, default tiny. */
export function notebookPreset(): DemoPreset {
  return process.env.KF_NB_PRESET === 'default' ? 'default' : 'tiny';
}

/** A number from the environment (notebook parameters), or the default. */
export function envNumber(name: string, fallback: number | undefined): number | undefined {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  return Number.isFinite(n) ? n : fallback;
}

/** Overrides that point the demo experiments at a preset's world and index. */
export async function demoOverrides(preset: DemoPreset): Promise<{ overrides: string[]; questions: string; corpus: string; indexDir: string }> {
  const world = await ensureDemoWorld({ preset });
  return demoPresetOverrides(preset, world.dir);
}

function safeName(label: string): string {
  return (
    label
      .replace(/\+/g, 'p')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'config'
  );
}

/** The experiment of a configuration, or why it cannot be made (not registered, file missing, bad override). */
export function configurationExperiment(c: Configuration, base: string[]): ResolvedExperiment | string {
  const pipeline = c.pipeline ?? c.label;
  const experimentsDir = path.join(repoRoot(), 'experiments');
  if (c.config) {
    const raw = { name: `nb-${safeName(c.label)}`, ...c.config };
    try {
      return experimentFromObject(raw, { overrides: c.overrides ?? [] });
    } catch (e) {
      return errorMessage(e);
    }
  }
  if (c.experiment) {
    const file = path.isAbsolute(c.experiment)
      ? c.experiment
      : path.join(experimentsDir, c.experiment.endsWith('.toml') ? c.experiment : `${c.experiment}.toml`);
    if (!fs.existsSync(file)) return `experiment file ${path.relative(repoRoot(), file)} does not exist in this checkout`;
    try {
      return loadExperiment(file, { overrides: c.overrides ?? [] });
    } catch (e) {
      return errorMessage(e);
    }
  }
  const registered = listPipelines().map((p) => p.name);
  if (!registered.includes(pipeline)) return `pipeline ${pipeline} is not registered in this checkout (registered: ${registered.join(', ')})`;
  // A demo experiment of that pipeline when one exists (it may carry settings), else the S4 one with the pipeline swapped.
  const own = path.join(experimentsDir, 'demo', `${pipeline}.toml`);
  const file = fs.existsSync(own) ? own : path.join(experimentsDir, 'demo', 'S4.toml');
  // Named by the pipeline, not the label: the same configuration under two labels (two notebooks) is one run.
  const overrides = [...base, `name=nb-${safeName(pipeline)}`, `pipeline.name=${pipeline}`, ...(c.overrides ?? [])];
  try {
    return loadExperiment(file, { overrides });
  } catch (e) {
    return errorMessage(e);
  }
}

/** A run restricted to the given question ids (records only; the manifest stays). */
export function restrictRun(run: LoadedRun, ids: ReadonlySet<string> | undefined): LoadedRun {
  if (!ids) return run;
  return { ...run, records: run.records.filter((r) => ids.has(r.id)) };
}

/** The ids of the first `limit` questions of an experiment's benchmark (undefined = no limit). */
function firstIds(exp: ResolvedExperiment, limit: number | undefined): Set<string> | undefined {
  if (limit === undefined) return undefined;
  const { data } = loadConfiguredBenchmark(exp.config);
  return new Set(selectQuestions(data, { ...exp.config, limits: { ...exp.config.limits, maxQuestions: limit } }).questions.map((q) => q.id));
}

/**
 * Run (or reuse) every configuration; returns label -> run for those that exist.
 * Each run is registered with the session (manifest: run ids, backend, models).
 */
export async function runConfigurations(nb: NotebookSession, configs: Configuration[], opts: RunConfigurationsOptions = {}): Promise<Map<string, LoadedRun>> {
  const preset = opts.preset ?? notebookPreset();
  const runsDir = opts.runsDir ?? notebookRunsDir();
  const log = opts.log ?? (() => {});
  const needsDemo = configs.some((c) => !c.experiment);
  const demo = needsDemo ? await demoOverrides(preset) : undefined;
  const base = demo && preset !== 'default' ? demo.overrides : [];
  if (opts.limit !== undefined) base.push(`limits.maxQuestions=${opts.limit}`);
  const out = new Map<string, LoadedRun>();
  for (const c of configs) {
    const tries = [c, ...(c.alternatives ?? []).map((a) => ({ ...a, label: c.label }))];
    const why: string[] = [];
    let exp: ResolvedExperiment | undefined;
    for (const [i, t] of tries.entries()) {
      const made = configurationExperiment(t, t.experiment || t.config ? [] : base);
      if (typeof made !== 'string') {
        exp = made;
        // A stand-in never passes under the label unnamed: the notebook says what ran instead, and why.
        if (i > 0)
          nb.say(
            `**${c.label} ran as a stand-in:** ${t.pipeline ?? t.experiment ?? 'another configuration'}${t.overrides?.length ? ` with ${t.overrides.join(', ')}` : ''} (${why.join('; ')})`,
          );
        break;
      }
      why.push(made);
    }
    if (!exp) {
      nb.skip(`configuration ${c.label}`, why.join('; '));
      continue;
    }
    if (opts.limit !== undefined) exp.config.limits.maxQuestions = opts.limit;
    try {
      const outcome = await runExperiment({ experiment: exp, resultsDir: runsDir, log });
      const run = restrictRun(loadRun(outcome.dir), firstIds(exp, opts.limit));
      if (outcome.status !== 'completed')
        nb.skip(`part of ${c.label}`, `run ${outcome.runId} is ${outcome.status}; its ${run.records.length} recorded question(s) are shown`);
      out.set(c.label, run);
      nb.useRun(c.label, run);
      console.log(
        `${c.label}: ${outcome.runId} (${outcome.resumedWith ? `reused ${outcome.resumedWith}` : 'new'}, ${outcome.recordedNow} answered now, ${run.records.length} shown)`,
      );
    } catch (e) {
      nb.skip(`configuration ${c.label}`, `its run failed to start: ${errorMessage(e)}`);
    }
  }
  return out;
}

const pct = (x: number | undefined): number | null => (x === undefined || !Number.isFinite(x) ? null : Math.round(x * 1000) / 10);

/** One row per run: answer metrics, first-search recall, all-search recall, usage, time (x100 where a share). */
export function summaryRows(runs: Map<string, LoadedRun>, opts: { metrics?: string[]; recall?: string[] } = {}): Row[] {
  const summaries = [...runs].map(([label, run]) => ({ label, run, s: summarizeRun(run) }));
  // The same columns in the same order for every row (a closed-book run has no recall: its cells are empty).
  const metrics = (opts.metrics ?? ['em', 'f1', 'acc']).filter((m) => summaries.some((x) => m in x.s.scores));
  const recall = (opts.recall ?? ['R@1', 'R@3', 'R@8', 'R@all', 'docFound', 'answerVisible']).filter((k) => summaries.some((x) => k in x.s.retrieval));
  const rows = summaries.map(({ label, run, s }) => {
    const row: Row = { config: label, run: run.runId, n: s.n, errors: s.errors };
    for (const m of metrics) row[m] = m in s.scores ? pct(s.scores[m]) : null;
    for (const k of recall) row[k] = k in s.retrieval ? pct(s.retrieval[k]) : null;
    row.callsPerQ = Math.round(s.perQuestion.calls * 100) / 100;
    row.tokensPerQ = Math.round(s.perQuestion.promptTokens + s.perQuestion.completionTokens);
    row.backend = s.backend;
    // The retriever variant that ranked (DualG: scorer, checkpoint id, preset, size), when the run reports one.
    const sys = run.manifest?.pipeline.system?.label ?? run.records.find((r) => r.system)?.system?.label;
    if (sys || summaries.some((x) => x.run.manifest?.pipeline.system || x.run.records.some((r) => r.system))) row.system = sys ?? null;
    return row;
  });
  return drawing(rows, runs);
}

export interface PairOptions {
  metric?: string;
  margin?: number;
  seed?: string | number;
  resamples?: number;
}

/**
 * Paired comparisons (kf compare's statistics) of [A, B] label pairs: mean
 * difference, 95% paired bootstrap CI, flips won:lost:tied, exact sign test.
 * Pairs naming a run that is missing (skipped) are left out.
 */
export function pairedRows(runs: Map<string, LoadedRun>, pairs: [string, string][], opts: PairOptions = {}): Row[] {
  const metric = opts.metric ?? 'f1';
  const rows: Row[] = [];
  const drawn = new Set<LoadedRun>();
  for (const [a, b] of pairs) {
    const ra = runs.get(a),
      rb = runs.get(b);
    if (!ra || !rb) continue;
    drawn.add(ra).add(rb);
    try {
      const c = compareRuns(ra, rb, { metric, margin: opts.margin ?? 0, seed: opts.seed ?? 0, resamples: opts.resamples ?? 2000 });
      rows.push({ ...pairedRow(a, b, metric, c), se: pct(c.se), warnings: c.warnings.filter((w) => !/offline results/.test(w)).join('; ') });
    } catch (e) {
      rows.push({ A: a, B: b, metric, warnings: errorMessage(e) });
    }
  }
  return drawing(rows, drawn);
}

/** Every pair of the given labels against a reference label (A = each other run, B = ref). */
export function pairsAgainst(runs: Map<string, LoadedRun>, ref: string): [string, string][] {
  return [...runs.keys()].filter((l) => l !== ref).map((l) => [l, ref] as [string, string]);
}
