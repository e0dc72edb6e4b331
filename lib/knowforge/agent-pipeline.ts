/**
 * The 'knowforge-agents' family (spec jobs 2-6): Locator (or P0) -> bridge
 * judge -> typed pool -> Deep Reader -> synthesizer -> format checker. Every
 * agent configuration of the paper (M4, M5, M5OFF, M5VEC, M5S3, P0, P1, the L+R
 * caps) is a row of settings over it (lib/knowforge/agent-configurations.ts).
 *
 * Each question's trace gets every model call (stage, messages, tokens,
 * latency, cache hit), tool step, search, pool merge (before/after, evictions),
 * judge verdict, forced stop, and the times to the first event and to the
 * start of the answer.
 */
import type { AgentTranscript } from '../agents/loop';
import type { AgentProtocol, ChatModel } from '../model-api/types';
import type { PipelineSpec } from '../pipeline/spec';
import type { Pipeline, PipelineContext, PipelineResult } from '../pipeline/types';
import { KfError } from '../util/errors';
import { fillPrompt } from '../util/prompts';
import { agentSettings, AGENTS_FAMILY, blockFormatOf, type AgentSettings } from './agent-settings';
import { synthesizeAndCheck } from '../answer/answer';
import { guardrail } from '../answer/conventions';
import { JUDGE_POOL_CHARS, runBridgeJudge } from './judge';
import type { AgentTask, LocatorTask, PoolMedia, ReaderTask } from './offline/tasks';
import type { EvidencePool } from '../answer/pool';
import type { KnowledgeBase } from '../pipeline/knowledge-base';
import { finalPoolText, mergePool, poolOptions, readingNotes } from './pool-merge';
import { numberedBlocks } from '../answer/block-format';
import { runRole, stopNoteFor, type RoleRun } from './role-run';
import { newToolContext, type KfToolContext, type SearchLogEntry } from './tools/context';
import { runSearch } from './tools/search';
import { makeReadMedia } from '../answer/vision';
import { inPromptPack, packStamp } from './prompt-pack/setting';
import { resolvePromptPack } from './prompt-pack/packs';
import { runRunnerLoop } from './runner-mode/from-run';

/** The released runner's gate, on the hosted knowledge bases' 0-10 hybrid score. */
const RUNNER_WEAK_GATE = 2;

/** The weak-relevance gate of a run (settings weakRelevance, weakRelevanceGate), or none. */
export function weakRelevanceGate(s: AgentSettings, kb: KnowledgeBase): number | undefined {
  if (s.weakRelevance === 'off') return undefined;
  return s.weakRelevanceGate ?? (kb.id.startsWith('remote:') ? RUNNER_WEAK_GATE : undefined);
}

/** The protocol of a role: the setting, else the one its model's endpoint declares, else the paper's JSON. */
export function protocolFor(s: AgentSettings, model: ChatModel): AgentProtocol {
  return s.protocol ?? (model as ChatModel & { protocol?: AgentProtocol }).protocol ?? 'json';
}

/** Per-question bookkeeping shared by the stages. */
export interface QuestionState {
  ctx: PipelineContext;
  s: AgentSettings;
  tools: KfToolContext;
  stops: string[];
  transcripts: AgentTranscript[];
  counters: Record<string, number>;
  t0: number;
  firstEventMs?: number;
  /** Fragments the bridge judge dropped from the pool (M5JD): kept out of every later merge. */
  dropped?: Set<string>;
}

function poolMedia(pool: EvidencePool): PoolMedia[] {
  return pool.blocks
    .filter((b) => b.kind === 'image' || b.kind === 'table')
    .map((b) => ({ fragmentId: b.fragmentId, kind: b.kind, caption: b.caption, text: b.text, page: b.page }));
}

function add(counters: Record<string, number>, key: string, n = 1): void {
  counters[key] = (counters[key] ?? 0) + n;
}

/**
 * Runs one agent role (Locator, P0, Deep Reader) of the question with the run's loop settings, keeping its
 * transcript and any forced-stop note: the stages differ only in the role's own part of the run.
 */
async function runStageRole(st: QuestionState, model: ChatModel, r: Pick<RoleRun, 'role' | 'maxRounds' | 'user' | 'tools' | 'task'>): Promise<void> {
  const { ctx, s } = st;
  const t = await runRole({
    ...r,
    model,
    protocol: protocolFor(s, model),
    convention: ctx.convention,
    feedback: s.loopFeedback,
    questionId: ctx.question.id,
    signal: ctx.signal,
    trace: ctx.trace,
    onEvent: () => (st.firstEventMs ??= Date.now() - st.t0),
  });
  st.transcripts.push(t);
  const note = stopNoteFor(t);
  if (note) st.stops.push(note);
}

/** The question as the agents see it: with the answer-format guardrail of its convention appended (the paper appends it to every question). */
export function withGuardrail(ctx: PipelineContext): string {
  return `${ctx.question.question}\n\n${guardrail(ctx.convention)}`;
}

/** Stage 2: the Locator (or P0) finds; L = 0 runs one code-scheduled search with the question. */
async function locate(st: QuestionState): Promise<void> {
  const { ctx, s } = st;
  const q = ctx.question;
  const role = s.p0 ? 'p0' : 'locator';
  const maxRounds = s.p0 ? s.p0Rounds : s.locatorRounds;
  if (maxRounds === 0) {
    await runSearch(st.tools, q.question, s.topk, 'locator');
    return;
  }
  const task: LocatorTask | AgentTask = s.p0
    ? {
        role: 'agent',
        question: q.question,
        searchTool: 'search_knowledge',
        readTool: 'read_media',
        topk: s.topk,
        maxQueries: Math.max(1, Math.min(3, maxRounds - 1)),
      }
    : { role: 'locator', question: q.question, searchTool: 'search_knowledge', topk: s.topk, maxQueries: Math.max(1, Math.min(3, maxRounds - 1)) };
  await runStageRole(st, ctx.model(role), { role, maxRounds, user: `Question: ${withGuardrail(ctx)}`, tools: st.tools, task });
}

/** The fragments behind the block numbers a judge dropped, among the blocks it saw (its first characters of the pool). */
function droppedFragments(pool: EvidencePool, numbers: readonly number[]): Set<string> {
  const seen = new Set(numberedBlocks(pool.text.slice(0, JUDGE_POOL_CHARS)).map((x) => x.n));
  const out = new Set<string>();
  for (const b of pool.blocks) {
    const n = pool.numberOf.get(b.fragmentId);
    if (n !== undefined && numbers.includes(n) && seen.has(n)) out.add(b.fragmentId);
  }
  return out;
}

/** The searches with the judge's dropped fragments taken out (the pool is rebuilt from them). */
function undropped(st: QuestionState): SearchLogEntry[] {
  const dropped = st.dropped;
  if (!dropped?.size) return st.tools.searches;
  return st.tools.searches.map((x) => ({
    ...x,
    hits: x.hits.filter((h) => !dropped.has(h.fragmentId)).map((h) => ({ ...h, media: h.media.filter((m) => !dropped.has(m.fragmentId)) })),
  }));
}

/** Stage 3: the bridge judge, once; its follow-ups add searches (and, M5JD, it may drop blocks). */
async function bridge(st: QuestionState, pool: EvidencePool): Promise<void> {
  const { ctx, s } = st;
  const v = await runBridgeJudge(
    ctx.model('bridge'),
    {
      question: ctx.question.question,
      queriesRun: st.tools.searches.map((x) => x.query),
      poolText: pool.text,
      onNeedMoreFalse: s.judgeOnNeedMoreFalse,
      questionId: ctx.question.id,
      mayDrop: s.judgeDrops,
    },
    ctx.signal,
  );
  if (s.judgeDrops) st.dropped = droppedFragments(pool, v.drop);
  st.firstEventMs ??= Date.now() - st.t0;
  add(st.counters, 'judgeCalls');
  if (v.needMore) add(st.counters, 'judgeNeedMore');
  if (v.parseError) add(st.counters, 'judgeParseErrors');
  ctx.trace({
    kind: 'judge',
    needMore: v.needMore,
    bridgeEntities: v.bridgeEntities,
    proposed: v.proposed,
    toRun: v.toRun,
    reason: v.reason,
    parseError: v.parseError,
    ...(st.dropped ? { dropped: [...st.dropped] } : {}),
    raw: v.response.text,
    latencyMs: v.response.latencyMs,
    cacheHit: v.response.cacheHit,
  });
  if (v.parseError) st.stops.push("The bridge judge's reply could not be read, so no follow-up search was run: a second hop may be missing.");
  for (const query of v.toRun) await runSearch(st.tools, query, s.topk, 'bridge');
}

/** Stage 5: the Deep Reader sees the question and the rendered pool only. */
async function read(st: QuestionState, pool: EvidencePool, tools: KfToolContext): Promise<void> {
  const { ctx, s } = st;
  const q = ctx.question;
  const task: ReaderTask = {
    role: 'reader',
    question: q.question,
    media: poolMedia(pool),
    readTool: 'read_media',
    maxReads: Math.max(1, Math.min(2, s.readerRounds - 1)),
  };
  await runStageRole(st, ctx.model('reader'), {
    role: s.readerSearch ? 'reader-search' : 'reader',
    maxRounds: s.readerRounds,
    user: fillPrompt('reader-user', { question: withGuardrail(ctx), pool: pool.text || '(no materials were found)' }),
    tools,
    task,
  });
}

function agentCounters(st: QuestionState): void {
  const c = st.counters;
  for (const t of st.transcripts) {
    const role = t.role === 'reader-search' ? 'reader' : t.role; // the defection test's reader counts as the reader
    add(c, `${role}Rounds`, t.rounds);
    add(c, `${role}ModelCalls`, t.counters.modelCalls);
    add(c, `${role}ToolCalls`, t.counters.toolCalls);
    add(c, 'outOfRole', t.counters.outOfRole);
    add(c, 'unknownTools', t.counters.unknownTools);
    add(c, 'badJson', t.counters.badJson);
    add(c, 'repairs', t.counters.repairs); // tool arguments or reply JSON repaired, then used
    add(c, 'cutReplies', t.counters.cutReplies); // replies cut by the token limit inside the loop (its rules applied)
    if (t.forced) add(c, 'forcedStops');
    if (t.forced) add(c, `stop_${t.stopReason}`);
    if (t.stopReason === 'prose_final') add(c, 'proseFinals');
    if (t.forced && t.stopReason === 'max_rounds') add(c, `${role}AtCap`);
  }
  for (const x of st.tools.searches) add(c, x.by === 'bridge' ? 'bridgeSearches' : 'locatorSearches');
  add(c, 'searches', st.tools.searches.length);
  add(c, 'reads', st.tools.reads.length);
}

/** The retrieval side (stages 2-4): Locator (or P0), bridge judge and its searches, the pool they make. */
export async function findEvidence(st: QuestionState): Promise<EvidencePool> {
  const { ctx, s } = st;
  const popts = poolOptions(s, st.tools.kb);
  await locate(st);
  let pool = mergePool('locator', st.tools.searches, popts, undefined, ctx.trace);
  if (s.judge) {
    await bridge(st, pool);
    pool = mergePool('bridge', undropped(st), popts, pool, ctx.trace);
    if (st.dropped?.size) add(st.counters, 'judgeDropped', st.dropped.size);
  }
  return pool;
}

/** The retrieval bookkeeping of the searches so far (firstSearch, every search, the final pool). */
export function retrievalLog(st: QuestionState, pool: EvidencePool, notes: readonly string[]): NonNullable<PipelineResult['retrieval']> {
  const first = st.tools.searches[0];
  return {
    firstSearch: (first?.hits ?? []).map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page, score: h.score })),
    searches: st.tools.searches.map((x) => ({
      query: x.query,
      by: x.by,
      hits: x.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page })),
    })),
    poolText: finalPoolText(pool, notes),
    poolChars: pool.stats.chars,
    poolTrimmed: pool.stats.trimmed,
  };
}

/** A fresh question state: the tools over the question's knowledge-base view, with the vision stage. */
export function questionState(ctx: PipelineContext, s: AgentSettings, name: string): QuestionState {
  const q = ctx.question;
  if (!ctx.kb)
    throw new KfError('no_index', `pipeline ${name} needs an index but question ${q.id} has none`, 'configure an [index] in the experiment', {
      concerns: q.id,
    });
  const readMedia = makeReadMedia(ctx.model('vision'), ctx.kb, { questionId: q.id, signal: ctx.signal });
  const tools = newToolContext(ctx.kb, {
    mode: s.retriever ?? s.mode,
    docIds: q.doc ? [q.doc] : undefined,
    searchBy: s.p0 ? 'p0' : 'locator',
    readMedia,
    readMediaMax: s.readMediaMax,
    weakRelevanceGate: weakRelevanceGate(s, ctx.kb),
    blockFormat: blockFormatOf(s),
    trace: ctx.trace,
  });
  return { ctx, s, tools, stops: [], transcripts: [], counters: {}, t0: Date.now() };
}

async function runQuestion(st: QuestionState): Promise<PipelineResult> {
  const { ctx, s } = st;
  const kb = st.tools.kb;
  const pool = await findEvidence(st);
  if (!s.p0 && s.reader && s.readerRounds > 0) {
    const readerTools = newToolContext(kb, {
      mode: st.tools.mode,
      docIds: st.tools.docIds,
      searchBy: 'reader',
      readMedia: st.tools.readMedia,
      weakRelevanceGate: st.tools.weakRelevanceGate,
      blockFormat: st.tools.blockFormat,
      poolNumbers: pool.numberOf,
      readMediaMax: s.readMediaMax,
      trace: ctx.trace,
    });
    await read(st, pool, readerTools);
    st.tools.reads.push(...readerTools.reads);
    // The defection test's reader searches: counted; they stay out of the pool and the retrieval metrics.
    if (s.readerSearch) add(st.counters, 'readerSearches', readerTools.searches.length);
  }
  const notes = readingNotes(st.tools.reads);
  if (notes.length) ctx.trace({ kind: 'pool-notes', stage: 'reader', added: notes.length, notes });
  for (const stop of st.stops) ctx.trace({ kind: 'forced-stop', note: stop });
  agentCounters(st);
  const answerStartMs = Date.now() - st.t0;
  const answered = await synthesizeAndCheck(
    ctx,
    { template: s.template, pool, notes, forcedStop: st.stops.length ? st.stops.join(' ') : undefined },
    { toldStops: st.stops.length },
  );
  ctx.trace({ kind: 'timing', firstEventMs: st.firstEventMs ?? answerStartMs, answerStartMs, totalMs: Date.now() - st.t0 });
  return {
    prediction: answered.prediction,
    finalAnswer: answered.finalAnswer,
    retrieval: retrievalLog(st, pool, notes),
    counters: { ...st.counters, poolChars: pool.stats.chars, poolBlocks: pool.stats.blocks, ...answered.counters },
  };
}

export function agentPipeline(name: string, description: string, s: AgentSettings): Pipeline {
  return {
    name,
    description,
    needsIndex: true,
    promptPack: packStamp(resolvePromptPack(s.prompts)),
    run: (ctx: PipelineContext) =>
      s.loop === 'runner' ? runRunnerLoop(ctx, s, name) : inPromptPack(s.prompts, ctx, () => runQuestion(questionState(ctx, s, name))),
  };
}

export const agentFamily: PipelineSpec<typeof agentSettings> = {
  family: AGENTS_FAMILY,
  description: 'Locator (or P0) -> bridge judge -> typed evidence pool -> Deep Reader -> synthesizer -> format checker',
  settings: agentSettings,
  needsIndex: () => true,
  create: (name, s) => agentPipeline(name, '', s),
  // The retrieval side alone: Locator (or P0), the bridge judge and its searches, in the configuration's prompt pack.
  retrieve: async (name, s, ctx) => {
    const st = questionState(ctx, s, name);
    const pool = await inPromptPack(s.prompts, ctx, () => findEvidence(st));
    return { log: retrievalLog(st, pool, []), searches: st.tools.searches };
  },
};
