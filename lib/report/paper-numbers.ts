/**
 * The papers' published numbers, as data, so a notebook can draw them as a
 * reference series beside the harness's own runs ("paper: 47.5" next to "this
 * run: 31.2"). Every number names its paper, table, model and benchmark: a
 * reader must never mistake a published number for one the harness measured.
 *
 * Sources: /work/shared/docs/spec-knowforge.md "Headline numbers" and the
 * paper's Tables 6-10 (KnowForge, Qwen3.6-35B-A3B unless the model says
 * otherwise); spec-dualg.md "Evaluation and headline numbers" and the paper's
 * Tables 1-3 (DualG-MRAG, Qwen3-VL-4B unless noted); the peers' all-found share
 * on 2Wiki from spec-dualg.md "Related public anchors".
 */

import { loadedPlugins } from '../pipeline/plugins';
import type { PublishedNumber } from '../pipeline/published-number';

export type PaperId = 'knowforge' | 'dualg-mrag' | 'gfm-rag' | 'fast-graphrag';

/** A number of the two papers (and their anchors) this harness reproduces; a plug-in declares its own (Plugin.publishedNumbers). */
export interface PaperNumber extends PublishedNumber {
  paper: PaperId;
  /** Where in the paper: 'Table 6', 'headline', ... */
  source: string;
  /** The system or configuration: 'M5', 'M3DocRAG', 'DualG-MRAG', ... */
  system: string;
  /** The generator / reader model the number was measured with. */
  model: string;
  benchmark: string;
  /** Metric name as the harness spells it where possible: f1, em, acc, R@2, ... (x100). */
  metric: string;
  value: number;
}

const KF_MODEL = 'Qwen3.6-35B-A3B';
const DG_MODEL = 'Qwen3-VL-4B';

function kf(source: string, system: string, benchmark: string, metric: string, value: number, model = KF_MODEL): PaperNumber {
  return { paper: 'knowforge', source, system, model, benchmark, metric, value };
}

function dg(source: string, system: string, benchmark: string, metric: string, value: number, model = DG_MODEL): PaperNumber {
  return { paper: 'dualg-mrag', source, system, model, benchmark, metric, value };
}

/** KnowForge: main comparison, transfer, ablations, round sweep, retrieval, cost. */
const KNOWFORGE: PaperNumber[] = [
  // M3DocVQA F1 / EM (full set, Table 6 and headline).
  ...(
    [
      ['S0', 32.2, 26.8],
      ['S1', 39.7, 32.8],
      ['S3', 40.6, 33.3],
      ['S4v1', 40.2, 33.3],
      ['S4', 40.4, 33.1],
      ['M4', 45.6, 37.7],
      ['M5', 47.5, 39.5],
      ['M5VEC', 45.0, 37.3],
      ['M5S3', 47.0, 38.9],
      ['P0', 45.6, 38.0],
      ['P1', 43.7, 35.8],
    ] as const
  ).flatMap(([s, f1, em]) => [kf('Table 6', s, 'm3docvqa', 'f1', f1), kf('Table 6', s, 'm3docvqa', 'em', em)]),
  kf('Table 6', 'M5OFF', 'm3docvqa', 'f1', 46.1),
  kf('Table 6', 'M5', 'm3docvqa', 'f1', 53.5, 'DeepSeek-V4-Flash'),
  kf('Table 6', 'M5', 'm3docvqa', 'em', 44.6, 'DeepSeek-V4-Flash'),
  kf('Table 6', 'M4', 'm3docvqa', 'f1', 50.8, 'DeepSeek-V4-Flash'),
  kf('Table 6', 'S0', 'm3docvqa', 'f1', 43.0, 'DeepSeek-V4-Flash'),
  kf('Table 6', 'S0', 'm3docvqa', 'f1', 22.0, 'Qwen2-VL-7B'),
  kf('Table 6', 'S4', 'm3docvqa', 'f1', 38.0, 'Qwen2-VL-7B'),
  kf('headline', 'M3DocRAG', 'm3docvqa', 'f1', 36.5, 'ColPali + Qwen2-VL-7B'),
  kf('headline', 'M3DocRAG', 'm3docvqa', 'em', 31.4, 'ColPali + Qwen2-VL-7B'),
  // MultiHop-RAG accuracy and MMLongBench-Doc judge accuracy (transfer).
  ...(
    [
      ['S4', 68.2],
      ['1+1', 70.8],
      ['M5', 73.5],
      ['P1', 74.1],
    ] as const
  ).map(([s, v]) => kf('headline', s, 'multihop-rag', 'acc', v)),
  kf('headline', 'best published RAG/GraphRAG', 'multihop-rag', 'acc', 71.2, 'Llama-3.1-70B'),
  kf('headline', 'GPT-4 baseline', 'multihop-rag', 'acc', 56.0, 'GPT-4'),
  ...(
    [
      ['S4', 34.8],
      ['1+1', 41.5],
      ['M5', 47.0],
      ['P1', 37.2],
    ] as const
  ).map(([s, v]) => kf('headline', s, 'mmlongbench-doc', 'acc', v)),
  kf('headline', 'GPT-4o (page images)', 'mmlongbench-doc', 'acc', 46.3, 'GPT-4o'),
  // Retrieval of M5 on M3DocVQA (first search R@k, all searches).
  ...(
    [
      ['R@1', 57.2],
      ['R@3', 72.7],
      ['R@8', 78.8],
      ['R@all', 91.6],
      ['docFound', 84.6],
      ['answerVisible', 77.2],
    ] as const
  ).map(([m, v]) => kf('headline', 'M5', 'm3docvqa', m, v)),
  ...(
    [
      ['S1', 53.5, 72.5, 80.3],
      ['S3', 56.3, 77.4, 84.5],
      ['S4', 56.3, 75.0, 82.0],
      ['M5VEC', 51.1, 66.3, 72.5],
      ['M5S3', 57.3, 74.9, 80.7],
    ] as const
  ).flatMap(([s, r1, r3, r8]) => [kf('Table 6', s, 'm3docvqa', 'R@1', r1), kf('Table 6', s, 'm3docvqa', 'R@3', r3), kf('Table 6', s, 'm3docvqa', 'R@8', r8)]),
  // Round-cap sweep (mid300 F1; 4+4 is the mean of three runs 51.1/50.7/50.9 as reported).
  ...(
    [
      ['0+0', 43.1],
      ['1+1', 46.4],
      ['2+2', 46.7],
      ['3+3', 46.2],
      ['4+4', 50.9],
      ['5+5', 49.2],
      ['6+6', 50.6],
    ] as const
  ).map(([s, v]) => kf('round sweep', s, 'm3docvqa-mid300', 'f1', v)),
  ...(
    [
      ['4+4 run 1', 51.1],
      ['4+4 run 2', 50.7],
      ['4+4 run 3', 50.9],
    ] as const
  ).map(([s, v]) => kf('Appendix B noise', s, 'm3docvqa-mid300', 'f1', v)),
  // Latency and index construction cost.
  kf('headline', 'M5', 'm3docvqa', 'serialP50s', 27.3),
  kf('headline', 'M5', 'm3docvqa', 'modelCallsPerQ', 9),
  kf('Appendix D', 'index', 'm3docvqa', 'tokensM', 138),
  kf('Appendix D', 'index', 'm3docvqa', 'embeddingsK', 202),
  kf('Appendix D', 'index', 'm3docvqa', 'ocrPagesK', 17.2),
  kf('Appendix D', 'index', 'm3docvqa', 'hours', 12),
  kf('Appendix D', 'index', 'mmlongbench-doc', 'tokensM', 20),
  kf('Appendix D', 'index', 'multihop-rag', 'tokensM', 3.1),
  // Retrieval round at 200K fragments (ms per stage).
  ...(
    [
      ['embed', 40],
      ['bm25', 18],
      ['hnsw', 8],
      ['expansion', 45],
      ['context', 30],
    ] as const
  ).map(([m, v]) => kf('§3.1', 'one retrieval round', '200K fragments', `${m}Ms`, v)),
];

/** ScienceQA buckets in the paper's column order (Table 2). */
export const SCIENCEQA_BUCKETS = ['NAT', 'SOC', 'LAN', 'TXT', 'IMG', 'NO', 'G1-6', 'G7-12', 'avg'] as const;

/** DualG-MRAG: Table 1 (QA), Table 2 (ScienceQA), retrieval, latency, Table 3 (ablations). */
const DUALG: PaperNumber[] = [
  ...(
    [
      ['Base LLM (no retrieval)', 18.8, 21.18, 45.16, 67.64],
      ['VisRAG', 27.8, 30.33, 47.25, 69.14],
      ['VLM2Vec-V2.0', 31.1, 34.88, 48.31, 69.73],
      ['CoRe-MMRAG', 30.6, 34.02, 47.16, 65.72],
      ['ViDoRAG', 37.2, 41.77, 48.54, 66.03],
      ['HM-RAG', 34.3, 39.05, 45.44, 67.96],
      ['MMGraphRAG', 35.5, 39.42, 48.6, 70.08],
      ['DualG-MRAG', 44.2, 47.57, 50.1, 70.58],
    ] as const
  ).flatMap(([s, em, f1, rl, bs]) => [
    dg('Table 1', s, 'mmqa', 'em', em),
    dg('Table 1', s, 'mmqa', 'f1', f1),
    dg('Table 1', s, 'webqa', 'rougeL', rl),
    dg('Table 1', s, 'webqa', 'bertscore', bs),
  ]),
  dg('Table 1', 'DualG-MRAG', 'mmqa', 'em', 46.0, 'Qwen3-VL-8B'),
  dg('Table 1', 'DualG-MRAG', 'mmqa', 'f1', 51.19, 'Qwen3-VL-8B'),
  // ScienceQA (Qwen3-VL-8B generator) by subject, context and grade.
  ...(
    [
      ['Human', [90.23, 84.97, 87.48, 89.6, 87.5, 88.1, 91.59, 82.42, 88.4]],
      ['GPT-4 (CoT)', [85.48, 72.44, 90.27, 82.65, 71.49, 92.89, 86.66, 79.04, 83.99]],
      ['Qwen3-VL-8B (zero-shot)', [87.83, 95.73, 85.82, 85.8, 90.48, 88.57, 91.37, 84.64, 88.96]],
      ['VLM2Vec-V2.0', [87.83, 90.66, 86.64, 85.8, 88.1, 89.41, 89.83, 85.04, 88.12]],
      ['HM-RAG', [89.21, 92.58, 85.91, 91.0, 88.84, 88.29, 91.19, 85.23, 89.06]],
      ['DualG-MRAG', [90.36, 96.18, 88.09, 90.75, 91.52, 90.38, 92.73, 87.87, 90.99]],
    ] as const
  ).flatMap(([s, vs]) => SCIENCEQA_BUCKETS.map((b, i) => dg('Table 2', s, 'scienceqa', `acc:${b}`, vs[i], 'Qwen3-VL-8B'))),
  // Retrieval R@2 / R@5.
  dg('headline', 'DualG-MRAG', 'mmqa', 'R@2', 49.4),
  dg('headline', 'DualG-MRAG', 'mmqa', 'R@5', 61.9),
  dg('headline', 'MMGraphRAG', 'mmqa', 'R@2', 31.8),
  dg('headline', 'MMGraphRAG', 'mmqa', 'R@5', 42.1),
  dg('headline', 'DualG-MRAG', 'webqa', 'R@2', 37.0),
  dg('headline', 'DualG-MRAG', 'webqa', 'R@5', 58.2),
  dg('headline', 'VLM2Vec-V2.0', 'webqa', 'R@2', 38.1),
  // Latency per query (retrieval) and its breakdown.
  dg('Figure 5', 'DualG-MRAG', 'mmqa', 'secondsPerQuery', 0.44),
  dg('Figure 5', 'VLM2Vec-V2.0', 'mmqa', 'secondsPerQuery', 0.09),
  dg('Figure 5', 'MMGraphRAG', 'mmqa', 'secondsPerQuery', 40.5),
  dg('Figure 5', 'DualG-MRAG', 'mmqa', 'share:micro-matching', 59.95),
  dg('Figure 5', 'DualG-MRAG', 'mmqa', 'share:macro reasoning', 39.4),
  // Ablations (MMQA, Qwen3-VL-4B): R@2, R@5, EM, F1.
  ...(
    [
      ['full', 49.4, 61.9, 44.2, 47.6],
      ['w/o path injection', 49.4, 61.9, 41.8, 46.2],
      ['w/o micro graph', 43.1, 54.3, 35.3, 39.4],
      ['w/o macro graph', 16.4, 21.8, 24.2, 26.7],
    ] as const
  ).flatMap(([s, r2, r5, em, f1]) => [
    dg('Table 3', s, 'mmqa', 'R@2', r2),
    dg('Table 3', s, 'mmqa', 'R@5', r5),
    dg('Table 3', s, 'mmqa', 'em', em),
    dg('Table 3', s, 'mmqa', 'f1', f1),
  ]),
];

/** Other systems on the 2Wiki questions shipped in ../shared/bench/text-multihop. */
const ANCHORS: PaperNumber[] = [
  ...(
    [
      ['HotpotQA', 81.5, 89.6],
      ['MuSiQue', 50.0, 59.3],
      ['2Wiki', 90.1, 93.6],
    ] as const
  ).flatMap(([b, r2, r5]) => [
    { paper: 'gfm-rag' as const, source: 'GFM-RAG paper', system: 'GFM-RAG', model: 'GFM retriever', benchmark: b.toLowerCase(), metric: 'R@2', value: r2 },
    { paper: 'gfm-rag' as const, source: 'GFM-RAG paper', system: 'GFM-RAG', model: 'GFM retriever', benchmark: b.toLowerCase(), metric: 'R@5', value: r5 },
  ]),
  ...(
    [
      ['vectordb', 42],
      ['lightrag', 45],
      ['nano-graphrag', 73],
      ['fast-graphrag', 93],
    ] as const
  ).map(([s, v]) => ({
    paper: 'fast-graphrag' as const,
    source: 'fast-graphrag benchmark (101 questions)',
    system: s,
    model: 'as published',
    benchmark: '2wiki',
    metric: 'allFound@8',
    value: v,
  })),
];

export const PAPER_NUMBERS: readonly PaperNumber[] = [...KNOWFORGE, ...DUALG, ...ANCHORS];

export interface PaperQuery {
  /** A built-in paper, or a plug-in's (its publishedNumbers). */
  paper?: PaperId | (string & {});
  benchmark?: string;
  metric?: string;
  system?: string;
  /** Model filter; default: the paper's main model (Qwen3.6 for KnowForge, Qwen3-VL-4B / -8B as published for DualG-MRAG). */
  model?: string;
  source?: string;
}

/** Published numbers matching every given field: the built-in papers', then the loaded plug-ins'. */
export function paperNumbers(q: PaperQuery = {}): PublishedNumber[] {
  return [...PAPER_NUMBERS, ...loadedPlugins().flatMap((p) => p.publishedNumbers ?? [])].filter(
    (n) =>
      (q.paper === undefined || n.paper === q.paper) &&
      (q.benchmark === undefined || n.benchmark === q.benchmark) &&
      (q.metric === undefined || n.metric === q.metric) &&
      (q.system === undefined || n.system === q.system) &&
      (q.model === undefined || n.model === q.model) &&
      (q.source === undefined || n.source === q.source),
  );
}

/** One published number, or null (a notebook draws a gap, never a made-up value). */
export function paperValue(q: PaperQuery & { system: string; metric: string }): number | null {
  const hits = paperNumbers(q);
  const main = hits.find((h) => h.model === KF_MODEL || h.model === DG_MODEL) ?? hits[0];
  return main ? main.value : null;
}

/** The legend label of a reference series: "paper (KnowForge, Qwen3.6-35B-A3B)". */
export function paperLabel(paper: PaperId | (string & {}), model?: string): string {
  const names: Record<string, string> = {
    knowforge: 'KnowForge',
    'dualg-mrag': 'DualG-MRAG',
    'gfm-rag': 'GFM-RAG',
    'fast-graphrag': 'fast-graphrag benchmark',
  };
  const name = names[paper] ?? paper;
  return `published (${name}${model ? `, ${model}` : ''})`;
}

/**
 * The published value per category for a reference series: `systems[i]` is the
 * paper's name for category i (null where the paper has no such number).
 */
export function paperSeries(
  q: PaperQuery & { metric: string },
  systems: (string | null)[],
): { name: string; values: (number | null)[]; published?: { benchmark: string } } {
  const values = systems.map((s) => (s === null ? null : paperValue({ ...q, system: s })));
  const first = systems.map((s) => (s === null ? undefined : paperNumbers({ ...q, system: s })[0])).find(Boolean);
  // Where the numbers were measured (benchmark and subset, e.g. m3docvqa-mid300): figures draw them beside ours only there.
  const benchmark = q.benchmark ?? first?.benchmark;
  return { name: paperLabel(q.paper ?? first?.paper ?? 'knowforge', q.model ?? first?.model), values, ...(benchmark ? { published: { benchmark } } : {}) };
}

/** KnowForge Appendix D (Table 9): one-time index construction cost per corpus, as published. */
export const PAPER_INDEX_COST: readonly Record<string, string | number>[] = [
  {
    corpus: 'm3docvqa',
    source: 'paper (Appendix D)',
    documents: 3368,
    markdownChars: 57.7e6,
    images: 12556,
    ocrPages: 17223,
    embeddings: 201957,
    preprocessingTokens: 44.3e6,
    extractionTokensText: 72.1e6,
    extractionTokensMultimodal: 21.7e6,
    totalTokens: 138e6,
    wallSeconds: 12 * 3600,
  },
  {
    corpus: 'mmlongbench-doc',
    source: 'paper (Appendix D)',
    documents: 135,
    markdownChars: 11.8e6,
    images: 7189,
    ocrPages: 3657,
    embeddings: 34234,
    preprocessingTokens: 8.4e6,
    extractionTokensText: 6.7e6,
    extractionTokensMultimodal: 5.2e6,
    totalTokens: 20e6,
    wallSeconds: 6.6 * 3600,
  },
  {
    corpus: 'multihop-rag',
    source: 'paper (Appendix D)',
    documents: 609,
    markdownChars: 5.2e6,
    images: 0,
    ocrPages: 0,
    embeddings: 7608,
    preprocessingTokens: 0,
    extractionTokensText: 3.1e6,
    extractionTokensMultimodal: 0,
    totalTokens: 3.1e6,
    wallSeconds: 62 * 60,
  },
];
