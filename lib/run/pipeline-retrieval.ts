/**
 * The retrieval side of a KnowForge agent configuration, model-free or with an
 * endpoint (`kf eval retrieval --config <experiment>`): per question, the
 * Locator (or P0), the bridge judge and its follow-up searches run exactly as
 * in the pipeline, nothing is read or answered, and the searches are scored:
 * first-search R@k / allFound@k, R@all and doc found over every search
 * (bridge included), answer visible in the pool.
 */
import type { BenchmarkData, Question } from '../bench/types';
import { aggregateScores, goldUnits, retrievalScores } from '../eval/retrieval';
import { engineKnowledgeBase } from '../pipeline/index-view';
import type { OpenIndex } from '../index/open';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import type { ChatModel, Stage } from '../model-api/types';
import { checkSettings, configuration, family } from '../pipeline/registry';
import type { PipelineSpec } from '../pipeline/spec';
import { loadExperiment } from './config';
import { createModelRouter } from '../models/router';
import { registerOfflineHandlers } from '../pipeline/offline-backend';
import { questionContext } from '../pipeline/question-context';
import { KfError } from '../util/errors';
import { stageModel, type StageRouter } from '../pipeline/stage-model';
import { mapLimit } from '../util/worker-pool';

export interface PipelineRetrievalRecord {
  id: string;
  question: string;
  gold: string[];
  excluded: boolean;
  scores: Record<string, number> | null;
  searches: { query: string; by: string; docs: string[] }[];
}

export interface PipelineRetrievalOptions {
  /** Configuration name (M5, P0, L4R4...) and its experiment settings (pipeline.settings + caps). */
  config: string;
  settings?: Record<string, unknown>;
  caps?: Record<string, unknown>;
  models: StageRouter;
  ks: number[];
  limit?: number;
  concurrency?: number;
  onRecord?(r: PipelineRetrievalRecord): void;
}

/** A knowledge base that can be seen through one question's document (a local index's view, a hosted knowledge base). */
export type ScopedKnowledgeBase = KnowledgeBase & { restrictedTo(docIds: string[] | undefined): KnowledgeBase };

/** A local index or a knowledge-base view: what the retrieval side searches. */
export function scopedKnowledgeBase(source: OpenIndex | ScopedKnowledgeBase): ScopedKnowledgeBase {
  return typeof (source as OpenIndex).retrieverFor === 'function' ? engineKnowledgeBase(source as OpenIndex) : (source as ScopedKnowledgeBase);
}

/** A configuration whose family has a retrieval-only mode, with its parsed settings. */
interface RetrievalConfig {
  spec: PipelineSpec & Required<Pick<PipelineSpec, 'retrieve'>>;
  settings: Record<string, unknown>;
}

/** Validate that the configuration's family has a retrieval-only mode (the agent configurations do); its parsed settings. */
export function retrievalConfigOf(config: string, layers: { settings?: Record<string, unknown>; caps?: Record<string, unknown> }): RetrievalConfig {
  const r = checkSettings(config, layers);
  if (r.ok === 'unknown')
    throw new KfError('pipeline_unknown', `no configuration named ${config}`, 'name a configuration of lib/knowforge/configurations.ts (M5, P0, L4R4...)', {
      concerns: config,
    });
  if (r.ok === false)
    throw new KfError('bad_setting', `configuration ${config}: ${r.problem.field} ${r.problem.problem}`, r.problem.hint, { concerns: r.problem.field });
  const spec = family(r.configuration.family);
  if (!spec?.retrieve) {
    throw new KfError(
      'not_agent_config',
      `configuration ${config} is of family ${r.configuration.family}, which has no retrieval-only mode`,
      'use --mode for one-shot retrieval, or name an agent configuration (M5, P0...)',
      { concerns: config },
    );
  }
  return { spec: spec as RetrievalConfig['spec'], settings: r.settings as Record<string, unknown> };
}

async function oneQuestion(
  base: ScopedKnowledgeBase,
  q: Question,
  rc: RetrievalConfig,
  opts: PipelineRetrievalOptions,
  level: 'document' | 'page',
): Promise<PipelineRetrievalRecord> {
  const gold = goldUnits(q, level);
  if (!gold.length) return { id: q.id, question: q.question, gold, excluded: true, scores: null, searches: [] };
  const kb = base.restrictedTo(q.doc ? [q.doc] : undefined);
  const model = (stage: Stage): ChatModel => stageModel(opts.models, stage, q.id);

  const ctx = questionContext({ question: q, model, view: { kb }, settings: rc.settings, rngKey: `0/${q.id}` });
  const found = await rc.spec.retrieve(opts.config, rc.settings, ctx);
  const scores = retrievalScores(q, found.log, { ks: opts.ks, level });
  return {
    id: q.id,
    question: q.question,
    gold,
    excluded: !scores,
    scores,
    searches: found.searches.map((x) => ({ query: x.query, by: x.by, docs: [...new Set(x.hits.map((h) => h.docId))] })),
  };
}

/** Run the retrieval side over the questions (bounded concurrency, records in question order). */
export async function evaluatePipelineRetrieval(source: OpenIndex | ScopedKnowledgeBase, data: BenchmarkData, opts: PipelineRetrievalOptions) {
  const rc = retrievalConfigOf(opts.config, { settings: opts.settings, caps: opts.caps });
  const kb = scopedKnowledgeBase(source);
  const qs = opts.limit ? data.questions.slice(0, opts.limit) : data.questions;
  const records = await mapLimit(qs, opts.concurrency ?? 4, (q) => oneQuestion(kb, q, rc, opts, data.recallLevel));
  for (const r of records) opts.onRecord?.(r);
  const agg = aggregateScores(records.map((r) => r.scores));
  const round = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 1e4) / 1e4);
  const recall: Record<string, number> = {};
  const allFound: Record<string, number> = {};
  for (const k of opts.ks) {
    recall[String(k)] = round(agg.mean[`R@${k}`]) ?? 0;
    allFound[String(k)] = round(agg.mean[`allFound@${k}`]) ?? 0;
  }
  const searches = records.reduce((n, r) => n + r.searches.length, 0);
  const bridge = records.reduce((n, r) => n + r.searches.filter((x) => x.by === 'bridge').length, 0);
  const summary = {
    n: agg.n,
    excluded: qs.length - agg.n,
    recall,
    allFound,
    recallAll: round(agg.mean['R@all']) ?? 0,
    docFound: round(agg.mean.docFound) ?? 0,
    ...(agg.count.answerVisible ? { answerVisible: round(agg.mean.answerVisible) } : {}),
    bench: data.name,
    mode: `pipeline:${opts.config}`,
    config: opts.config,
    level: data.recallLevel,
    ks: opts.ks,
    topk: rc.settings.topk as number | undefined,
    searchesPerQuestion: round(searches / Math.max(1, qs.length)),
    bridgeSearchesPerQuestion: round(bridge / Math.max(1, qs.length)),
  };
  return { summary, records };
}

/**
 * `kf eval retrieval --config <ref>`: ref = a configuration name (M5, P0, L4R4) or an experiment
 * (file or name under experiments/) whose pipeline is an agent configuration; its [models] are used
 * (offline policies unless an endpoint is configured).
 */
export async function configRetrieval(
  ref: string,
  source: OpenIndex | ScopedKnowledgeBase,
  data: BenchmarkData,
  opts: { ks: number[]; limit?: number; onRecord?(r: PipelineRetrievalRecord): void; settings?: Record<string, unknown> },
) {
  let config = ref;
  let layers: { settings?: Record<string, unknown>; caps?: Record<string, unknown> } = {};
  let modelsConfig = {};
  if (!configuration(ref)) {
    const exp = loadExperiment(ref);
    config = exp.config.pipeline.name;
    layers = { settings: exp.config.pipeline.settings, caps: exp.config.caps };
    modelsConfig = exp.config.models;
  }
  if (opts.settings) layers = { ...layers, settings: { ...layers.settings, ...opts.settings } };
  registerOfflineHandlers();
  const router = createModelRouter(modelsConfig, { cacheMode: 'off' });
  try {
    return await evaluatePipelineRetrieval(source, data, { config, ...layers, models: router, ks: opts.ks, limit: opts.limit, onRecord: opts.onRecord });
  } finally {
    await router.close();
  }
}
