/**
 * Runs one KnowForge agent role (Locator, Deep Reader, P0) through the shared
 * agent loop with the role's own tool set, prompt and offline task, and traces
 * every model call and tool step. The loop refuses (and counts) calls to the
 * tools of other roles.
 */
import { runAgentLoop, type AgentTranscript } from '../agents/loop';
import type { SystemPromptParts } from '../agents/system-prompt';
import type { AgentProtocol, ChatModel, ContentPart } from '../model-api/types';
import type { TraceEvent } from '../pipeline/types';
import { fillPrompt, hasPrompt, loadPrompt } from '../util/prompts';
import { ruleParagraph } from '../answer/conventions';
import type { Convention } from '../pipeline/types';
import type { KfToolContext } from './tools/context';
import { foreignTools, toolsOf, type KfRole } from './tools/role-tools';

/** Characters of a tool result kept in the trace (the transcript keeps them whole). */
const TRACE_RESULT_CHARS = 4_000;

export interface RoleRun {
  role: KfRole;
  model: ChatModel;
  protocol: AgentProtocol;
  maxRounds: number;
  user: string | ContentPart[];
  convention: Convention;
  tools: KfToolContext;
  /** Structured task for the offline backend. */
  task: Record<string, unknown>;
  questionId?: string;
  signal?: AbortSignal;
  trace(e: TraceEvent): void;
  /** 'runner': the pack's suffix after every tool result (the released runner's loop); 'off': the harness's budget note only. */
  feedback?: 'runner' | 'off';
  /** Called on the first event of the role (time to first event). */
  onEvent?(): void;
}

const STAGE_OF: Record<KfRole, string> = { locator: 'locator', reader: 'reader', p0: 'p0', 'reader-search': 'reader' };

/**
 * What the knowledge base holds, for the top of a role's system prompt. On a large base (80+ documents) the
 * document list is cut, so the profile points to list_books -- but only for a role that holds that tool
 * (the Deep Reader does not: offering it there made every such question count an out-of-role call).
 */
export function kbProfile(tools: KfToolContext, roleTools: readonly string[]): string {
  const docs = tools.kb.documents();
  const hint = roleTools.includes('list_books') ? '; use list_books with a keyword' : '';
  const more = docs.length >= 80 ? ` (at least${hint})` : '';
  const sample = docs
    .slice(0, 5)
    .map((d) => d.title)
    .join('; ');
  return `Knowledge base: ${docs.length}${more} document(s) of text fragments, tables and figures with descriptions${sample ? `, e.g. ${sample}` : ''}.`;
}

/** The system prompt parts of a role (KB profile, role rules, benchmark rule): what a newcomer reads to see what a role is told. */
export function roleSystemParts(role: KfRole, tools: KfToolContext, convention: Convention): SystemPromptParts {
  return {
    kbProfile: kbProfile(tools, toolsOf(role).names()),
    loopRules: loadPrompt('loop-rules'),
    roleRules: loadPrompt(`${role}-role`),
    benchmarkRule: ruleParagraph(convention) || undefined,
  };
}

/** Rounds left at which the budget note joins the feedback (the runner's and the harness's rule alike). */
export const BUDGET_NOTE_AT = 2;

/**
 * The loop feedback of a role from the active prompt pack: the tool-result header, the role's
 * stopping-rule suffix after every tool result (`feedback-<role>`) and the round-budget note when
 * at most BUDGET_NOTE_AT rounds remain (`feedback-budget`). Why after every result: models follow a
 * reminder next to the newest material far better than a rule at the top of the system prompt.
 */
export function roleFeedback(role: KfRole): { afterResult: (remaining: number) => string; resultMessage: (tool: string, result: string) => string } {
  const name = `feedback-${role === 'reader-search' ? 'reader' : role}`;
  const suffix = hasPrompt(name) ? loadPrompt(name) : '';
  return {
    resultMessage: (tool, result) => fillPrompt('tool-result', { tool, result }),
    afterResult: (remaining) =>
      (suffix ? `\n\n${suffix}` : '') +
      (remaining > 0 && remaining <= BUDGET_NOTE_AT ? `\n\n${fillPrompt('feedback-budget', { left: String(remaining) })}` : ''),
  };
}

export async function runRole(r: RoleRun): Promise<AgentTranscript> {
  const stage = STAGE_OF[r.role];
  const t = await runAgentLoop<KfToolContext>({
    role: r.role,
    model: r.model,
    stage,
    tools: toolsOf(r.role),
    foreignTools: foreignTools(r.role),
    protocol: r.protocol,
    maxRounds: r.maxRounds,
    system: roleSystemParts(r.role, r.tools, r.convention),
    ...(r.feedback === 'runner' ? roleFeedback(r.role) : {}),
    user: r.user,
    requireSearch: r.role === 'locator' || r.role === 'p0',
    // Two malformed replies stop the role and the synthesizer answers from what was found (the paper's
    // rule): a question fails only when the synthesizer cannot answer.
    malformedStop: 'synthesize',
    task: r.task,
    questionId: r.questionId,
    signal: r.signal,
    context: r.tools,
    onModelCall: (c) => {
      r.onEvent?.();
      r.trace({
        kind: 'model-call-detail',
        stage: c.stage,
        role: c.role,
        round: c.round,
        sent: c.sent,
        reply: c.text,
        toolCalls: c.toolCalls,
        promptTokens: c.usage.promptTokens,
        completionTokens: c.usage.completionTokens,
        latencyMs: c.latencyMs,
        cacheHit: c.cacheHit,
        finishReason: c.finishReason,
        model: c.model,
        backend: c.backend,
      });
    },
    onStep: (s) => {
      r.trace({
        kind: 'step',
        role: r.role,
        round: s.round,
        step: s.kind,
        tool: s.tool,
        args: s.args,
        thought: s.thought,
        result: s.result && s.result.length > TRACE_RESULT_CHARS ? `${s.result.slice(0, TRACE_RESULT_CHARS)}…` : s.result,
      });
    },
  });
  r.trace({
    kind: 'role-end',
    role: r.role,
    stopReason: t.stopReason,
    forced: t.forced,
    stopNote: t.stopNote,
    rounds: t.rounds,
    maxRounds: t.maxRounds,
    counters: t.counters,
  });
  return t;
}

/** The sentence the synthesizer gets for a role that did not finish normally (forced stop or prose), or undefined. */
export function stopNoteFor(t: AgentTranscript): string | undefined {
  if (t.forced) return t.stopNote;
  if (t.stopReason === 'prose_final')
    return `The ${t.role} replied in prose instead of calling a tool; its reply was taken as its finish, so its evidence may be incomplete.`;
  return undefined;
}
