/**
 * The one-shot family of KnowForge configurations (spec "Configurations"):
 *   (one search, or none) -> typed pool -> one synthesizer call -> one checker call.
 * S0, S1, S3, S4v1 and S4 are rows of settings over this family
 * (lib/knowforge/configurations.ts); the agent configurations reuse the same
 * pool, synthesizer and checker.
 *
 * The search goes through the question's knowledge-base view (`ctx.kb`), so
 * any registered retriever can stand in for the engine's modes (`retriever`).
 */
import { z } from 'zod';
import { RETRIEVAL_MODES } from '../index/types';
import { KB_LIMITS, type KnowledgeBase } from '../pipeline/knowledge-base';
import type { PipelineSpec } from '../pipeline/spec';
import { unknownRetrieverMessage } from '../pipeline/retrievers';
import type { Pipeline, PipelineContext, PipelineResult } from '../pipeline/types';
import { KfError } from '../util/errors';
import { synthesizeAndCheck } from '../answer/answer';
import { buildPool, type EvidencePool, PAPER_CAPS } from '../answer/pool';
import { BLOCK_FORMATS } from '../answer/block-format';
import { blockFormatOf } from './agent-settings';
import { inPromptPack, packStamp, promptsSetting } from './prompt-pack/setting';
import { resolvePromptPack } from './prompt-pack/packs';

export const ONE_SHOT_FAMILY = 'knowforge-one-shot';

export const oneShotSettings = z
  .strictObject({
    /** Retrieval mode of the single search; 'none' = closed book. */
    mode: z.enum(['none', ...RETRIEVAL_MODES]).default('hybrid+graph'),
    /** A registered retriever (lib/pipeline/retrievers.ts) searched instead of `mode`; default: the mode itself. */
    retriever: z.string().min(1).optional(),
    /** Synthesizer answer template. */
    template: z.enum(['ours', 'm3docrag', 'closed-book']).default('ours'),
    /** Hits of the single search (the spec's search_knowledge default). */
    topk: z.number().int().positive().max(KB_LIMITS.maxTopk).default(KB_LIMITS.searchTopk),
    /** Evidence pool: typed sections (the paper) or one plain list. */
    pool: z.enum(['typed', 'plain']).default('typed'),
    /** Character budget of the whole pool. */
    poolChars: z.number().int().positive().default(PAPER_CAPS.total),
    /** Prompt pack: the project's wording (own) or the released runner's texts (knowforge-bench). */
    prompts: promptsSetting,
    /** How the pool is written: the released runner's block layout or one line per block (lib/answer/block-format.ts); unset: by pack. */
    blockFormat: z.enum(BLOCK_FORMATS).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.retriever === undefined) return;
    if (s.mode === 'none') ctx.addIssue({ code: 'custom', path: ['retriever'], message: 'is set but mode = "none" (closed book) makes no search' });
    else {
      const unknown = unknownRetrieverMessage(s.retriever);
      if (unknown) ctx.addIssue({ code: 'custom', path: ['retriever'], message: unknown });
    }
  });

export type OneShotSettings = z.output<typeof oneShotSettings>;

/** The search mode actually used: the retriever when one is named, else the mode. */
function searchMode(s: OneShotSettings): string | undefined {
  return s.mode === 'none' ? undefined : (s.retriever ?? s.mode);
}

async function searchOnce(
  ctx: PipelineContext,
  kb: KnowledgeBase,
  s: OneShotSettings,
  mode: string,
): Promise<{ pool: EvidencePool; retrieval: PipelineResult['retrieval'] }> {
  const q = ctx.question;
  const result = await kb.search(q.question, { k: s.topk, mode, docIds: q.doc ? [q.doc] : undefined });
  ctx.trace({
    kind: 'search',
    by: 'oneshot',
    query: q.question,
    mode,
    hits: result.hits.map((h) => ({ id: h.fragmentId, doc: h.docId, score: h.score, via: h.via })),
    timings: result.timings,
  });
  const pool = buildPool([{ query: q.question, by: 'oneshot', hits: result.hits }], {
    kind: s.pool,
    caps: { ...PAPER_CAPS, total: s.poolChars },
    format: blockFormatOf(s),
    lookup: (id) => kb.fragment(id),
    docTitle: (id) => kb.title(id),
  });
  ctx.trace({ kind: 'pool', ...pool.stats });
  const slim = result.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page }));
  return {
    pool,
    retrieval: {
      firstSearch: result.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page, score: h.score })),
      searches: [{ query: q.question, by: 'oneshot', hits: slim }],
      poolText: pool.text,
      poolChars: pool.stats.chars,
      poolTrimmed: pool.stats.trimmed,
    },
  };
}

async function answerOneShot(ctx: PipelineContext, name: string, s: OneShotSettings, mode: string | undefined): Promise<PipelineResult> {
  const q = ctx.question;
  let searched: Awaited<ReturnType<typeof searchOnce>> | undefined;
  if (mode !== undefined) {
    if (!ctx.kb) {
      throw new KfError(
        'no_index',
        `pipeline ${name} needs an index but question ${q.id} has none`,
        'configure index settings in the experiment (or use S0 for closed book)',
        {
          concerns: q.id,
        },
      );
    }
    searched = await searchOnce(ctx, ctx.kb, s, mode);
  }
  const answered = await synthesizeAndCheck(ctx, { template: s.template, pool: searched?.pool });
  return {
    prediction: answered.prediction,
    finalAnswer: answered.finalAnswer,
    retrieval: searched?.retrieval,
    counters: { searches: mode === undefined ? 0 : 1, ...answered.counters },
  };
}

export function oneShotPipeline(name: string, description: string, s: OneShotSettings): Pipeline {
  const mode = searchMode(s);
  return {
    name,
    description,
    needsIndex: mode !== undefined,
    promptPack: packStamp(resolvePromptPack(s.prompts)),
    run: (ctx: PipelineContext) => inPromptPack(s.prompts, ctx, () => answerOneShot(ctx, name, s, mode)),
  };
}

export const oneShotFamily: PipelineSpec<typeof oneShotSettings> = {
  family: ONE_SHOT_FAMILY,
  description: 'one search (or none) -> typed evidence pool -> one synthesizer call -> one checker call',
  settings: oneShotSettings,
  needsIndex: (s) => searchMode(s) !== undefined,
  // The registry gives the pipeline its configuration row's description.
  create: (name, s) => oneShotPipeline(name, '', s),
};
