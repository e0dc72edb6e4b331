/**
 * The 'dualg' pipeline family (DualG-MRAG end to end): one DualG search
 * (retriever 'dualg' or an ablation), merged with a hybrid pool, the decoded
 * paths serialised step by step with their sources ahead of the pool in the
 * synthesizer prompt (unless `paths = false`, the "w/o path injection"
 * ablation), one synthesizer call and one checker call. The micro / macro
 * ablations are retrievers of their own ('dualg-no-micro', 'dualg-no-macro'),
 * so retrieval evaluation sees them too.
 */
import { z } from 'zod';
import { synthesizeAndCheck } from '../knowforge/answer';
import { buildPool, PAPER_CAPS } from '../knowforge/pool';
import { KB_LIMITS } from '../pipeline/knowledge-base';
import { getRetriever } from '../pipeline/retrievers';
import type { EvidencePath } from '../pipeline/ranked-evidence';
import type { PipelineSpec } from '../pipeline/spec';
import type { SearchHit } from '../index/types';
import type { Pipeline, PipelineContext, PipelineResult } from '../pipeline/types';
import { KfError } from '../util/errors';

export const DUALG_FAMILY = 'dualg';

export const dualgSettings = z.strictObject({
  /**
   * The DualG retriever searched (lib/dualg/retriever.ts): 'dualg-gnn' the paper's method (trained GNN),
   * 'dualg' the shipped default (scorer of index setting `scorer`, default the untrained heuristic), 'ppr',
   * or an ablation. The scorer that ranked is traced with every search.
   */
  retriever: z.enum(['dualg', 'dualg-gnn', 'ppr', 'dualg-no-micro', 'dualg-gnn-no-micro', 'dualg-no-macro']).default('dualg'),
  /** Hits of the DualG search. */
  topk: z.number().int().positive().max(KB_LIMITS.maxTopk).default(KB_LIMITS.searchTopk),
  /** Hybrid hits merged after the DualG hits (0 = none). */
  hybridK: z.number().int().min(0).max(KB_LIMITS.maxTopk).default(4),
  /** Inject the decoded paths into the prompt (false = the "w/o path injection" ablation). */
  paths: z.boolean().default(true),
  maxPaths: z.number().int().positive().max(20).default(5),
  template: z.enum(['ours', 'm3docrag', 'closed-book']).default('ours'),
  poolChars: z.number().int().positive().default(PAPER_CAPS.total),
});

export type DualgSettings = z.output<typeof dualgSettings>;

/** "Reasoning paths" section: each path verbalised step by step with the passage each step was read from. */
export function serialisePaths(paths: EvidencePath[], max: number): string {
  if (!paths.length) return '';
  const lines = paths.slice(0, max).map((p, i) => {
    const steps = p.steps.map((s) => `${s.from} -${s.relation}-> ${s.to}${s.source?.docId ? ` [${s.source.docId}]` : ''}`);
    return `${i + 1}. ${steps.join('; ')}`;
  });
  return `Reasoning paths found in the knowledge graph (entity -relation-> entity [source]):\n${lines.join('\n')}`;
}

function mergeHits(first: SearchHit[], second: SearchHit[]): SearchHit[] {
  const seen = new Set(first.map((h) => h.fragmentId));
  return [...first, ...second.filter((h) => !seen.has(h.fragmentId))].map((h, i) => ({ ...h, rank: i + 1 }));
}

async function retrieve(ctx: PipelineContext, s: DualgSettings) {
  const q = ctx.question;
  const kb = ctx.kb!;
  const docIds = q.doc ? [q.doc] : undefined;
  const ev = await kb.search(q.question, { k: s.topk, mode: s.retriever, docIds });
  ctx.trace({
    kind: 'search',
    by: 'dualg',
    query: q.question,
    mode: s.retriever,
    hits: ev.hits.map((h) => ({ id: h.fragmentId, doc: h.docId, score: h.score, via: h.via })),
    timings: ev.timings,
    notes: ev.notes,
    system: ev.system,
    paths: ev.paths?.slice(0, s.maxPaths),
  });
  const hybrid = s.hybridK ? (await kb.search(q.question, { k: s.hybridK, mode: 'hybrid', docIds })).hits : [];
  const hits = mergeHits(ev.hits, hybrid);
  const pool = buildPool([{ query: q.question, by: 'dualg', hits }], {
    kind: 'typed',
    caps: { ...PAPER_CAPS, total: s.poolChars },
    lookup: (id) => kb.fragment(id),
    docTitle: (id) => kb.title(id),
  });
  const pathText = s.paths ? serialisePaths(ev.paths ?? [], s.maxPaths) : '';
  if (pathText) pool.text = `${pathText}\n\n${pool.text}`;
  ctx.trace({ kind: 'pool', ...pool.stats, pathsInjected: pathText ? Math.min(s.maxPaths, ev.paths?.length ?? 0) : 0 });
  const slim = hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page }));
  const retrieval: PipelineResult['retrieval'] = {
    firstSearch: ev.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page, score: h.score })),
    searches: [{ query: q.question, by: ev.system?.label ? `dualg: ${ev.system.label}` : 'dualg', hits: slim }],
    poolText: pool.text,
    poolChars: pool.text.length,
    poolTrimmed: pool.stats.trimmed,
  };
  return { pool, retrieval };
}

export function dualgPipeline(name: string, description: string, s: DualgSettings): Pipeline {
  return {
    name,
    description,
    needsIndex: true,
    async run(ctx: PipelineContext): Promise<PipelineResult> {
      const q = ctx.question;
      if (!ctx.kb)
        throw new KfError('no_index', `pipeline ${name} needs an index but question ${q.id} has none`, 'configure index settings in the experiment', {
          concerns: q.id,
        });
      const { pool, retrieval } = await retrieve(ctx, s);
      const answered = await synthesizeAndCheck(ctx, { template: s.template, pool });
      return {
        prediction: answered.prediction,
        finalAnswer: answered.finalAnswer,
        retrieval,
        counters: { searches: s.hybridK ? 2 : 1, ...answered.counters },
      };
    },
  };
}

/** What a DualG configuration runs, for the run manifest (the checkpoint's identity is traced with each search). */
export function describe(s: DualgSettings): string {
  const retriever = getRetriever(s.retriever)?.description ?? s.retriever;
  const paths = s.paths ? `up to ${s.maxPaths} decoded paths injected` : 'no path injection (the w/o Path ablation)';
  return `DualG-MRAG, retriever ${s.retriever}: ${retriever}; ${paths}; ${s.hybridK} hybrid hits merged`;
}

export const dualgFamily: PipelineSpec<typeof dualgSettings> = {
  family: DUALG_FAMILY,
  description: 'DualG-MRAG: graph retrieval (+ hybrid pool) -> paths serialised into the prompt -> synthesizer -> checker',
  settings: dualgSettings,
  needsIndex: () => true,
  artifacts: () => ['dualg-graph'],
  create: (name, s) => dualgPipeline(name, describe(s), s),
};
