/**
 * A suite: several experiments run one after another, then compared and
 * reported together. It is what a paper table is: configurations -> records ->
 * scores -> paired comparisons -> tables and figures, in one folder:
 *
 *   results/<suite>/
 *     runs/<run-id>/         records.jsonl, manifest.json, traces (one per experiment)
 *     tables/                runs, paired, usage, by-<field>, retrieval-by-<field> (CSV + Markdown)
 *     comparisons.{json,csv,md}  every declared pair: diff, bootstrap CI, sign test, flips, se (+ per bucket in JSON)
 *     figures/               <metric> by configuration with 95% CIs, paired differences, by bucket, recall
 *     SUMMARY.md             the headline table and where everything is
 *     manifest.json          suite file, git commit, backend, every file written (sha256)
 *
 * Suite file (TOML or JSON), e.g. experiments/suites/demo-one-shot.toml:
 *   name = "demo-one-shot"; experiments = ["../demo/S0.toml", ...]
 *   reference = "demo-S0"; metric = "f1"; margin = 0; by = ["modality", "hops"]
 *   pairs = [["demo-S3", "demo-S0"], ...]     # A vs B, by experiment name
 * Reruns resume: run ids are the runner's defaults (name-subset-confighash),
 * so an unchanged experiment is skipped question by question.
 */
import { departureCaption, departureNotes, departureText } from '../run/departures';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KfError } from '../util/errors';
import { ensureWritableDir, writeFileAtomic, writeJsonAtomic } from '../util/fsx';
import { repoRoot } from '../util/paths';
import { pairedBootstrapCI, mean } from '../eval/stats';
import { barFigure, writeFigure, closeSharedExporter, type FigurePaths, type Series } from './figure';
import { writeTable, toMarkdown, type Row } from './table';
import { OFFLINE_NOTE, resultManifest, writeManifest } from '../run/result-manifest';
import { loadExperiment } from '../run/config';
import { runExperiment, type RunOutcome } from '../run/runner';
import { loadRun, metricValues, summarizeRun, bucketsOf, type LoadedRun } from '../run/results';
import { compareRuns, type CompareResult } from '../run/compare';
import { writeRunReport } from './run-report';
import { backendLabel } from '../run/aggregate';

// smol-toml's type declarations are ESM-only; its CommonJS build is required with a local type (as in config.ts).

const { parse: parseToml } = require('smol-toml') as { parse(text: string): unknown };

export interface SuiteSpec {
  name: string;
  description?: string;
  /** Experiment files, relative to the suite file. */
  experiments: string[];
  /** Experiment name every other run is compared against in the tables (default: the first). */
  reference?: string;
  metric?: string;
  margin?: number;
  /** Bucket fields for per-bucket tables, comparisons and a figure. */
  by?: string[];
  /** Declared comparisons [A, B] by experiment name (default: every run vs the reference). */
  pairs?: [string, string][];
  /** Bootstrap resamples and seed of the comparisons. */
  resamples?: number;
  seed?: string | number;
}

export interface SuiteOptions {
  /** Config overrides applied to every experiment (key.path=value). */
  overrides?: string[];
  /** Results folder of the suite (default results/<suite name>). */
  out?: string;
  /** Only the first N questions of each experiment (limits.maxQuestions). */
  limit?: number;
  concurrency?: number;
  /** Skip figures' PNG/SVG (HTML only) */
  formats?: ('html' | 'png' | 'svg')[];
  log?: (line: string) => void;
  stopSignal?: AbortSignal;
}

export interface SuiteResult {
  name: string;
  dir: string;
  runs: { experiment: string; runId: string; dir: string; status: RunOutcome['status'] }[];
  metric: string;
  backend: string;
  comparisons: CompareResult[];
  tables: Record<string, { csv: string; md: string }>;
  figures: Record<string, FigurePaths>;
  summary: string;
  manifest: string;
  /** Runs that did not complete (interrupted / max-errors / failed). */
  incomplete: string[];
}

const SUITE_KEYS = new Set(['name', 'description', 'experiments', 'reference', 'metric', 'margin', 'by', 'pairs', 'resamples', 'seed']);

/** Read and validate a suite file; every error names the file and the field. */
export function loadSuite(file: string): { spec: SuiteSpec; file: string; experimentFiles: string[] } {
  const abs = path.resolve(file);
  if (!fs.existsSync(abs))
    throw new KfError('suite_missing', `suite file ${abs} does not exist`, 'pass a suite file (see experiments/suites/)', { concerns: abs });
  let raw: Record<string, unknown>;
  try {
    const text = fs.readFileSync(abs, 'utf8');
    raw = (abs.endsWith('.json') ? JSON.parse(text) : parseToml(text)) as Record<string, unknown>;
  } catch (e) {
    throw new KfError('bad_suite', `suite file ${abs} does not parse: ${(e as Error).message.split('\n')[0]}`, 'fix the TOML/JSON syntax', {
      concerns: abs,
      cause: e,
    });
  }
  const where = (f: string) => `${path.basename(abs)}: field "${f}"`;
  for (const k of Object.keys(raw)) {
    if (!SUITE_KEYS.has(k)) throw new KfError('bad_suite', `${where(k)} is not a suite field`, `use only: ${[...SUITE_KEYS].join(', ')}`, { concerns: abs });
  }
  const str = (k: string, required = false): string | undefined => {
    const v = raw[k];
    if (v === undefined) {
      if (required) throw new KfError('bad_suite', `${where(k)} is required`, `add ${k} = "..."`, { concerns: abs });
      return undefined;
    }
    if (typeof v !== 'string' || !v) throw new KfError('bad_suite', `${where(k)} must be a non-empty string`, `write ${k} = "..."`, { concerns: abs });
    return v;
  };
  const list = (k: string): string[] | undefined => {
    const v = raw[k];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'string'))
      throw new KfError('bad_suite', `${where(k)} must be a list of strings`, `write ${k} = ["a", "b"]`, { concerns: abs });
    return v as string[];
  };
  const experiments = list('experiments');
  if (!experiments?.length)
    throw new KfError('bad_suite', `${where('experiments')} must list at least one experiment file`, 'write experiments = ["../demo/S0.toml", ...]', {
      concerns: abs,
    });
  const experimentFiles = experiments.map((e) => {
    const p = path.resolve(path.dirname(abs), e);
    if (!fs.existsSync(p))
      throw new KfError('bad_suite', `${where('experiments')}: ${e} does not exist (resolved to ${p})`, 'paths are relative to the suite file', {
        concerns: abs,
      });
    return p;
  });
  const pairs = raw.pairs;
  if (pairs !== undefined && (!Array.isArray(pairs) || pairs.some((p) => !Array.isArray(p) || p.length !== 2 || p.some((x) => typeof x !== 'string')))) {
    throw new KfError('bad_suite', `${where('pairs')} must be a list of [A, B] experiment-name pairs`, 'write pairs = [["demo-S3", "demo-S0"]]', {
      concerns: abs,
    });
  }
  const num = (k: string): number | undefined => {
    const v = raw[k];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new KfError('bad_suite', `${where(k)} must be a non-negative number`, `write ${k} = 0`, { concerns: abs });
    return v;
  };
  const seed = raw.seed;
  if (seed !== undefined && typeof seed !== 'string' && typeof seed !== 'number')
    throw new KfError('bad_suite', `${where('seed')} must be a string or a number`, 'write seed = 0', { concerns: abs });
  const spec: SuiteSpec = {
    name: str('name', true) as string,
    description: str('description'),
    experiments,
    reference: str('reference'),
    metric: str('metric'),
    margin: num('margin'),
    by: list('by'),
    pairs: pairs as [string, string][] | undefined,
    resamples: num('resamples'),
    seed: seed as string | number | undefined,
  };
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(spec.name))
    throw new KfError('bad_suite', `${where('name')} "${spec.name}" is not a plain folder name`, 'use letters, digits, ".", "_", "+" and "-"', {
      concerns: abs,
    });
  return { spec, file: abs, experimentFiles };
}

function pct(x: number): number {
  return x * 100;
}

/** What the steps of a suite share once its runs are loaded. */
interface SuiteContext {
  spec: SuiteSpec;
  dir: string;
  byName: Map<string, LoadedRun>;
  runs: LoadedRun[];
  names: string[];
  summaries: ReturnType<typeof summarizeRun>[];
  metric: string;
  margin: number;
  by: string[];
  note?: string;
  log: (line: string) => void;
}

/** 1. Runs (sequential: each already answers `concurrency` questions at once). */
async function runExperiments(
  spec: SuiteSpec,
  experimentFiles: string[],
  runsDir: string,
  overrides: string[],
  opts: SuiteOptions,
  log: (line: string) => void,
) {
  const outcomes: SuiteResult['runs'] = [];
  const byName = new Map<string, LoadedRun>();
  for (const f of experimentFiles) {
    if (opts.stopSignal?.aborted) break;
    const exp = loadExperiment(f, { overrides });
    log(`suite ${spec.name}: ${exp.config.name} (${exp.config.pipeline.name}) ...`);
    const outcome = await runExperiment({ experiment: exp, resultsDir: runsDir, stopSignal: opts.stopSignal, log });
    outcomes.push({ experiment: exp.config.name, runId: outcome.runId, dir: outcome.dir, status: outcome.status });
    byName.set(exp.config.name, loadRun(outcome.dir));
  }
  if (!byName.size)
    throw new KfError('suite_empty', `suite ${spec.name} ran no experiment`, 'check the experiments list (or the run was interrupted before the first)');
  return { outcomes, byName };
}

/** 3. Declared comparisons (default: every run vs the reference), as statistics, rows and a table. */
function comparePairs(c: SuiteContext, ref: LoadedRun, refName: string) {
  const { spec, byName, runs, metric, margin, by } = c;
  const seed = spec.seed ?? 0;
  const resamples = spec.resamples ?? 2000;
  const pairs = spec.pairs ?? runs.filter((r) => r !== ref).map((r) => [nameOf(byName, r), refName] as [string, string]);
  const comparisons: CompareResult[] = [];
  const pairRows: Row[] = [];
  for (const [a, b] of pairs) {
    const ra = byName.get(a),
      rb = byName.get(b);
    if (!ra || !rb)
      throw new KfError(
        'bad_suite',
        `suite ${spec.name}: pair [${a}, ${b}] names an experiment that is not in the suite`,
        `use names from: ${[...byName.keys()].join(', ')}`,
      );
    const cmp = compareRuns(ra, rb, { metric, margin, seed, resamples });
    const byBucket: Record<string, unknown> = {};
    for (const field of by) byBucket[field] = compareRuns(ra, rb, { metric, margin, seed, resamples, by: field }).byBucket;
    comparisons.push({ ...cmp, ...(by.length ? { byBucketFields: byBucket } : {}) } as CompareResult);
    for (const w of cmp.warnings) c.log(`WARNING ${a} vs ${b}: ${w}`);
    pairRows.push({
      A: a,
      B: b,
      n: cmp.n,
      meanA: pct(cmp.meanA),
      meanB: pct(cmp.meanB),
      diff: pct(cmp.diff),
      ci: `[${pct(cmp.bootstrapCI[0]).toFixed(1)}, ${pct(cmp.bootstrapCI[1]).toFixed(1)}]`,
      wonLostTied: `${cmp.won}:${cmp.lost}:${cmp.tied}`,
      signTestP: cmp.signTestP,
      se: pct(cmp.se),
      warnings: cmp.warnings.join('; '),
    });
  }
  writeJsonAtomic(path.join(c.dir, 'comparisons.json'), { metric, margin, resamples, seed, comparisons });
  const compTable = writeTable(pairRows, {
    dir: c.dir,
    name: 'comparisons',
    columns: [
      { key: 'A' },
      { key: 'B' },
      { key: 'n' },
      { key: 'meanA', label: `${metric} A` },
      { key: 'meanB', label: `${metric} B` },
      { key: 'diff', label: 'A-B' },
      { key: 'ci', label: '95% paired bootstrap CI' },
      { key: 'wonLostTied', label: 'won:lost:tied' },
      { key: 'signTestP', label: 'sign test p', format: (v) => (typeof v === 'number' ? v.toPrecision(3) : String(v)) },
      { key: 'se', label: 'paired se' },
      { key: 'warnings' },
    ],
    decimals: 1,
    caption: `Paired comparisons on ${metric} (x100; margin ${margin}; two-sided exact sign test on won:lost; ${resamples} bootstrap resamples, seed ${seed}).`,
    notes: [...(c.note ? [c.note] : []), ...departureNotes(c.runs, c.names)],
  });
  return { comparisons, pairRows, compTable };
}

/** The metric by bucket of the first `by` field, one series per run, with n and a 95% bootstrap interval per bar. */
function bucketSeries(c: SuiteContext, field: string): { buckets: string[]; series: Series[] } {
  const bucketSets = c.runs.map((r) => {
    const f = bucketsOf(r, field);
    return [...metricValues(r, c.metric).values].map(([id, v]) => ({ b: f(id), v }));
  });
  const buckets = [...new Set(bucketSets.flatMap((s) => s.flatMap((x) => x.b)))].sort();
  const series: Series[] = c.runs.map((_, i) => {
    const per = buckets.map((bk) => bucketSets[i].filter((x) => x.b.includes(bk)).map((x) => x.v));
    const cis = per.map((xs, j) =>
      xs.length ? pairedBootstrapCI(xs, { seed: `${c.spec.seed ?? 0}/${c.names[i]}/${buckets[j]}`, resamples: c.spec.resamples ?? 2000 }) : null,
    );
    return {
      name: c.names[i],
      values: per.map((xs) => (xs.length ? pct(mean(xs)) : null)),
      lo: cis.map((x) => (x ? pct(x[0]) : null)),
      hi: cis.map((x) => (x ? pct(x[1]) : null)),
      n: per.map((xs) => (xs.length ? xs.length : null)),
    };
  });
  return { buckets, series };
}

/** 4. Figures: the metric by configuration, the paired differences, by bucket, retrieval. */
async function suiteFigures(c: SuiteContext, comparisons: CompareResult[], formats: SuiteOptions['formats']): Promise<Record<string, FigurePaths>> {
  const { spec, runs, names, metric } = c;
  // Every figure's caption names the runs' departures from the paper beside the backend label.
  const note = [c.note, departureCaption(runs)].filter(Boolean).join(' · ') || undefined;
  const out = { dir: path.join(c.dir, 'figures'), formats: formats ?? ['html', 'png', 'svg'] };
  const figures: Record<string, FigurePaths> = {};
  const seed = spec.seed ?? 0;
  try {
    const values = runs.map((r) => [...metricValues(r, metric).values.values()]);
    const cis = values.map((vs, i) => (vs.length ? pairedBootstrapCI(vs, { seed: `${seed}/${names[i]}`, resamples: spec.resamples ?? 2000 }) : [NaN, NaN]));
    figures.byConfig = await writeFigure(
      barFigure({
        categories: names,
        series: [{ name: metric, values: values.map((v) => (v.length ? pct(mean(v)) : null)), lo: cis.map((x) => pct(x[0])), hi: cis.map((x) => pct(x[1])) }],
        title: `${spec.name}: ${metric} by configuration (95% bootstrap CI)`,
        yTitle: `${metric} x100`,
        note,
      }),
      { ...out, name: `${metric}-by-config` },
    );
    if (comparisons.length) {
      figures.paired = await writeFigure(
        barFigure({
          categories: comparisons.map((x) => `${nameOf(c.byName, byRunId(runs, x.runA))} - ${nameOf(c.byName, byRunId(runs, x.runB))}`),
          series: [
            {
              name: 'A-B',
              values: comparisons.map((x) => pct(x.diff)),
              lo: comparisons.map((x) => pct(x.bootstrapCI[0])),
              hi: comparisons.map((x) => pct(x.bootstrapCI[1])),
            },
          ],
          title: `${spec.name}: paired differences in ${metric} (95% paired bootstrap CI)`,
          yTitle: `difference x100`,
          note,
        }),
        { ...out, name: `${metric}-paired-differences` },
      );
    }
    if (c.by.length) {
      const { buckets, series } = bucketSeries(c, c.by[0]);
      figures.byBucket = await writeFigure(
        barFigure({
          categories: buckets,
          series,
          bucket: true,
          title: `${spec.name}: ${metric} by ${c.by[0]} (n per bucket, 95% bootstrap CI)`,
          xTitle: c.by[0],
          yTitle: `${metric} x100`,
          note,
        }),
        { ...out, name: `${metric}-by-${c.by[0]}` },
      );
    }
    const recallKeys = ['R@1', 'R@3', 'R@8', 'R@all', 'docFound', 'answerVisible'].filter((k) => c.summaries.some((s) => k in s.retrieval));
    // Every run is passed, also those without retrieval (closed book): the figure names them in its caption.
    if (recallKeys.length) {
      figures.recall = await writeFigure(
        barFigure({
          categories: recallKeys,
          series: c.summaries.map((s, i) => ({ name: names[i], values: recallKeys.map((k) => (k in s.retrieval ? pct(s.retrieval[k]) : null)) })),
          title: `${spec.name}: retrieval (first search R@k; all searches R@all, doc found, answer visible)`,
          yTitle: '% of questions with gold',
          note,
        }),
        { ...out, name: 'retrieval' },
      );
    }
  } finally {
    await closeSharedExporter();
  }
  return figures;
}

/** Every run's departures from the paper (stand-ins, fallbacks, variants, with counts), as its manifest lists them. */
function departuresSection(c: SuiteContext): string[] {
  const lines = c.runs.flatMap((r, i) => {
    const deps = r.manifest?.departures ?? [];
    return deps.length ? [`- **${c.names[i]}**: ${deps.map(departureText).join('; ')}`] : [];
  });
  if (!lines.length) return [];
  return [
    '## Departures from the paper',
    '',
    "What each run used in place of the paper's method (stand-ins, fallbacks, variants; from its manifest):",
    '',
    ...lines,
    '',
  ];
}

/** 5. SUMMARY.md: the headline table and where everything is. */
function summaryMarkdown(
  c: SuiteContext,
  x: {
    backend: string;
    refName: string;
    pairRows: Row[];
    outcomes: SuiteResult['runs'];
    tables: string[];
    figures: Record<string, FigurePaths>;
    incomplete: string[];
  },
): string {
  const headline: Row[] = c.summaries.map((s, i) => {
    const row: Row = { config: c.names[i], pipeline: s.pipeline, n: s.n, errors: s.errors };
    // Replies cut by the token limit are errors, never scored: counted in their own column when any run has one.
    if (c.summaries.some((x) => x.cutReplies)) row['cut replies'] = s.cutReplies;
    for (const k of ['em', 'f1', 'acc']) if (k in s.scores) row[k] = pct(s.scores[k]);
    for (const k of ['R@1', 'R@8', 'docFound', 'answerVisible']) if (k in s.retrieval) row[k] = pct(s.retrieval[k]);
    row.backend = s.backend;
    return row;
  });
  const rel = (p: string | undefined) => (p ? path.relative(c.dir, p) : '');
  const pValue = (v: unknown) => (typeof v === 'number' ? v.toPrecision(3) : v);
  return [
    `# ${c.spec.name}`,
    '',
    c.spec.description ?? '',
    '',
    c.note
      ? `> **${c.note}.** Numbers from the offline backend (rule-based policies, no model) show that the harness runs end to end; they are not model results.`
      : `> backend: ${x.backend}`,
    '',
    toMarkdown(headline, { decimals: 1, caption: `Headline (${c.metric} and recall x100; reference ${x.refName})` }),
    '',
    toMarkdown(
      x.pairRows.map((r) => ({ A: r.A, B: r.B, n: r.n, diff: r.diff, ci: r.ci, wonLostTied: r.wonLostTied, p: pValue(r.signTestP) })),
      { decimals: 1, caption: 'Paired comparisons (A-B, x100)' },
    ),
    '',
    ...departuresSection(c),
    '## Files',
    `- runs: ${x.outcomes.map((o) => `\`${rel(o.dir)}\``).join(', ')}`,
    `- tables: ${x.tables.map((t) => `\`${rel(t)}\``).join(', ')}`,
    `- comparisons (with per-bucket statistics): \`comparisons.json\``,
    `- figures: ${Object.values(x.figures)
      .flatMap((f) => [f.html, f.png, f.svg])
      .filter(Boolean)
      .map((p) => `\`${rel(p as string)}\``)
      .join(', ')}`,
    x.incomplete.length ? `\n**Incomplete runs:** ${x.incomplete.join(', ')} (rerun the same command to resume).` : '',
    '',
  ].join('\n');
}

/** Run every experiment of a suite, then compare, tabulate and plot. */
export async function runSuite(suiteFile: string, opts: SuiteOptions = {}): Promise<SuiteResult> {
  const { spec, file, experimentFiles } = loadSuite(suiteFile);
  const log = opts.log ?? ((l: string) => console.log(l));
  const dir = ensureWritableDir(opts.out ?? path.join(repoRoot(), 'results', spec.name), 'suite results folder');
  const overrides = [...(opts.overrides ?? [])];
  if (opts.limit !== undefined) overrides.push(`limits.maxQuestions=${opts.limit}`);
  if (opts.concurrency !== undefined) overrides.push(`concurrency=${opts.concurrency}`);
  const { outcomes, byName } = await runExperiments(spec, experimentFiles, path.join(dir, 'runs'), overrides, opts, log);
  const runs = [...byName.values()];
  const incomplete = outcomes.filter((o) => o.status !== 'completed').map((o) => `${o.runId} (${o.status})`);
  const refName = spec.reference ?? outcomes[0].experiment;
  const ref = byName.get(refName);
  if (!ref)
    throw new KfError('bad_suite', `suite ${spec.name}: reference "${refName}" is not one of its experiments`, `use one of: ${[...byName.keys()].join(', ')}`);
  const summaries = runs.map(summarizeRun);
  const metric = spec.metric ?? Object.keys(summaries[0].scores).find((k) => ['f1', 'acc', 'rougeL', 'em'].includes(k)) ?? 'f1';
  const backend = backendLabel(summaries.map((s) => s.backend));
  const note = backend === 'offline' ? OFFLINE_NOTE : backend === 'mixed' ? 'mixed backends: offline parts are not model results' : undefined;
  const c: SuiteContext = {
    spec,
    dir,
    byName,
    runs,
    names: runs.map((r) => nameOf(byName, r)),
    summaries,
    metric,
    margin: spec.margin ?? 0,
    by: spec.by ?? [],
    note,
    log,
  };

  // 2. Tables of the runs (the paper's Table 2-4/6-11 shapes).
  const report = writeRunReport(runs, { out: path.join(dir, 'tables'), by: c.by, ref: ref.runId, metric, margin: c.margin });
  const { comparisons, pairRows, compTable } = comparePairs(c, ref, refName);
  const figures = await suiteFigures(c, comparisons, opts.formats);
  const tables = [...Object.values(report.tables).map((t) => t.md), compTable.md];
  const summaryPath = path.join(dir, 'SUMMARY.md');
  writeFileAtomic(summaryPath, summaryMarkdown(c, { backend, refName, pairRows, outcomes, tables, figures, incomplete }));

  const stamp = resultManifest({
    config: { suite: spec, file: path.relative(repoRoot(), file), overrides },
    seed: spec.seed ?? 0,
    backend,
    extra: { runs: outcomes, metric },
  });
  const manifest = writeManifest(dir, stamp, [summaryPath, path.join(dir, 'comparisons.json'), compTable, report.tables, figures]);
  return {
    name: spec.name,
    dir,
    runs: outcomes,
    metric,
    backend,
    comparisons,
    tables: { ...report.tables, comparisons: compTable },
    figures,
    summary: summaryPath,
    manifest,
    incomplete,
  };
}

function nameOf(byName: Map<string, LoadedRun>, run: LoadedRun): string {
  for (const [n, r] of byName) if (r === run) return n;
  return run.runId;
}

function byRunId(runs: LoadedRun[], id: string): LoadedRun {
  return runs.find((r) => r.runId === id) ?? runs[0];
}
