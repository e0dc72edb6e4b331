/**
 * `kf ask --config <experiment> "question"`: one question through a configuration
 * of either paper (S0-S4 one-shot, M5/P0/P1 agents, DG...), with the roles'
 * progress streamed as they work, then the answer, its FINAL ANSWER line (once),
 * the cited fragments, DualG's decoded paths, and a short trace summary.
 *
 * A bare configuration name (`--config M5`) means that configuration's demo-world
 * experiment (experiments/{demo,knowforge/demo,dualg/demo}/<name>.toml); with
 * `--index <dir>` it runs over that index folder instead. Before answering, ask
 * builds what the experiment needs and is missing (the demo world, the index, the
 * pipeline's artifacts such as DualG's graph), printing each step on stderr, so
 * the first question of a fresh clone works without a separate `kf prepare`.
 * Offline policies answer unless the experiment (or the environment) configures
 * an endpoint; the output says which.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, str } from '../command';
import type { Question } from '../../bench/types';
import { benchmarkSpec } from '../../bench/registry';
import { ensureDemoWorld } from '../../demo';
import { openIndex } from '../../index/open';
import { afterBlocks, eventLine, traceSummary } from '../../report/trace-format';
import { createModelRouter } from '../../models/router';
import { registerOfflineHandlers } from '../../pipeline/offline-backend';
import type { KnowledgeBase } from '../../pipeline/knowledge-base';
import { configuration, createConfigured } from '../../pipeline/registry';
import { loadExperiment, type ResolvedExperiment } from '../../run/config';
import { engineKnowledgeBase } from '../../pipeline/index-view';
import { defaultIndexDir } from '../../run/index-provider';
import { prepareExperiment } from '../../run/prepare';
import { attributeCalls, questionSetup } from '../../run/question-setup';
import type { PipelineResult, TraceEvent } from '../../pipeline/types';
import { setImplicitTraining } from '../../pipeline/implicit-training';
import { KfError } from '../../util/errors';
import { repoRoot } from '../../util/paths';
import { loadedPlugins } from '../../pipeline/plugins';
import { citedFragments, withoutFinalAnswerLine } from '../ask-output';

/** Folders holding each configuration's demo-world experiment, searched in this order: experiments/demo, then each plug-in's. */
function demoExperimentDirs(): string[] {
  return [path.join(repoRoot(), 'experiments', 'demo'), ...loadedPlugins().flatMap((p) => (p.demoExperiments ? [p.demoExperiments] : []))];
}

interface Resolved {
  pipeline: string;
  settings: Record<string, unknown>;
  models: Record<string, unknown>;
  benchmark: string;
  /** Set when the ask runs an experiment file (it may need its world, index and artifacts built). */
  experiment?: ResolvedExperiment;
  indexDir?: string;
  /** --kb remote:<uuid>: a hosted knowledge base instead of the index. */
  kb?: string;
  indexSettings?: { search?: Record<string, unknown>; settings?: Record<string, unknown> };
}

/** The demo-world experiment of a configuration name (M5 -> experiments/knowforge/demo/M5.toml), if there is one. */
export function demoExperimentFile(name: string): string | undefined {
  for (const dir of demoExperimentDirs()) {
    const f = path.join(dir, `${name}.toml`);
    if (fs.existsSync(f)) return f;
  }
  return undefined;
}

function fromExperiment(exp: ResolvedExperiment): Resolved {
  const c = exp.config;
  return {
    pipeline: c.pipeline.name,
    settings: { ...c.pipeline.settings, ...c.caps },
    models: c.models as Record<string, unknown>,
    benchmark: c.benchmark.name,
    experiment: exp,
    indexDir: c.index ? defaultIndexDir(c) : undefined,
    ...(c.index?.kb ? { kb: c.index.kb } : {}),
    indexSettings: c.index ? { search: c.index.search as Record<string, unknown>, settings: c.index.settings as Record<string, unknown> } : undefined,
  };
}

/** Load an experiment; on a benchmark over the generated demo world, first make sure the preset's world exists and point the experiment at it. */
async function loadWithWorld(file: string, preset: 'tiny' | 'default', say: (line: string) => void): Promise<ResolvedExperiment> {
  const first = loadExperiment(file);
  const presetOverrides = benchmarkSpec(first.config.benchmark.name)?.presetOverrides;
  if (!presetOverrides) return first;
  const world = await ensureDemoWorld({ preset });
  say(`demo world (${preset}): ${path.relative(process.cwd(), world.dir) || '.'}${world.generated ? ' (generated now)' : ' (reused)'}`);
  return loadExperiment(file, { overrides: presetOverrides(preset, world.dir).overrides });
}

/** --config: an experiment (file or name), a configuration with --index, or a configuration's demo experiment. */
async function resolveConfig(ref: string, o: { index?: string; preset: 'tiny' | 'default'; say: (line: string) => void }): Promise<Resolved> {
  if (configuration(ref)) {
    if (o.index) return { pipeline: ref, settings: {}, models: {}, benchmark: 'demo', indexDir: path.resolve(o.index) };
    const file = demoExperimentFile(ref);
    if (!file)
      throw new KfError(
        'no_index',
        `configuration ${ref} has no demo-world experiment to take its index from`,
        `pass --index <dir> (built with kf index build), or an experiment file: kf ask --config experiments/<...>/${ref}.toml "..."`,
      );
    o.say(`${ref}: the demo-world experiment ${path.relative(repoRoot(), file)}`);
    return fromExperiment(await loadWithWorld(file, o.preset, o.say));
  }
  const r = fromExperiment(await loadWithWorld(ref, o.preset, o.say));
  return o.index ? { ...r, indexDir: path.resolve(o.index) } : r;
}

/** A question of the configured benchmark with no gold: ask only answers, it does not score. */
function askedQuestion(text: string, benchmark: string, doc: string | undefined): Question {
  return {
    id: 'ask',
    benchmark,
    question: text,
    answer: null,
    format: 'span',
    goldDocs: [],
    evidence: [],
    modality: [],
    meta: {},
    ...(doc ? { doc } : {}),
  };
}

/** Build what the experiment needs and is missing (index, artifacts), with a line per step. */
async function prepareNeeds(r: Resolved, say: (line: string) => void): Promise<void> {
  if (!r.experiment) return;
  const t0 = Date.now();
  say(`preparing what ${r.pipeline} needs (index, artifacts; built once, reused afterwards)`);
  // An index build that would call a model is refused here (kf prepare builds it, estimate first); artifacts announce themselves.
  const done = await prepareExperiment(r.experiment, { log: (line) => say(`  ${line}`), allowModelBuild: false });
  for (const p of done) say(`  ${p.what}: ${p.built ? 'built' : 'current'} (${path.relative(process.cwd(), p.dir) || p.dir})`);
  say(`prepared in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

/** Open the index (when the pipeline has one) as its knowledge-base view, saying so: opening takes seconds. */
async function openKnowledgeBase(
  r: Resolved,
  router: ReturnType<typeof createModelRouter>,
  say: (line: string) => void,
  doc?: string,
): Promise<KnowledgeBase | undefined> {
  if (r.kb) {
    say(`knowledge base ${r.kb} (${process.env.KF_KB_BASE_URL ?? 'KF_KB_BASE_URL unset'})`);
    const { openRemoteKb } = require('../../remote-kb/open') as typeof import('../../remote-kb/open');
    return openRemoteKb(r.kb).restrictedTo(doc ? [doc] : undefined);
  }
  if (!r.indexDir) return undefined;
  if (!fs.existsSync(r.indexDir))
    throw new KfError('no_index', `no index folder ${r.indexDir}`, `build it first: kf index build <corpus> --out ${r.indexDir}`, { concerns: r.indexDir });
  const t0 = Date.now();
  say(`loading index ${path.relative(process.cwd(), r.indexDir) || r.indexDir} ...`);
  const idx = await openIndex(r.indexDir, { models: router });
  say(
    `index loaded in ${((Date.now() - t0) / 1000).toFixed(1)} s (generation ${idx.manifest.generation}); the first search also loads the query encoder and any graph the retriever needs`,
  );
  const kb = engineKnowledgeBase(idx, {
    forced: r.indexSettings?.search,
    settings: r.indexSettings?.settings,
    log: (line) => say(`  ${line}`),
    models: router,
  });
  return kb.restrictedTo(doc ? [doc] : undefined);
}

/** The answer, FINAL ANSWER once, cited fragments, decoded paths, backend and trace summary. */
function printAnswer(result: PipelineResult, events: TraceEvent[], pipelineName: string): void {
  const backends = [...new Set(events.filter((e) => e.kind === 'model-call').map((e) => String(e.backend)))];
  const body = withoutFinalAnswerLine(result.prediction);
  if (body) console.log(body, '\n');
  console.log(`FINAL ANSWER: ${result.finalAnswer}`);
  const cited = citedFragments(result.prediction, events, result.retrieval?.poolText);
  console.log(cited.length ? `cited: ${cited.join('; ')}` : 'cited: none (the answer cites no evidence block)');
  for (const b of afterBlocks(events)) console.log(`${b.title}:\n${b.text}`);
  console.log(`${pipelineName} · backend ${backends.join('+') || 'none'}${backends.includes('offline') ? ' (offline backend: not model results)' : ''}`);
  console.log(traceSummary(events));
}

function writeTrace(file: string, text: string, pipelineName: string, events: TraceEvent[], result: PipelineResult): void {
  const doc = { id: 'ask', question: text, pipeline: pipelineName, events, counters: result.counters ?? {}, retrieval: result.retrieval ?? null };
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
}

export const command: CommandSpec = {
  name: 'ask',
  group: 'run',
  summary:
    'Ask one question through a configuration (S4, M5, P1, DG...): builds what it needs, streams progress, prints the answer, FINAL ANSWER, cited fragments (DG: paths)',
  positionals: [{ name: 'question', description: 'the question (quote it)', required: true, variadic: true }],
  options: {
    config: {
      type: 'string',
      required: true,
      description: 'experiment file or name, or a configuration name (M5: its demo-world experiment; with --index: that index)',
    },
    index: { type: 'string', description: "index folder (default: the experiment's index.dir)" },
    kb: {
      type: 'string',
      description: 'a hosted knowledge base instead of an index: remote:<package uuid> (server root from KF_KB_BASE_URL, account key from KF_KB_API_KEY)',
    },
    prompts: { type: 'string', description: 'prompt pack the configuration sends (own | knowforge-bench; kf prompts list)' },
    preset: { type: 'string', description: 'demo world size for demo experiments', choices: ['tiny', 'default'], default: 'default' },
    doc: { type: 'string', description: 'restrict to one document (single-document benchmarks)' },
    trace: { type: 'string', description: 'write the full trace as JSON to this file' },
    train: {
      type: 'boolean',
      description:
        'DualG rows with gnnTrain = true: train the missing GNN checkpoint before answering (minutes of CPU; without it the run is refused with the estimate)',
    },
    quiet: { type: 'boolean', description: 'no progress lines' },
  },
  examples: [
    'kf ask --config M5 "Which city had more inhabitants in 2015, Novrem or Kraenmox?"',
    'kf ask --config DG --train "..."            (DualG-MRAG: prints the decoded paths too; --train trains a missing GNN first)',
    'kf ask --config experiments/knowforge/demo/M5.toml "..." --trace /tmp/t.json',
    'kf ask --config M5 --index .kf-cache/index/demo-default "..."',
    'KF_KB_BASE_URL=https://kb.example.org kf ask --config M5 --kb remote:<uuid> "..."',
  ],
  async run(args) {
    const text = args.positionals.join(' ').trim();
    if (!text) throw new KfError('bad_arguments', 'no question given', 'pass the question in quotes');
    const quiet = bool(args, 'quiet');
    // A missing GNN checkpoint is trained only when asked (--train); otherwise refused with its estimate.
    setImplicitTraining(bool(args, 'train'));
    const say = (line: string) => (quiet ? undefined : console.error(line));
    const preset = (str(args, 'preset') ?? 'default') as 'tiny' | 'default';
    const r = await resolveConfig(str(args, 'config')!, { index: str(args, 'index'), preset, say });
    if (str(args, 'prompts')) r.settings = { ...r.settings, prompts: str(args, 'prompts') };
    const pipeline = createConfigured(r.pipeline, r.settings);
    if (!pipeline) throw new KfError('pipeline_unknown', `no configuration named ${r.pipeline}`, 'kf run --list-pipelines lists them');
    const kbRef = str(args, 'kb');
    if (kbRef) r.kb = kbRef;
    if (!pipeline.needsIndex && !str(args, 'index') && !kbRef) {
      // A configuration that reads no index (closed book, S0) opens none, and builds none.
      r.indexDir = undefined;
      r.experiment = undefined;
    }
    if (!str(args, 'index') && !kbRef) await prepareNeeds(r, say);
    registerOfflineHandlers();
    const router = createModelRouter(r.models, { cacheMode: 'off' });
    try {
      const question = askedQuestion(text, r.benchmark, str(args, 'doc'));
      const kb = await openKnowledgeBase(r, router, say, question.doc);
      if (pipeline.needsIndex && !kb)
        throw new KfError(
          'no_index',
          `configuration ${r.pipeline} needs an index`,
          'pass --index <dir> (built with kf index build) or an experiment with [index] dir',
        );
      const events: TraceEvent[] = [];
      const t0 = Date.now();
      const trace = (e: TraceEvent) => {
        const ev = { t: Date.now() - t0, ...e };
        events.push(ev);
        const line = quiet ? undefined : eventLine(ev, { width: 120 });
        if (line) console.error(line);
      };
      // The runner's per-question set-up: calls attributed to the question, model-call events from the ledger.
      const { ctx } = questionSetup({
        question,
        models: router,
        runId: 'ask',
        view: { kb },
        benchmark: r.benchmark,
        settings: r.settings,
        rngKey: 'ask',
        trace,
      });
      const off = attributeCalls(router, new Map([[question.id, { backends: new Set<string>(), models: new Set<string>(), trace }]]));
      const result = await pipeline.run(ctx).finally(off);
      printAnswer(result, events, pipeline.name);
      if (str(args, 'trace')) writeTrace(str(args, 'trace')!, text, pipeline.name, events, result);
    } finally {
      await router.close();
    }
  },
};
