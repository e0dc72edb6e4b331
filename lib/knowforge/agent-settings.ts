/**
 * Settings of the 'knowforge-agents' family (spec "Configurations"): every knob
 * a configuration row (M4, M5, M5OFF, M5VEC, M5S3, P0, P1, the L+R caps) sets,
 * with the paper's defaults (M5). Strict: an unknown key fails when the
 * experiment config loads.
 */
import { z } from 'zod';
import { KB_LIMITS } from '../pipeline/knowledge-base';
import { unknownRetrieverMessage } from '../pipeline/retrievers';
import { PAPER_CAPS } from '../answer/pool';
import { RETRIEVAL_MODES } from '../index/types';
import { promptsSetting } from './prompt-pack/setting';
import { BLOCK_FORMATS, type BlockFormat } from '../answer/block-format';
import { KNOWFORGE_BENCH_PACK } from './prompt-pack/packs';

export const AGENTS_FAMILY = 'knowforge-agents';

const rounds = z.number().int().min(0).max(32);

export const agentSettings = z
  .strictObject({
    /** Locator round cap L (0: one code-run search with the question instead of the agent). */
    locatorRounds: rounds.default(4),
    /** Deep Reader round cap R (0: no reader). */
    readerRounds: rounds.default(4),
    /** Run the Deep Reader at all (P1 = false). */
    reader: z.boolean().default(true),
    /** The defection test: the Deep Reader also holds search_knowledge (its searches are counted, not pooled). */
    readerSearch: z.boolean().default(false),
    /** Run the bridge judge after the Locator (M4 = false). */
    judge: z.boolean().default(true),
    /** need_more = false: 'paper' runs no follow-up; 'runner' (the released runner) runs the queries anyway. */
    judgeOnNeedMoreFalse: z.enum(['paper', 'runner']).default('paper'),
    /** The bridge judge may also drop pool blocks it judges off-topic (M5JD); they stay out of the pool. */
    judgeDrops: z.boolean().default(false),
    /** P0: one agent holding every tool replaces Locator + Reader. */
    p0: z.boolean().default(false),
    /** P0's round cap. */
    p0Rounds: rounds.default(8),
    /** Evidence pool: the paper's typed pool, one plain first-come list (M4), or one ranked list (ablation). */
    pool: z.enum(['typed', 'plain', 'ranked']).default('typed'),
    poolChars: z.number().int().positive().default(PAPER_CAPS.total),
    imageChars: z.number().int().min(0).default(PAPER_CAPS.image),
    tableChars: z.number().int().min(0).default(PAPER_CAPS.table),
    exampleChars: z.number().int().min(0).default(PAPER_CAPS.example),
    /**
     * Protection and cross-search comparison in the pool: 'runner' (the released runner: top 3 of each type per
     * search, dense score across searches) or 'harness' (top 3 of the whole search, fused score).
     */
    poolRanking: z.enum(['runner', 'harness']).default('runner'),
    /** Cap of the plain pool (M4: 12,000). */
    plainChars: z.number().int().positive().default(12_000),
    /** Synthesizer template: ours, or the M3DocRAG-style one (M5OFF). */
    template: z.enum(['ours', 'm3docrag']).default('ours'),
    /** Index mode of every search: hybrid+graph (M5), dense (M5VEC), hybrid (M5S3). */
    mode: z.enum(RETRIEVAL_MODES).default('hybrid+graph'),
    /** A registered retriever searched instead of `mode`. */
    retriever: z.string().min(1).optional(),
    /** search_knowledge default top-k (and the bridge searches' k). */
    topk: z.number().int().positive().max(KB_LIMITS.maxTopk).default(KB_LIMITS.searchTopk),
    /**
     * Agent protocol: the paper's JSON object per round, or native tool calls. Unset: the stage's endpoint
     * protocol when the model carries it (models.stages.<stage>.protocol, KF_PROTOCOL), else json.
     */
    protocol: z.enum(['json', 'tools']).optional(),
    /** Prompt pack: the project's wording (own) or the released runner's texts (knowforge-bench, imported by `kf prompts import`). */
    prompts: promptsSetting,
    /**
     * Feedback after every tool result: 'runner' (the released runner: the role's stopping-rule suffix and the
     * round-budget note, texts from the pack) or 'off' (the harness's earlier loop: the budget note only).
     */
    loopFeedback: z.enum(['runner', 'off']).default('runner'),
    /**
     * The weak-relevance note before a search listing whose best hit scores below the gate (the released runner:
     * 2.0 on the hosted knowledge bases' 0-10 hybrid score). 'runner' applies the runner's gate where the scores
     * are on that scale (a hosted knowledge base, --kb remote:) or weakRelevanceGate where set; a local index
     * normalises its fused scores per query (the best hit is always near the top of the scale), so no note there
     * unless a gate is set. 'off': never.
     */
    weakRelevance: z.enum(['runner', 'off']).default('runner'),
    weakRelevanceGate: z.number().min(0).optional(),
    /**
     * How the pool is written for the judge, the reader and the synthesizer: 'runner' (the released runner's
     * block layout: material blocks, figure lines and group headers, wording from the prompt pack) or 'harness'
     * (one line per block). Unset: 'runner' with the knowforge-bench pack (its synthesizer prompt was tuned on
     * those blocks), 'harness' otherwise; 'runner' with the own pack writes the same layout in our words.
     */
    blockFormat: z.enum(BLOCK_FORMATS).optional(),
    /** Ids one read_media call may look at (the runner: 40, one vision call each, 4 at a time; the harness's earlier cap: 3). */
    readMediaMax: z.number().int().min(1).max(100).default(40),
    /**
     * The loop around the prompts: 'own' (the harness's agents, tools and pool, with this row's settings) or
     * 'runner' (the released runner's pipeline itself over the knowledge-base API of `--kb remote:<uuid>`,
     * with the knowforge-bench pack: lib/knowforge/runner-mode; the row picks the mode, P0/S4/P1/M5).
     */
    loop: z.enum(['own', 'runner']).default('own'),
  })
  .superRefine((s, ctx) => {
    const unknown = s.retriever === undefined ? undefined : unknownRetrieverMessage(s.retriever);
    if (unknown) ctx.addIssue({ code: 'custom', path: ['retriever'], message: unknown });
  });

export type AgentSettings = z.output<typeof agentSettings>;

/** The layout a configuration writes: its blockFormat, else runner with the knowforge-bench pack (its synthesizer prompt was tuned on those blocks), harness otherwise. */
export function blockFormatOf(s: { blockFormat?: BlockFormat; prompts: string }): BlockFormat {
  return s.blockFormat ?? (s.prompts === KNOWFORGE_BENCH_PACK ? 'runner' : 'harness');
}
