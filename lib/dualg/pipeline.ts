/**
 * The 'dualg' pipeline family (DualG-MRAG end to end): the query pattern from
 * the `pattern` stage (conditions + visual budget k_v; offline, the rule
 * stand-in answers and is labelled), one DualG search (retriever 'dualg-gnn' or
 * an ablation) with those conditions, then the generator: with `generator =
 * "paper"` the decoded paths with their source snippets (unless `paths =
 * false`, the "w/o path injection" ablation) and up to k_v raw images as image
 * parts to the generator (a VLM) in one unified prompt, answered in the
 * benchmark's form (paper-generator.ts); `generator = "checked"` sends the same
 * through KnowForge's synthesizer and checker, `generator = "text"` is the
 * earlier text-only variant (path lines, no images), both labelled variants. Optional hybrid hits are merged after the DualG hits (hybridK; 0 in
 * the paper's rows). The micro / macro ablations are retrievers of their own
 * ('dualg-no-micro', 'dualg-no-macro'), so retrieval evaluation sees them too.
 */
import { RULE_PARTS_NOTE } from './stage-defaults';
import { z } from 'zod';
import { synthesizeAndCheck } from '../answer/answer';
import { buildPool, PAPER_CAPS } from '../answer/pool';
import { KB_LIMITS } from '../pipeline/knowledge-base';
import { getRetriever } from '../pipeline/retrievers';
import type { RankedEvidence } from '../pipeline/ranked-evidence';
import { evidencePaths, type EvidencePath } from './paths/evidence-path';
import { withPattern } from './query/search-pattern';
import type { PipelineSpec } from '../pipeline/spec';
import type { SearchHit } from '../index/types';
import type { Pipeline, PipelineContext, PipelineResult } from '../pipeline/types';
import { KfError } from '../util/errors';
import { ANSWER_FORMS } from './answer-form';
import { GENERATORS, GENERATOR_LABEL, MAX_IMAGE_BYTES, pathSection, rawImages, type ImagePart } from './generate';
import { generateAsPaper } from './paper-generator';
import { ensureImageInput } from './image-probe';
import { parseQueryPattern, patternEntities, RULES_AFTER_MODEL, type QueryPattern } from './query/pattern-stage';

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
  /** Hybrid hits merged after the DualG hits (0 = none, as the paper: its generator reads the graph's evidence only). */
  hybridK: z.number().int().min(0).max(KB_LIMITS.maxTopk).default(0),
  /**
   * 'paper': the unified prompt over path snippets + raw images up to k_v (paper-generator.ts); 'checked': the
   * same snippets and images through KnowForge's synthesizer, guardrail and checker; 'text': text-only path
   * lines, no images. The last two are labelled variants.
   */
  generator: z.enum(GENERATORS).default('paper'),
  /** The paper generator's answer form: 'short' (MMQA, EM/F1), 'sentence' (WebQA, ROUGE-L), 'choice' (ScienceQA). */
  answerForm: z.enum(ANSWER_FORMS).default('short'),
  /** WebQA (paper C.2): the model judges the question's complexity; simple ones get no path section. */
  complexityCheck: z.boolean().default(false),
  /** ScienceQA (paper C.2): answers with and without retrieval, the model keeps the more logical. */
  candidates: z.boolean().default(false),
  /** Paper generator: append KnowForge's guardrail of the convention (not the paper; only where an experiment asks). */
  guardrail: z.boolean().default(false),
  /** Paper generator: run KnowForge's format checker on the answer (not the paper; only where an experiment asks). */
  checker: z.boolean().default(false),
  /** Upper bound of the visual budget k_v the pattern parser may ask for. */
  maxImages: z.number().int().min(0).max(16).default(4),
  /** Largest image file sent (bytes); a larger one is skipped and traced (generate.ts MAX_IMAGE_BYTES says why 4 MiB). */
  maxImageBytes: z.number().int().positive().default(MAX_IMAGE_BYTES),
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

/** P(q) from the pattern stage; offline its rule stand-in answers (labelled by `by`). */
async function queryPattern(ctx: PipelineContext, s: DualgSettings): Promise<QueryPattern> {
  const p = await parseQueryPattern(ctx.model('pattern'), ctx.question.question, { maxImages: s.maxImages, questionId: ctx.question.id, signal: ctx.signal });
  ctx.trace({
    kind: 'pattern',
    by: p.by,
    conditions: p.conditions,
    target: p.target,
    visualBudget: p.visualBudget,
    ...(p.departure ? { departure: p.departure } : {}),
  });
  return p;
}

/** The prompt's path section: none for w/o Path (the paths are never read), snippets for the paper's generator. */
function pathsText(ev: RankedEvidence, hits: SearchHit[], kb: NonNullable<PipelineContext['kb']>, s: DualgSettings): { text: string; injected: number } {
  if (!s.paths) return { text: '', injected: 0 };
  const paths = evidencePaths(ev) ?? [];
  const text = s.generator !== 'text' ? pathSection(paths, hits, kb, s.maxPaths) : serialisePaths(paths, s.maxPaths);
  return { text, injected: text ? Math.min(s.maxPaths, paths.length) : 0 };
}

async function retrieve(ctx: PipelineContext, s: DualgSettings) {
  const q = ctx.question;
  const kb = ctx.kb!;
  const docIds = q.doc ? [q.doc] : undefined;
  const pattern = await queryPattern(ctx, s);
  const ev = await kb.search(q.question, {
    k: s.topk,
    mode: s.retriever,
    docIds,
    extra: withPattern({
      conditions: pattern.conditions,
      by: pattern.by,
      // The offline stand-in names at most three entities: the searcher's own rule NER (all of them) is used instead.
      ...(pattern.offline || pattern.by === RULES_AFTER_MODEL ? {} : { entities: patternEntities(pattern.conditions) }),
    }),
  });
  ctx.trace({
    kind: 'search',
    by: 'dualg',
    query: q.question,
    mode: s.retriever,
    hits: ev.hits.map((h) => ({ id: h.fragmentId, doc: h.docId, score: h.score, via: h.via })),
    timings: ev.timings,
    notes: ev.notes,
    system: ev.system,
    ...(s.paths ? { paths: evidencePaths(ev)?.slice(0, s.maxPaths) } : {}),
  });
  const hybrid = s.hybridK ? (await kb.search(q.question, { k: s.hybridK, mode: 'hybrid', docIds })).hits : [];
  const hits = mergeHits(ev.hits, hybrid);
  const pool = buildPool([{ query: q.question, by: 'dualg', hits }], {
    kind: 'typed',
    caps: { ...PAPER_CAPS, total: s.poolChars },
    lookup: (id) => kb.fragment(id),
    docTitle: (id) => kb.title(id),
  });
  const paths = pathsText(ev, hits, kb, s);
  // The paper's unified prompt has its own path section; the variants read the paths as the pool's head.
  if (paths.text && s.generator !== 'paper') pool.text = `${paths.text}\n\n${pool.text}`;
  const raw = s.generator !== 'text' ? rawImages(hits, s.paths ? (evidencePaths(ev) ?? []) : [], kb, pattern.visualBudget, s.maxImageBytes) : undefined;
  const images = raw?.images ?? [];
  ctx.trace({
    kind: 'pool',
    ...pool.stats,
    pathsInjected: paths.injected,
    images: images.map((i) => i.fragmentId),
    visualBudget: pattern.visualBudget,
    ...(raw?.oversized.length ? { imagesOversized: raw.oversized } : {}),
    ...(raw?.missing.length ? { imagesMissing: raw.missing } : {}),
  });
  const slim = hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page }));
  const system = systemOf(ev.system, s, pattern.by);
  const retrieval: PipelineResult['retrieval'] = {
    firstSearch: ev.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page, score: h.score })),
    searches: [{ query: q.question, by: `dualg: ${system.label}`, hits: slim }],
    poolText: paths.text && s.generator === 'paper' ? `${paths.text}\n\n${pool.text}` : pool.text,
    poolChars: pool.text.length + (s.generator === 'paper' ? paths.text.length : 0),
    poolTrimmed: pool.stats.trimmed,
  };
  const departures = dualgDepartures(ev.notes ?? [], { patternOffline: !!pattern.offline, system, hybridAdded: hits.length - ev.hits.length });
  if (pattern.departure) departures.push(`DualG: ${pattern.departure}`);
  return { pool, retrieval, system, pattern, pathsText: paths.text, images: images.map((i) => i.part) as ImagePart[], departures };
}

/** This question's departures from the paper's DualG-MRAG (lib/run/departures.ts counts them per run). */
function dualgDepartures(
  notes: readonly string[],
  o: { patternOffline: boolean; system: NonNullable<RankedEvidence['system']>; hybridAdded: number },
): string[] {
  const out: string[] = [];
  const rules = notes.find((n) => n.startsWith(RULE_PARTS_NOTE));
  if (rules) out.push(`DualG: ${rules.slice(RULE_PARTS_NOTE.length)} from offline rules, not model stages`);
  if (notes.some((n) => /fell back to hybrid/.test(n))) out.push('DualG: answered from hybrid fallback (nothing linkable for the graph)');
  if (notes.some((n) => /^one document:/.test(n))) out.push('DualG: single-document bypass (hybrid plus micro matches, no graph)');
  if (o.hybridAdded > 0) out.push('DualG: evidence pool topped up with hybrid hits');
  if (o.patternOffline) out.push('DualG: query pattern parsed by offline rules, not a model');
  if (o.system.scorer === 'heuristic') out.push('DualG: untrained heuristic graph scorer instead of the trained GNN');
  return out;
}

/**
 * The row's identity: the retriever's (scorer, checkpoint, removed parts), what the pipeline removed (path
 * injection), which generator wrote the prompt and who parsed the query pattern.
 */
function systemOf(retriever: RankedEvidence['system'], s: DualgSettings, patternBy: string): NonNullable<RankedEvidence['system']> {
  const base = retriever ?? { label: `retriever ${s.retriever}` };
  const removed = [...(Array.isArray(base.removed) ? (base.removed as string[]) : []), ...(s.paths ? [] : ['path injection'])];
  const label = [base.label, ...(s.paths ? [] : ['without path injection']), GENERATOR_LABEL[s.generator]].join('; ');
  return { ...base, removed, generator: s.generator, pattern: patternBy, label };
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
      // A row that sends images checks once per endpoint that the synth model takes them, before any other call.
      if (s.generator !== 'text' && s.maxImages > 0) await ensureImageInput(ctx.model('synth'));
      const { pool, retrieval, system, images, pattern, pathsText: paths, departures } = await retrieve(ctx, s);
      const answered =
        s.generator === 'paper'
          ? await generateAsPaper(ctx, s, { pool, paths, images })
          : await synthesizeAndCheck(ctx, { template: s.template, pool, ...(images.length ? { images } : {}) });
      return {
        prediction: answered.prediction,
        finalAnswer: answered.finalAnswer,
        retrieval,
        counters: {
          searches: s.hybridK ? 2 : 1,
          patternCalls: pattern.calls,
          patternFallbacks: pattern.departure ? 1 : 0,
          imagesSent: images.length,
          ...answered.counters,
        },
        system: pattern.departure ? { ...system, departures: [pattern.departure] } : system,
        ...(departures.length ? { departures } : {}),
      };
    },
  };
}

/** What a DualG configuration runs, for the run manifest (the checkpoint's identity is traced with each search). */
export function describe(s: DualgSettings): string {
  const retriever = getRetriever(s.retriever)?.description ?? s.retriever;
  const paths = s.paths ? `up to ${s.maxPaths} decoded paths injected` : 'no path injection (the w/o Path ablation)';
  const extras =
    s.generator === 'paper'
      ? [
          `answer form ${s.answerForm}`,
          ...(s.complexityCheck ? ['complexity self-check (simple questions bypass the paths)'] : []),
          ...(s.candidates ? ['two candidates (with / without retrieval), the model keeps one'] : []),
          ...(s.guardrail ? ["KnowForge's guardrail appended (not the paper)"] : []),
          ...(s.checker ? ["KnowForge's format checker (not the paper)"] : []),
        ]
      : [];
  return [`DualG-MRAG, retriever ${s.retriever}: ${retriever}`, paths, GENERATOR_LABEL[s.generator], ...extras, `${s.hybridK} hybrid hits merged`].join('; ');
}

export const dualgFamily: PipelineSpec<typeof dualgSettings> = {
  family: DUALG_FAMILY,
  description: 'DualG-MRAG: graph retrieval (+ hybrid pool) -> paths serialised into the prompt -> synthesizer -> checker',
  settings: dualgSettings,
  needsIndex: () => true,
  artifacts: () => ['dualg-graph'],
  create: (name, s) => dualgPipeline(name, describe(s), s),
};
