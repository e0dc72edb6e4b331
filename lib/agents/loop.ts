/**
 * The generic agent loop (spec "Agent loop protocol"), used by the KnowForge
 * locator, reader and P0 agent, with either protocol:
 *   - json:  the paper's one JSON object per round, {thought, tool, args} or {thought, final};
 *   - tools: native tool calls (request `tools`), a text reply without calls finishes.
 *
 * Runner rules implemented exactly:
 *   - prose (> 50 chars, no `{`) before any tool call gets ONE nudge; afterwards prose is accepted as final;
 *   - bad JSON gets one retry with a hint; two bad replies in a row force a stop (`bad_json`), which
 *     by default is a ModelOutputError (the question fails as "model_output": evidence gathered from
 *     a broken reply must not become a scored answer); `malformedStop: 'synthesize'` keeps the
 *     paper runner's behaviour (the stop is noted and the synthesizer answers from what was found);
 *   - finishing without any search is rejected once for roles that require a search;
 *   - the 3rd identical tool+args call forces a stop (`circuit_break`), without running it;
 *   - an unknown tool gets a guidance message and the round is consumed;
 *   - a tool of ANOTHER role (`foreignTools`) is never run: an `out_of_role` error result, the round
 *     consumed, counted in `counters.outOfRole` (disjoint role tool sets, enforced in code);
 *   - a tool exception becomes {"error":{"code":"tool_failed","detail":...,"recoverable":true}};
 *   - the remaining budget is shown only when <= 2 rounds remain; a caller may replace that note with its
 *     own feedback after every tool result (`afterResult`: KnowForge roles send their pack's suffixes);
 *   - hitting the round cap forces a stop (`max_rounds`), reported in the transcript
 *     (`forced`, `stopNote`) so the synthesizer can be told;
 *   - temperature 0, 2,048 max tokens per call, the full history sent every round.
 * A round = one model reply that called tools (known or not) or finished. Nudges,
 * bad-JSON retries and a rejected finish do not consume a round; each is bounded
 * (once, twice in a row, once), so the loop always ends.
 */
import { canonicalJson } from '../util/hash';
import { KfError, errorMessage } from '../util/errors';
import { parseAgentObject, parseToolArguments } from '../model-api/json-repair';
import { ModelOutputError } from '../model-api/model-output-error';
import { rejectReply } from '../model-api/reply-verdict';
import type { AgentProtocol, ChatMessage, ChatModel, ChatResponse, ContentPart, Stage, ToolCall, Usage } from '../model-api/types';
import { composeSystemPrompt, type SystemPromptSource } from './system-prompt';
import { checkArgs, ToolSet, type AgentTool } from './tools';

export type StopReason = 'final' | 'prose_final' | 'max_rounds' | 'bad_json' | 'circuit_break';

export interface AgentStep {
  /** Round number (1-based) the step belongs to; nudges/retries carry the round they preceded. */
  round: number;
  kind:
    'tool' | 'unknown_tool' | 'out_of_role' | 'tool_error' | 'bad_args' | 'final' | 'prose_final' | 'nudge' | 'bad_json' | 'rejected_final' | 'circuit_break';
  tool?: string;
  args?: Record<string, unknown>;
  thought?: string;
  /** What the model was told (tool result, guidance, hint), as sent. */
  result?: string;
  /** The JSON needed repairs (trailing commas, unclosed strings...). */
  repaired?: boolean;
}

export interface AgentCounters {
  modelCalls: number;
  /** Tool calls that ran (successfully or not). */
  toolCalls: number;
  toolErrors: number;
  unknownTools: number;
  /** Calls to a tool that exists but belongs to another role (refused, never run). */
  outOfRole: number;
  badArgs: number;
  badJson: number;
  repairs: number;
  /** Replies the endpoint cut at its token limit (finish reason length); the loop's rules (repair, guidance) handled them. */
  cutReplies: number;
  nudges: number;
  rejectedFinals: number;
  cacheHits: number;
  /** Calls per tool name. */
  byTool: Record<string, number>;
}

export interface AgentTranscript {
  role: string;
  protocol: AgentProtocol;
  stopReason: StopReason;
  /** True when the loop was stopped (cap, bad JSON, circuit breaker) rather than finished by the model. */
  forced: boolean;
  /** One sentence for the synthesizer when forced ("... stopped at its round limit ..."). */
  stopNote?: string;
  /** The final field (json), the closing text (tools), or the accepted prose. */
  final?: string;
  rounds: number;
  maxRounds: number;
  steps: AgentStep[];
  /** The full conversation (system prompt first). */
  messages: ChatMessage[];
  counters: AgentCounters;
  usage: Usage;
  model: string;
  backend: string;
}

export interface AgentLoopOptions<Ctx = unknown> {
  role: string;
  model: ChatModel;
  /** Stage label of the model calls (default: the role). */
  stage?: Stage;
  tools: ToolSet | AgentTool<Ctx>[];
  protocol?: AgentProtocol;
  maxRounds: number;
  /** The system prompt: full text, parts to compose, or a function (the composition hook). */
  system?: SystemPromptSource;
  /** The first user message (question, pool...). */
  user: string | ContentPart[];
  /**
   * Tool names that count as a search; finishing before any of them ran is
   * rejected once. `true` = the tools marked `isSearch`. Default: no requirement.
   */
  requireSearch?: boolean | string[];
  /** Tool names of OTHER roles: a call to one is refused (error result, never run) and counted as out-of-role. */
  foreignTools?: readonly string[];
  /** Structured task for the offline backend (ChatRequest.task), sent every round. */
  task?: Record<string, unknown>;
  questionId?: string;
  runId?: string;
  temperature?: number;
  maxTokens?: number;
  /** Ask the endpoint for a JSON object reply (response_format) in the json protocol. Default false (the paper's runner parses prose). */
  jsonMode?: boolean;
  signal?: AbortSignal;
  context?: Ctx;
  /**
   * Two malformed replies in a row: 'error' (default) throws a ModelOutputError, so the question is
   * recorded as failed; 'synthesize' returns the forced stop (stopReason bad_json) like the paper's runner.
   */
  malformedStop?: 'error' | 'synthesize';
  /** Cut tool results longer than this (characters) with a note; default: no cut. */
  maxResultChars?: number;
  /**
   * The feedback text after every tool result (a role's stopping-rule reminder, the round budget):
   * default, the budget note when <= 2 rounds remain. `remaining` counts the rounds still allowed.
   */
  afterResult?: (remaining: number) => string;
  /** The message carrying a tool result in the json protocol (default `Result of <tool>:\n<result>`). */
  resultMessage?: (tool: string, result: string) => string;
  /** Called for every step as it happens (traces). */
  onStep?: (step: AgentStep) => void;
  /** Called after every model call with the messages it was sent (count) and what came back (traces, progress). */
  onModelCall?: (call: AgentModelCall) => void;
}

/** One model call of a loop as traced: what was sent (new messages since the previous call) and the reply. */
export interface AgentModelCall {
  role: string;
  stage: Stage;
  round: number;
  /** Messages added since the previous call (the first call: system prompt and user message). */
  sent: ChatMessage[];
  messageCount: number;
  text: string;
  toolCalls: ToolCall[];
  usage: Usage;
  latencyMs: number;
  cacheHit: boolean;
  /** The endpoint's finish reason (`length`: cut by the token limit; the loop's rules -- repair, guidance -- then apply). */
  finishReason: string;
  model: string;
  backend: string;
}

export const LOOP_TEMPERATURE = 0;
export const LOOP_MAX_TOKENS = 2048;
const PROSE_MIN_CHARS = 50;

function textOf(content: string | ContentPart[]): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

function errorJson(code: string, detail: string): string {
  return JSON.stringify({ error: { code, detail, recoverable: true } });
}

function budgetNote(remaining: number): string {
  return remaining <= 2 && remaining > 0
    ? `\n\n[${remaining} round${remaining === 1 ? '' : 's'} left: ${remaining === 1 ? 'this is your last call; finish after it' : 'plan to finish soon'}.]`
    : '';
}

export function describeStop(t: Pick<AgentTranscript, 'role' | 'stopReason' | 'rounds' | 'maxRounds' | 'steps'>): string | undefined {
  switch (t.stopReason) {
    case 'max_rounds':
      return `The ${t.role} was stopped at its round limit (${t.maxRounds} rounds) before it finished: its evidence may be incomplete.`;
    case 'bad_json':
      return `The ${t.role} was stopped after two malformed replies in a row: its evidence may be incomplete.`;
    case 'circuit_break': {
      const last = [...t.steps].reverse().find((s) => s.kind === 'circuit_break');
      return `The ${t.role} was stopped for repeating the same call${last?.tool ? ` (${last.tool})` : ''} a third time: its evidence may be incomplete.`;
    }
    default:
      return undefined;
  }
}

/** Check the options; the search tools a finish must wait for. */
function loopSearchTools(opts: AgentLoopOptions<never>, tools: ToolSet): string[] {
  if (!(opts.maxRounds >= 0)) throw new KfError('bad_loop', `agent ${opts.role}: maxRounds must be >= 0, got ${opts.maxRounds}`, 'fix the round budget (L/R)');
  const searchTools = opts.requireSearch === true ? tools.searchTools() : Array.isArray(opts.requireSearch) ? opts.requireSearch : [];
  if (opts.requireSearch === true && !searchTools.length) {
    throw new KfError(
      'bad_loop',
      `agent ${opts.role} requires a search but none of its tools is marked isSearch`,
      'mark the search tool(s) isSearch or pass requireSearch: [names]',
    );
  }
  return searchTools;
}

function zeroCounters(): AgentCounters {
  return {
    modelCalls: 0,
    toolCalls: 0,
    toolErrors: 0,
    unknownTools: 0,
    outOfRole: 0,
    badArgs: 0,
    badJson: 0,
    repairs: 0,
    cutReplies: 0,
    nudges: 0,
    rejectedFinals: 0,
    cacheHits: 0,
    byTool: {},
  };
}

/** The guidance texts of a loop: the malformed-reply hint, the prose nudge and the rejected-finish note. */
function guidanceTexts(protocol: AgentProtocol, tools: ToolSet, searchTools: string[]): { hint: string; nudge: string; rejectFinal: string } {
  const firstTool = tools.names()[0] ?? 'tool_name';
  const exampleCall = `{"thought": "...", "tool": "${searchTools[0] ?? firstTool}", "args": {...}}`;
  return {
    hint:
      protocol === 'json'
        ? `Your reply was not valid JSON. Reply with exactly ONE JSON object and nothing else: ${exampleCall} or {"thought": "...", "final": "ok"}.`
        : `Your reply could not be read. Call one of the tools (${tools.names().join(', ')}) with a JSON object of arguments, or reply with a short text to finish.`,
    nudge:
      protocol === 'json'
        ? `Do not answer in prose. Gather evidence first: reply with ONE JSON object calling a tool, e.g. ${exampleCall}.`
        : `Do not answer yet. Gather evidence first: call one of the tools (${(searchTools.length ? searchTools : tools.names()).join(', ')}).`,
    rejectFinal: `You have not searched yet. Call ${searchTools.join(' or ')} at least once before finishing.`,
  };
}

/** The arguments of a json-protocol call, under any of the names models use for them. */
function jsonCallArgs(v: Record<string, unknown>): Record<string, unknown> {
  const rawArgs = v.args ?? v.arguments ?? v.action_input ?? v.parameters ?? v.input ?? {};
  if (typeof rawArgs === 'string') return parseToolArguments(rawArgs)?.value ?? { input: rawArgs };
  return rawArgs && typeof rawArgs === 'object' && !Array.isArray(rawArgs) ? (rawArgs as Record<string, unknown>) : {};
}

/** What one round step decided: the loop's transcript (it ended), or undefined (ask the model again). */
type StepOutcome = AgentTranscript | undefined;

/** The state of one loop and its per-round step (one model reply handled per call of `round`). */
class AgentLoopRun<Ctx> {
  readonly protocol: AgentProtocol;
  readonly tools: ToolSet;
  readonly searchTools: string[];
  readonly stage: Stage;
  readonly messages: ChatMessage[];
  readonly steps: AgentStep[] = [];
  readonly counters = zeroCounters();
  readonly usage: Usage = { promptTokens: 0, completionTokens: 0 };
  private readonly seen = new Map<string, number>();
  private readonly texts: { hint: string; nudge: string; rejectFinal: string };
  /** The last two replies, for the error of a malformed stop. */
  private readonly lastReplies: string[] = [];
  /** The reply being handled (a malformed one is rejected: the cache never replays it). */
  private lastResponse?: ChatResponse;
  rounds = 0;
  private consecutiveBad = 0;
  private nudged = false;
  private rejected = false;
  private anyToolCall = false;
  private searched = false;
  private sentUpTo = 0;
  private modelId: string;
  private backend: string;

  constructor(private readonly opts: AgentLoopOptions<Ctx>) {
    this.protocol = opts.protocol ?? 'json';
    this.tools = opts.tools instanceof ToolSet ? opts.tools : new ToolSet(opts.role, opts.tools as AgentTool[]);
    this.searchTools = loopSearchTools(opts as AgentLoopOptions<never>, this.tools);
    this.stage = opts.stage ?? opts.role;
    this.messages = [
      { role: 'system', content: composeSystemPrompt(opts.system, this.tools, this.protocol) },
      { role: 'user', content: opts.user },
    ];
    this.texts = guidanceTexts(this.protocol, this.tools, this.searchTools);
    this.modelId = opts.model.id;
    this.backend = opts.model.backend;
  }

  private step(s: AgentStep): void {
    this.steps.push(s);
    this.opts.onStep?.(s);
  }

  finish(stopReason: StopReason, final?: string): AgentTranscript {
    const forced = stopReason === 'max_rounds' || stopReason === 'bad_json' || stopReason === 'circuit_break';
    const t: AgentTranscript = {
      role: this.opts.role,
      protocol: this.protocol,
      stopReason,
      forced,
      final,
      rounds: this.rounds,
      maxRounds: this.opts.maxRounds,
      steps: this.steps,
      messages: this.messages,
      counters: this.counters,
      usage: this.usage,
      model: this.modelId,
      backend: this.backend,
    };
    t.stopNote = describeStop(t);
    return t;
  }

  private stopMalformed(): AgentTranscript {
    if (this.opts.malformedStop === 'synthesize') return this.finish('bad_json');
    const empty = this.lastReplies.every((r) => !r.trim());
    throw new ModelOutputError(
      String(this.stage),
      empty ? 'empty' : 'unparseable',
      `the ${this.opts.role} sent ${empty ? 'two empty replies' : 'two malformed replies'} in a row (round ${this.rounds + 1})`,
      this.lastReplies.join(' || '),
      { finishReason: this.lastResponse?.finishReason },
    );
  }

  /** A malformed reply: the hint once, a stop at the second in a row. */
  private malformed(s: Omit<AgentStep, 'round' | 'kind' | 'result'>): StepOutcome {
    this.consecutiveBad++;
    this.counters.badJson++;
    rejectReply(this.lastResponse, this.lastResponse?.finishReason === 'length' ? 'length' : 'unparseable');
    this.step({ round: this.rounds + 1, kind: 'bad_json', ...s, result: this.texts.hint });
    if (this.consecutiveBad >= 2) return this.stopMalformed();
    this.messages.push({ role: 'user', content: this.texts.hint });
    return undefined;
  }

  /** Prose before any tool call: one nudge. True when it was sent. */
  private nudgeOnce(): boolean {
    if (this.anyToolCall || this.nudged) return false;
    this.nudged = true;
    this.counters.nudges++;
    this.step({ round: this.rounds + 1, kind: 'nudge', result: this.texts.nudge });
    this.messages.push({ role: 'user', content: this.texts.nudge });
    return true;
  }

  /** A finish before any search: rejected once. True when it was. */
  private rejectFinishOnce(withThought?: { thought: string | undefined }): boolean {
    if (!this.searchTools.length || this.searched || this.rejected) return false;
    this.rejected = true;
    this.counters.rejectedFinals++;
    this.step({ round: this.rounds + 1, kind: 'rejected_final', ...withThought, result: this.texts.rejectFinal });
    this.messages.push({ role: 'user', content: this.texts.rejectFinal });
    return true;
  }

  /** The feedback after a tool result (a caller's suffixes, else the budget note). */
  private feedback(): string {
    return (this.opts.afterResult ?? budgetNote)(this.opts.maxRounds - this.rounds);
  }

  /** A call that is refused without running (another role's tool, an unknown one, bad arguments); undefined = runnable. */
  private refusal(name: string, args: Record<string, unknown>, thought: string | undefined, repaired: boolean): string | undefined {
    const { tools, opts, counters } = this;
    const tool = tools.get(name);
    const round = this.rounds + 1;
    if (!tool && opts.foreignTools?.includes(name)) {
      counters.outOfRole++;
      const result = errorJson('out_of_role', `${name} is not a tool of the ${opts.role}; it was not run. Your tools: ${tools.names().join(', ')}.`);
      this.step({ round, kind: 'out_of_role', tool: name, args, thought, result, repaired });
      return result;
    }
    if (!tool) {
      counters.unknownTools++;
      const detail = `there is no tool "${name}". Available tools: ${tools.names().join(', ')}.`;
      const result =
        this.protocol === 'json'
          ? `Unknown tool "${name}". Use one of: ${tools.names().join(', ')}; or finish with {"thought": "...", "final": "ok"}.`
          : errorJson('unknown_tool', detail);
      this.step({ round, kind: 'unknown_tool', tool: name, args, thought, result, repaired });
      return result;
    }
    const bad = checkArgs(tool, args);
    if (!bad) return undefined;
    counters.badArgs++;
    const result = errorJson('bad_arguments', `${name}: ${bad}`);
    this.step({ round, kind: 'bad_args', tool: name, args, thought, result, repaired });
    return result;
  }

  /** Run one call (or refuse it): returns the text the model is told, or 'circuit' to stop. */
  async runCall(name: string, args: Record<string, unknown>, thought: string | undefined, repaired: boolean): Promise<string | 'circuit'> {
    const { opts, counters } = this;
    const key = canonicalJson({ tool: name, args });
    const n = (this.seen.get(key) ?? 0) + 1;
    this.seen.set(key, n);
    if (n >= 3) {
      this.step({ round: this.rounds + 1, kind: 'circuit_break', tool: name, args, thought });
      return 'circuit';
    }
    this.anyToolCall = true;
    const refused = this.refusal(name, args, thought, repaired);
    if (refused !== undefined) return refused;
    const tool = this.tools.get(name)!;
    counters.toolCalls++;
    counters.byTool[name] = (counters.byTool[name] ?? 0) + 1;
    if (this.searchTools.includes(name)) this.searched = true;
    let result: string;
    let kind: AgentStep['kind'] = 'tool';
    try {
      const out = await tool.handler(args, {
        role: opts.role,
        round: this.rounds + 1,
        questionId: opts.questionId,
        signal: opts.signal,
        context: opts.context as Ctx,
      });
      result = typeof out === 'string' ? out : JSON.stringify(out ?? null);
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      counters.toolErrors++;
      kind = 'tool_error';
      result = errorJson('tool_failed', errorMessage(e).slice(0, 500));
    }
    if (opts.maxResultChars && result.length > opts.maxResultChars)
      result = `${result.slice(0, opts.maxResultChars)}\n[... cut at ${opts.maxResultChars} characters]`;
    this.step({ round: this.rounds + 1, kind, tool: name, args, thought, result, repaired });
    return result;
  }

  /** Send the history; count the call and report it. */
  private async callModel(): Promise<ChatResponseLike> {
    const { opts, stage } = this;
    const sent = this.messages.slice(this.sentUpTo);
    this.sentUpTo = this.messages.length;
    const res = await opts.model.chat(
      {
        stage,
        messages: [...this.messages],
        tools: this.protocol === 'tools' ? this.tools.specs() : undefined,
        temperature: opts.temperature ?? LOOP_TEMPERATURE,
        maxTokens: opts.maxTokens ?? LOOP_MAX_TOKENS,
        json: this.protocol === 'json' && opts.jsonMode ? true : undefined,
        questionId: opts.questionId,
        runId: opts.runId,
        task: opts.task,
      },
      opts.signal,
    );
    this.counters.modelCalls++;
    this.lastResponse = res;
    if (res.cacheHit) this.counters.cacheHits++;
    if (res.finishReason === 'length') this.counters.cutReplies++;
    this.usage.promptTokens += res.usage.promptTokens;
    this.usage.completionTokens += res.usage.completionTokens;
    this.modelId = res.model;
    this.backend = res.backend;
    const text = res.text ?? '';
    this.lastReplies.push(res.toolCalls.length ? `${text}${res.toolCalls.map((c) => ` ${c.name}(${c.arguments})`).join('')}` : text);
    if (this.lastReplies.length > 2) this.lastReplies.shift();
    opts.onModelCall?.({
      role: opts.role,
      stage,
      round: this.rounds + 1,
      sent,
      messageCount: this.sentUpTo,
      text,
      toolCalls: res.toolCalls,
      usage: res.usage,
      latencyMs: res.latencyMs,
      cacheHit: res.cacheHit,
      finishReason: res.finishReason,
      model: res.model,
      backend: res.backend,
    });
    return res;
  }

  /** Native tool calls (tools protocol; also accepted in json protocol if a server sends them). */
  private async onToolCalls(text: string, calls: ToolCall[]): Promise<StepOutcome> {
    const parsed = calls.map((c) => ({ call: c, args: parseToolArguments(c.arguments) }));
    this.messages.push({ role: 'assistant', content: text, toolCalls: calls });
    if (parsed.every((p) => !p.args)) {
      for (const p of parsed)
        this.messages.push({
          role: 'tool',
          toolCallId: p.call.id,
          name: p.call.name,
          content: errorJson('bad_arguments', 'the arguments are not a JSON object'),
        });
      return this.malformed({ tool: parsed[0].call.name });
    }
    this.consecutiveBad = 0;
    const replies: { call: ToolCall; content: string }[] = [];
    let circuit = false;
    for (const p of parsed) {
      if (circuit) {
        replies.push({ call: p.call, content: errorJson('not_run', 'stopped before this call') });
        continue;
      }
      if (!p.args) {
        this.counters.badArgs++;
        replies.push({ call: p.call, content: errorJson('bad_arguments', 'the arguments are not a JSON object') });
        continue;
      }
      if (p.args.repaired) this.counters.repairs++;
      const out = await this.runCall(p.call.name, p.args.value, undefined, p.args.repaired);
      if (out === 'circuit') {
        circuit = true;
        replies.push({ call: p.call, content: errorJson('circuit_break', 'the same call was made three times') });
      } else replies.push({ call: p.call, content: out });
    }
    for (const r of replies) this.messages.push({ role: 'tool', toolCallId: r.call.id, name: r.call.name, content: r.content });
    if (circuit) return this.finish('circuit_break');
    this.rounds++;
    const note = this.feedback();
    if (note) {
      const last = this.messages[this.messages.length - 1];
      last.content = `${textOf(last.content)}${note}`;
    }
    return undefined;
  }

  /** A reply that is not one JSON object: in the tools protocol the model finishing; otherwise prose or malformed. */
  private onText(text: string): StepOutcome {
    const proseLike = text.trim().length > PROSE_MIN_CHARS && !text.includes('{');
    this.messages.push({ role: 'assistant', content: text });
    if (this.protocol === 'tools' && text.trim()) {
      if (proseLike && this.nudgeOnce()) return undefined;
      if (this.rejectFinishOnce()) return undefined;
      this.step({ round: this.rounds + 1, kind: 'final', thought: text });
      return this.finish('final', text.trim());
    }
    if (proseLike) {
      if (this.nudgeOnce()) return undefined;
      this.step({ round: this.rounds + 1, kind: 'prose_final', thought: text });
      return this.finish('prose_final', text.trim());
    }
    return this.malformed({});
  }

  /** A json-protocol object: {thought, tool, args} runs the call, {thought, final} finishes. */
  private async onObject(text: string, obj: { value: Record<string, unknown>; repaired: boolean }): Promise<StepOutcome> {
    const v = obj.value;
    const thought = typeof v.thought === 'string' ? v.thought : undefined;
    const toolName =
      typeof v.tool === 'string' && v.tool.trim() ? v.tool.trim() : typeof v.action === 'string' && v.action.trim() ? v.action.trim() : undefined;
    this.messages.push({ role: 'assistant', content: text });
    if (toolName || 'final' in v) {
      this.consecutiveBad = 0;
      if (obj.repaired) this.counters.repairs++;
    }
    if (toolName) {
      const out = await this.runCall(toolName, jsonCallArgs(v), thought, obj.repaired);
      if (out === 'circuit') return this.finish('circuit_break');
      this.rounds++;
      const body = this.opts.resultMessage ? this.opts.resultMessage(toolName, out) : `Result of ${toolName}:\n${out}`;
      this.messages.push({ role: 'user', content: `${body}${this.feedback()}` });
      return undefined;
    }
    // {"tool": ""} or {"action": null}: the shape without a usable call or final.
    if (!('final' in v)) return this.malformed({ thought });
    if (this.rejectFinishOnce({ thought })) return undefined;
    this.step({ round: this.rounds + 1, kind: 'final', thought, repaired: obj.repaired });
    return this.finish('final', typeof v.final === 'string' ? v.final : JSON.stringify(v.final));
  }

  /** One round step: ask the model and handle its reply. */
  async round(): Promise<StepOutcome> {
    if (this.rounds >= this.opts.maxRounds) return this.finish('max_rounds');
    const res = await this.callModel();
    const text = res.text ?? '';
    if (res.toolCalls.length) return this.onToolCalls(text, res.toolCalls);
    const obj = parseAgentObject(text);
    // Tools protocol: a text reply without calls is the model finishing (unless it holds a JSON tool call).
    if (!obj) return this.onText(text);
    return this.onObject(text, obj);
  }
}

type ChatResponseLike = Awaited<ReturnType<ChatModel['chat']>>;

export async function runAgentLoop<Ctx = unknown>(opts: AgentLoopOptions<Ctx>): Promise<AgentTranscript> {
  const run = new AgentLoopRun(opts);
  for (;;) {
    const done = await run.round();
    if (done) return done;
  }
}
