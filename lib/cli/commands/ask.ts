/**
 * `kf ask --config <experiment> [--index <dir>] "question"`: one question
 * through a configuration (M5, P0, S4...), with the roles' progress streamed
 * as they work, then the answer, its FINAL ANSWER line, the cited fragments
 * and a short trace summary. `--trace FILE` writes the full trace as JSON.
 * Offline policies answer unless the experiment (or the environment)
 * configures an endpoint; the output says which.
 */
import * as fs from 'node:fs';
import type { CommandSpec } from '../command';
import { bool, str } from '../command';
import type { Question } from '../../bench/types';
import { openIndex } from '../../index/open';
import { conventionFor } from '../../knowforge/conventions';
import { stageModel } from '../../knowforge/stage-model';
import { eventLine, traceSummary } from '../../knowforge/trace-format';
import { createModelRouter } from '../../models/router';
import { registerOfflineHandlers } from '../../offline-backend';
import { configuration, createConfigured } from '../../pipeline/registry';
import { expandPath, loadExperiment } from '../../run/config';
import { engineKnowledgeBase } from '../../run/index-provider';
import type { PipelineContext, TraceEvent } from '../../run/types';
import { KfError } from '../../util/errors';
import { makeRng } from '../../util/rng';

interface Resolved {
  pipeline: string;
  settings: Record<string, unknown>;
  models: Record<string, unknown>;
  indexDir?: string;
  benchmark: string;
}

/** --config names an experiment (file or name under experiments/) or a bare configuration (M5). */
function resolveConfig(ref: string): Resolved {
  if (configuration(ref)) return { pipeline: ref, settings: {}, models: {}, benchmark: 'demo' };
  const exp = loadExperiment(ref);
  const c = exp.config;
  return {
    pipeline: c.pipeline.name,
    settings: { ...c.pipeline.settings, ...c.caps },
    models: c.models as Record<string, unknown>,
    indexDir: c.index?.dir,
    benchmark: c.benchmark.name,
  };
}

/** [N] / [fig N] citations of the answer, resolved to fragments through the last pool trace event. */
function citedFragments(answer: string, events: TraceEvent[]): string[] {
  const pool = [...events].reverse().find((e) => e.kind === 'pool') as { blocks?: { n: number; id: string; kind: string }[] } | undefined;
  const byN = new Map((pool?.blocks ?? []).map((b) => [b.n, b]));
  const out: string[] = [];
  for (const m of answer.matchAll(/\[(fig )?(\d+)\]/g)) {
    const b = byN.get(Number(m[2]));
    const line = b ? `[${m[1] ?? ''}${m[2]}] ${b.id} (${b.kind})` : `[${m[1] ?? ''}${m[2]}] (not in the pool)`;
    if (!out.includes(line)) out.push(line);
  }
  return out;
}

export const command: CommandSpec = {
  name: 'ask',
  group: 'run',
  summary: 'Ask one question through a configuration (M5, P0, S4...): streamed progress, answer, FINAL ANSWER, cited fragments, trace summary',
  positionals: [{ name: 'question', description: 'the question (quote it)', required: true, variadic: true }],
  options: {
    config: {
      type: 'string',
      required: true,
      description: 'experiment file or name (its pipeline, settings, models, index), or a configuration name (M5) with --index',
    },
    index: { type: 'string', description: "index folder (default: the experiment's index.dir)" },
    prompts: { type: 'string', description: 'prompt pack the configuration sends (own | knowforge-bench; kf prompts list)' },
    doc: { type: 'string', description: 'restrict to one document (single-document benchmarks)' },
    trace: { type: 'string', description: 'write the full trace as JSON to this file' },
    quiet: { type: 'boolean', description: 'no progress lines' },
  },
  examples: [
    'kf ask --config experiments/knowforge/demo/M5.toml "Which city had more inhabitants in 2015, Novrem or Kraenmox?"',
    'kf ask --config M5 --index .kf-cache/index/demo-default "..." --trace /tmp/t.json',
  ],
  async run(args) {
    const text = args.positionals.join(' ').trim();
    if (!text) throw new KfError('bad_arguments', 'no question given', 'pass the question in quotes');
    const r = resolveConfig(str(args, 'config')!);
    if (str(args, 'prompts')) r.settings = { ...r.settings, prompts: str(args, 'prompts') };
    const indexDir = str(args, 'index') ?? (r.indexDir ? expandPath(r.indexDir) : undefined);
    if (!indexDir)
      throw new KfError(
        'no_index',
        `configuration ${r.pipeline} needs an index`,
        'pass --index <dir> (built with kf index build) or an experiment with [index] dir',
      );
    registerOfflineHandlers();
    const router = createModelRouter(r.models, { cacheMode: 'off' });
    try {
      const idx = await openIndex(indexDir, { models: router });
      const pipeline = createConfigured(r.pipeline, r.settings);
      if (!pipeline) throw new KfError('pipeline_unknown', `no configuration named ${r.pipeline}`, 'kf run --list-pipelines lists them');
      const question: Question = {
        id: 'ask',
        benchmark: r.benchmark,
        question: text,
        answer: null,
        format: 'span',
        goldDocs: [],
        evidence: [],
        modality: [],
        meta: {},
        ...(str(args, 'doc') ? { doc: str(args, 'doc') } : {}),
      };
      const events: TraceEvent[] = [];
      const t0 = Date.now();
      const quiet = bool(args, 'quiet');
      const ctx: PipelineContext = {
        question,
        model: (stage) => stageModel(router, stage),
        kb: engineKnowledgeBase(idx).restrictedTo(question.doc ? [question.doc] : undefined),
        convention: conventionFor(r.benchmark),
        settings: r.settings,
        rng: makeRng('ask'),
        signal: new AbortController().signal,
        trace: (e) => {
          const ev = { t: Date.now() - t0, ...e };
          events.push(ev);
          const line = quiet ? undefined : eventLine(ev, { width: 120 });
          if (line) console.error(line);
        },
      };
      // Model-call totals per stage come from the ledger, as in the runner.
      const off = router.ledger.onRecord((e) =>
        events.push({
          kind: 'model-call',
          t: Date.now() - t0,
          stage: e.stage,
          model: e.model,
          backend: e.backend,
          latencyMs: e.latencyMs,
          cacheHit: e.cacheHit,
          promptTokens: e.promptTokens,
          completionTokens: e.completionTokens,
        }),
      );
      const result = await pipeline.run(ctx);
      off();
      const backends = [...new Set(events.filter((e) => e.kind === 'model-call').map((e) => String(e.backend)))];
      console.log(result.prediction.trim());
      console.log('');
      console.log(`FINAL ANSWER: ${result.finalAnswer}`);
      const cited = citedFragments(result.prediction, events);
      if (cited.length) console.log(`cited: ${cited.join('; ')}`);
      console.log(`${pipeline.name} · backend ${backends.join('+') || 'none'}${backends.includes('offline') ? ' (offline backend: not model results)' : ''}`);
      console.log(traceSummary(events));
      if (str(args, 'trace'))
        fs.writeFileSync(
          str(args, 'trace')!,
          JSON.stringify(
            { id: 'ask', question: text, pipeline: pipeline.name, events, counters: result.counters ?? {}, retrieval: result.retrieval ?? null },
            null,
            2,
          ),
        );
    } finally {
      await router.close();
    }
  },
};
