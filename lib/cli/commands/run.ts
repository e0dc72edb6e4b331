/**
 * `kf run <experiment>`: answer the experiment's questions, one record each in
 * results/<run-id>/records.jsonl (resumable: rerun with the same --run-id).
 * Thin: flags become config overrides (so the manifest echoes what ran),
 * lib/run does the work. Ctrl-C once: finish the questions in flight and stop;
 * twice: abort them; either way the manifest is written and the resume
 * command printed.
 */
import * as path from 'node:path';
import { bool, int, isPositiveInt, list, str, type CommandSpec, type ParsedArgs } from '../command';
import { resolveExperimentName } from '../experiment-catalog';
import { ownDataOverrides, wantsOwnData, type OwnDataFlags } from '../own-data';
import { headlineTable } from '../headline';
import { setImplicitTraining } from '../../pipeline/implicit-training';
import { KfError, isKfError } from '../../util/errors';
import { CACHE_MODES, type CacheMode } from '../../models/config';
import { loadExperiment, type ResolvedExperiment } from '../../run/config';
import { Progress } from '../../run/progress';
import { getPipeline, listPipelines } from '../../run/registry';
import { loadConfiguredBenchmark, selectQuestions } from '../../run/questions';
import { checkRunId, defaultRunId, resumeCommandFor, runExperiment, type RunOutcome } from '../../run/runner';
import { configuredRoutes } from '../../run/run-identity';
import { departureText } from '../../run/departures';
import { PAGE_PREFIX } from '../../eval/retrieval';
import { defaultResultsDir, loadRun, outcomeLine, primaryMetric, summarizeRun } from '../../run/results';

/** `--set smoke` is the subset; `--set key.path=value` is an override (both spellings are in use). */
export function splitSetFlags(values: string[]): { subset?: string; overrides: string[] } {
  const overrides: string[] = [];
  let subset: string | undefined;
  for (const v of values) {
    if (/^[A-Za-z_][\w.]*=/.test(v)) overrides.push(v);
    else if (subset !== undefined)
      throw new KfError('bad_flag', `--set given two subsets ("${subset}" and "${v}")`, 'pass one of smoke | mid | full | <ids file>');
    else subset = v;
  }
  return { subset, overrides };
}

function printPipelines(json: boolean): number {
  const ps = listPipelines();
  if (json) console.log(JSON.stringify(ps));
  else if (!ps.length) console.log('no pipeline is registered');
  else {
    const w = (k: 'name' | 'family') => Math.max(...ps.map((p) => p[k].length));
    for (const p of ps) console.log(`${p.name.padEnd(w('name'))}  ${p.family.padEnd(w('family'))}  ${p.description}`);
  }
  return 0;
}

/** Flags become overrides of the (non-result) config fields, so the manifest shows what ran. */
function flagOverrides(args: ParsedArgs): string[] {
  const { subset, overrides: setOverrides } = splitSetFlags(list(args, 'set'));
  const overrides = [...list(args, 'override'), ...setOverrides];
  if (subset !== undefined) overrides.push(`benchmark.subset=${subset}`);
  if (str(args, 'limit')) overrides.push(`limits.maxQuestions=${int(args, 'limit')}`);
  if (str(args, 'concurrency')) overrides.push(`concurrency=${int(args, 'concurrency')}`);
  if (str(args, 'prompts')) overrides.push(`pipeline.settings.prompts=${str(args, 'prompts')}`);
  if (str(args, 'kb')) overrides.push(`index.kb=${str(args, 'kb')}`);
  return overrides;
}

interface RunPlan {
  exp: ResolvedExperiment;
  runId: string;
  resultsDir: string;
  resumeCommand: string;
}

function printDryRun({ exp, runId, resultsDir }: RunPlan): number {
  // The real run fails on an unknown pipeline before the first question; so does the dry run.
  if (!listPipelines().some((p) => p.name === exp.config.pipeline.name)) getPipeline(exp.config.pipeline.name);
  const { data, files } = loadConfiguredBenchmark(exp.config);
  const sel = selectQuestions(data, exp.config);
  const out = {
    runId,
    dir: path.join(resultsDir, runId),
    configHash: exp.hash,
    files: exp.files,
    benchmarkFiles: files,
    questions: sel.questions.length,
    missingIds: sel.missingIds.length,
    config: exp.config,
  };
  console.log(JSON.stringify(out, null, 2));
  return 0;
}

/** Run with Ctrl-C handling: once finishes the questions in flight, twice aborts them, a third time exits. */
async function runWithSignals(plan: RunPlan, how: { retryErrors: boolean; cacheMode?: CacheMode }): Promise<RunOutcome> {
  const stop = new AbortController();
  const abort = new AbortController();
  const progress = new Progress({ label: plan.runId });
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals) => {
    signals++;
    if (signals === 1 && sig === 'SIGINT') {
      progress.log(`kf run: interrupt -- finishing the questions in flight, then stopping (Ctrl-C again aborts them)`);
      stop.abort();
    } else if (signals <= 2) {
      progress.log(`kf run: ${sig} -- aborting the questions in flight (they stay unrecorded and rerun on resume)`);
      stop.abort();
      abort.abort();
    } else {
      console.error(`kf run: forced exit; resume with: ${plan.resumeCommand}`);
      process.exit(130);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await runExperiment({
      experiment: plan.exp,
      runId: plan.runId,
      resultsDir: plan.resultsDir,
      retryErrors: how.retryErrors,
      ...(how.cacheMode ? { cacheMode: how.cacheMode } : {}),
      resumeCommand: plan.resumeCommand,
      stopSignal: stop.signal,
      abortSignal: abort.signal,
      progress,
    });
  } catch (e) {
    // A disk that filled up (or another file-system failure) mid-run: the records so far are
    // kept, so say how to go on once it is fixed.
    if (isKfError(e) && e.code.startsWith('fs_') && !e.hint.includes('resume with')) {
      throw new KfError(e.code, e.message, `${e.hint}; resume with: ${plan.resumeCommand}`, { concerns: e.concerns, cause: e });
    }
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** What the run says once about its scoring: the data's notes (why page recall does not apply), page-level recall where scored. */
function scoringNotes(outcome: RunOutcome, retrieval: Record<string, number>): string[] {
  const out = (outcome.manifest.benchmark.notes ?? []).map((n) => `  note     ${n}`);
  const page = Object.keys(retrieval).filter((k) => k.startsWith(PAGE_PREFIX) && /R@/.test(k));
  if (page.length)
    out.push(
      `  pages    page-level recall: ${page.map((k) => `${k.slice(PAGE_PREFIX.length)} ${(100 * retrieval[k]).toFixed(1)}`).join(', ')} (%; keys ${PAGE_PREFIX}*)`,
    );
  return out;
}

/** The outcome line, the files, and the headline table (or one JSON object); returns the exit code. */
function printOutcome(outcome: RunOutcome, json: boolean): number {
  const run = loadRun(outcome.dir);
  const s = summarizeRun(run);
  const metric = primaryMetric(run);
  if (json) {
    console.log(
      JSON.stringify({
        runId: outcome.runId,
        dir: outcome.dir,
        status: outcome.status,
        counts: outcome.counts,
        answered: s.answered,
        refused: s.refused,
        failedBy: s.failedBy,
        recordedNow: outcome.recordedNow,
        errorsNow: outcome.errorsNow,
        backend: s.backend,
        ...(outcome.manifest.pipeline.system ? { system: outcome.manifest.pipeline.system } : {}),
        departures: (outcome.manifest.departures ?? []).map(departureText),
        ...(outcome.manifest.benchmark.notes?.length ? { notes: outcome.manifest.benchmark.notes } : {}),
        scores: s.scores,
        retrieval: s.retrieval,
        resume: outcome.resumeCommand,
      }),
    );
  } else {
    const c = outcome.counts;
    const main = metric ? `${metric} ${(100 * (s.scores[metric] ?? NaN)).toFixed(1)}` : 'no answer metric';
    console.log(
      `${outcome.runId}: ${outcome.status}; ${c.recorded} recorded (${outcome.recordedNow} now): ${outcomeLine(s)}, ${c.remaining} left; ${main} (backend ${s.backend}${s.backend === 'offline' ? ': not model results' : ''})`,
    );
    // Which retriever variant ranked (DualG: scorer, checkpoint id, preset, size): a stand-in is never unnamed.
    const sys = outcome.manifest.pipeline;
    if (sys.system) console.log(`  system   ${sys.system.label}${sys.otherSystems?.length ? ` (mixed run; also ${sys.otherSystems.join(' | ')})` : ''}`);
    // Every stand-in, fallback and variant, with counts: the run's departures from the paper.
    for (const d of outcome.manifest.departures ?? []) console.log(`  departs  ${departureText(d)}`);
    for (const line of scoringNotes(outcome, s.retrieval)) console.log(line);
    console.log(`  records  ${path.join(outcome.dir, 'records.jsonl')}`);
    console.log(`  manifest ${path.join(outcome.dir, 'manifest.json')}`);
    if (c.errors && outcome.status === 'completed') console.log(`  ${c.errors} question(s) failed (error in their record); --retry-errors answers them again`);
    console.log('');
    for (const line of headlineTable([run])) console.log(line);
  }
  if (outcome.status === 'completed') return 0;
  console.error(
    `kf run: ${outcome.status}${outcome.manifest.statusDetail ? ` (${outcome.manifest.statusDetail})` : ''} -- resume with: ${outcome.resumeCommand}`,
  );
  return outcome.status === 'interrupted' ? 130 : 1;
}

export const command: CommandSpec = {
  name: 'run',
  group: 'run',
  summary: 'Run an experiment: one record per question in results/<run-id>/ (concurrent, resumable)',
  positionals: [{ name: 'experiment', description: 'experiment file (.toml/.json) or its name (kf experiments lists them; M5 = knowforge/demo/M5)' }],
  options: {
    set: {
      type: 'string',
      multiple: true,
      description: 'questions: smoke | mid | full | <ids file> (benchmark.subset); a key.path=value is taken as --override',
    },
    limit: { type: 'string', description: 'answer at most N of the selected questions (limits.maxQuestions)', validate: isPositiveInt },
    out: { type: 'string', description: 'parent folder of run folders (default results/)' },
    'run-id': { type: 'string', description: 'run id (default <name>-<subset>-<config hash>); an existing run resumes' },
    concurrency: { type: 'string', description: 'questions at once (default from the config, 4)', validate: isPositiveInt },
    prompts: { type: 'string', description: 'prompt pack the pipeline sends: own | knowforge-bench (pipeline.settings.prompts; kf prompts list)' },
    kb: {
      type: 'string',
      description:
        'a hosted knowledge base instead of the experiment index: remote:<package uuid> (index.kb; server root from KF_KB_BASE_URL, account key from KF_KB_API_KEY)',
    },
    corpus: { type: 'string', description: 'your own data: the folder of your PDF / HTML / Markdown documents (with --questions; README "Your own data")' },
    questions: {
      type: 'string',
      description: 'your own data: questions file, JSON or JSON lines, each with question + answer (optional id, format, docs, pages)',
    },
    name: { type: 'string', description: 'your own data: the benchmark name results carry (default: the questions file name)' },
    override: { type: 'string', short: 'o', multiple: true, description: 'config override key.path=value, typed by the schema (experiments/_schema.md)' },
    'retry-errors': {
      type: 'boolean',
      description: 'answer the questions recorded with an error again (the model is asked anew: a reply its stage refused is never replayed from the cache)',
    },
    cache: {
      type: 'string',
      description: 'reply cache mode for this invocation (above KF_CACHE and models.cache.mode)',
      choices: CACHE_MODES,
    },
    train: {
      type: 'boolean',
      description:
        'DualG rows with gnnTrain = true: train the missing GNN checkpoint before answering (minutes of CPU; without it the run is refused with the estimate)',
    },
    'dry-run': { type: 'boolean', description: 'resolve the config and the questions, print them, write nothing' },
    'list-pipelines': { type: 'boolean', description: 'list the registered pipelines and exit' },
    json: { type: 'boolean', description: 'print the outcome as one JSON object' },
  },
  examples: [
    'kf run M5 --limit 20                          # experiments/knowforge/demo/M5.toml on the demo world',
    'kf run knowforge/m3docvqa/S4 --set smoke',
    'kf run DG --train                             # DualG: trains the missing GNN checkpoint first (estimate printed)',
    'kf run M5 --corpus my-docs/ --questions my-questions.json --name my-bench   # your own data (also DG, S4, ... any row)',
    'kf run knowforge/m3docvqa/M5 --set mid --concurrency 4 --override models.defaults.temperature=0',
    'kf run knowforge/m3docvqa/M5 --set mid --run-id m3docvqa-M5-mid-3a2f1c0d     # resume after a crash or Ctrl-C',
  ],
  async run(args) {
    if (bool(args, 'list-pipelines')) return printPipelines(bool(args, 'json'));
    // A missing GNN checkpoint is trained only when asked (--train); otherwise refused with its estimate.
    setImplicitTraining(bool(args, 'train'));
    const ref = args.positionals[0];
    if (!ref) {
      // A usage error (exit 2), in the form main.ts gives the others; <experiment> is optional only for --list-pipelines.
      console.error("kf: missing <experiment> for 'kf run': an experiment file or name (kf experiments lists them), or --list-pipelines (see kf run --help)");
      return 2;
    }
    const own: OwnDataFlags = { corpus: str(args, 'corpus'), questions: str(args, 'questions'), name: str(args, 'name') };
    // With own data the demo world is not what runs: the catalogue's "which file" note would say it is.
    const file = resolveExperimentName(ref, (line) => (wantsOwnData(own) ? undefined : console.error(`note: ${line}`))) ?? ref;
    // Own data: the configuration's row over your files (the own-data overrides come first, so -o still wins).
    const ownOverrides = wantsOwnData(own) ? ownDataOverrides(own, loadExperiment(file).config.pipeline.name) : [];
    if (ownOverrides.length)
      console.error(`note: ${ref}: the settings of ${path.relative(process.cwd(), file) || file}, over your data (--corpus, --questions)`);
    const exp = loadExperiment(file, { overrides: [...ownOverrides, ...flagOverrides(args)] });
    const runId = checkRunId(str(args, 'run-id') ?? defaultRunId(exp, configuredRoutes(exp.config)));
    const outFlag = str(args, 'out');
    const resultsDir = outFlag ? path.resolve(outFlag) : defaultResultsDir();
    const plan: RunPlan = { exp, runId, resultsDir, resumeCommand: resumeCommandFor(exp, runId) + (outFlag ? ` --out ${outFlag}` : '') };
    if (bool(args, 'dry-run')) return printDryRun(plan);
    const outcome = await runWithSignals(plan, { retryErrors: bool(args, 'retry-errors'), cacheMode: str(args, 'cache') as CacheMode | undefined });
    return printOutcome(outcome, bool(args, 'json'));
  },
};
