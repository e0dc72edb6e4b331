/**
 * KnowForge configurations as runnable pipelines. This file holds the one-shot
 * baselines (spec "Configurations"):
 *   S0    closed book (no retrieval)
 *   S1    dense-only, one search
 *   S3    dense + BM25, one search
 *   S4v1  hybrid + graph expansion, one search, our synthesizer prompt
 *   S4    the same with an answer template in the style of the M3DocRAG baseline
 * Each: (one search) -> typed pool -> one synthesizer call -> one checker call.
 * The agent configurations (M4, M5, P0, P1, L+R sweeps) reuse the same pool,
 * synthesizer and checker.
 */
import type { RetrievalMode } from '../index/types';
import type { Pipeline, PipelineContext, PipelineResult } from '../run/types';
import { KfError } from '../util/errors';
import { checkFormat } from './checker';
import { buildPool, type EvidencePool, PAPER_CAPS } from './pool';
import { synthesize, type SynthTemplate } from './synthesizer';

export interface OneShotSpec {
  name: string;
  description: string;
  /** Retrieval mode of the single search; 'none' = closed book. */
  mode: RetrievalMode | 'none';
  template: SynthTemplate;
}

export const ONE_SHOT: readonly OneShotSpec[] = [
  { name: 'S0', description: 'closed book (no retrieval)', mode: 'none', template: 'closed-book' },
  { name: 'S1', description: 'dense only, one shot', mode: 'dense', template: 'ours' },
  { name: 'S3', description: 'dense + BM25, one shot', mode: 'hybrid', template: 'ours' },
  { name: 'S4v1', description: 'dense + BM25 + graph, one shot, our prompt', mode: 'hybrid+graph', template: 'ours' },
  { name: 'S4', description: 'dense + BM25 + graph, one shot, M3DocRAG-style answer template', mode: 'hybrid+graph', template: 'm3docrag' },
];

function num(settings: Record<string, unknown>, key: string, dflt: number): number {
  const v = settings[key];
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new KfError('bad_setting', `pipeline setting ${key} must be a positive number, got ${JSON.stringify(v)}`, `fix pipeline.settings.${key} in the experiment config`, { concerns: key });
  }
  return v;
}

export function oneShotPipeline(spec: OneShotSpec): Pipeline {
  return {
    name: spec.name,
    description: spec.description,
    needsIndex: spec.mode !== 'none',
    async run(ctx: PipelineContext): Promise<PipelineResult> {
      const q = ctx.question;
      const s = ctx.settings;
      let pool: EvidencePool | undefined;
      let retrieval: PipelineResult['retrieval'];
      const template = (s.template as SynthTemplate | undefined) ?? spec.template;
      if (spec.mode !== 'none') {
        if (!ctx.retriever) {
          throw new KfError('no_index', `pipeline ${spec.name} needs an index but question ${q.id} has none`, 'configure index settings in the experiment (or use S0 for closed book)', { concerns: q.id });
        }
        const topk = num(s, 'topk', 8);
        const result = await ctx.retriever.search(q.question, { topk, mode: spec.mode, docIds: q.doc ? [q.doc] : undefined });
        ctx.trace({ kind: 'search', by: 'oneshot', query: q.question, mode: spec.mode, hits: result.hits.map((h) => ({ id: h.fragmentId, doc: h.docId, score: h.score, via: h.via })), timings: result.timings });
        pool = buildPool([{ query: q.question, by: 'oneshot', hits: result.hits }], {
          kind: (s.pool as 'typed' | 'plain' | undefined) ?? 'typed',
          caps: { ...PAPER_CAPS, total: num(s, 'poolChars', PAPER_CAPS.total) },
          lookup: ctx.fragment,
          docTitle: ctx.docTitle,
        });
        ctx.trace({ kind: 'pool', ...pool.stats });
        const slim = result.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page }));
        retrieval = {
          firstSearch: result.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page, score: h.score })),
          searches: [{ query: q.question, by: 'oneshot', hits: slim }],
          poolText: pool.text,
          poolChars: pool.stats.chars,
          poolTrimmed: pool.stats.trimmed,
        };
      }
      const synth = await synthesize(ctx.model('synth'), { question: q, convention: ctx.convention, template, pool }, ctx.signal);
      ctx.trace({ kind: 'synth', text: synth.text, final: synth.final, cacheHit: synth.response.cacheHit });
      const checked = await checkFormat(ctx.model('checker'), { question: q, convention: ctx.convention, answerText: synth.text }, ctx.signal);
      ctx.trace({ kind: 'checker', final: checked.final, changed: checked.changed, parseError: checked.parseError, raw: checked.response.text });
      return {
        prediction: checked.text,
        finalAnswer: checked.final,
        retrieval,
        counters: { searches: spec.mode === 'none' ? 0 : 1, synthCalls: 1, checkerCalls: 1, checkerRewrites: checked.changed ? 1 : 0, checkerParseErrors: checked.parseError ? 1 : 0 },
      };
    },
  };
}

/** Every KnowForge configuration implemented so far, by name. */
export function knowforgePipelines(): Record<string, Pipeline> {
  const out: Record<string, Pipeline> = {};
  for (const spec of ONE_SHOT) out[spec.name] = oneShotPipeline(spec);
  return out;
}

/** Register every KnowForge configuration with the runner's registry (called lazily by lib/run/registry.ts). */
export function registerKnowforge(register: (name: string, factory: (settings: Record<string, unknown>) => Pipeline, opts?: { description?: string; family?: string }) => void): void {
  for (const spec of ONE_SHOT) register(spec.name, () => oneShotPipeline(spec), { description: spec.description, family: 'knowforge' });
}
