/**
 * Offline stand-ins for the agent roles (locator, reader, P0 agent). They are
 * stateless: each round they look at the conversation so far (how many tool
 * calls were already made) and emit the next step in the protocol the request
 * uses, exactly as a real model would: one JSON object per round, or native
 * tool calls when the request carries `tools`.
 *
 * Locator: rule-based query decomposition (the question's keywords, then each
 * entity with the relation words around it), then stop.
 * Reader: open the pool media whose caption/label/description matches the question.
 */
import { parseAgentObject, parseToolArguments } from '../../model-api/json-repair';
import type { ChatRequest } from '../../model-api/types';
import type { AgentTask, LocatorTask, PoolMedia, ReaderTask } from './tasks';
import { contentWords, entities, overlapScore, relationContentWords, stem, stemSet, tokens, STOPWORDS } from '../../util/text-rules';

export interface PlannedCall {
  tool: string;
  args: Record<string, unknown>;
  thought: string;
}

/** The agent reply for this round: the next planned call not yet made, or a final. */
export interface OfflineAgentReply {
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
}

/** Calls the assistant already made in this conversation (either protocol). */
export function previousCalls(req: ChatRequest): { tool: string; args: Record<string, unknown> }[] {
  const out: { tool: string; args: Record<string, unknown> }[] = [];
  for (const m of req.messages) {
    if (m.role !== 'assistant') continue;
    if (m.toolCalls?.length) {
      for (const c of m.toolCalls) out.push({ tool: c.name, args: parseToolArguments(c.arguments)?.value ?? {} });
      continue;
    }
    const text = typeof m.content === 'string' ? m.content : m.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    const obj = parseAgentObject(text)?.value;
    const tool = obj && (typeof obj.tool === 'string' ? obj.tool : typeof obj.action === 'string' ? obj.action : undefined);
    if (tool) out.push({ tool, args: (obj!.args as Record<string, unknown>) ?? {} });
  }
  return out;
}

/** Rule-based decomposition: keyword query first, then "entity + nearby relation words" per entity. */
export function decomposeQuestion(question: string, maxQueries = 3): string[] {
  const ents = entities(question);
  const rel = relationContentWords(question, ents);
  const words = question.replace(/[?!.]+\s*$/, '').split(/\s+/);
  const keyword = words
    .map((w) => w.replace(/^[("'“]+|[)"'”,;:]+$/g, ''))
    .filter((w) => w && !STOPWORDS.has(w.toLowerCase()) && !/^(what|which|who|whom|whose|when|where|why|how)$/i.test(w))
    .join(' ');
  const queries: string[] = [];
  const push = (q: string) => {
    const v = q.replace(/\s+/g, ' ').trim();
    if (v && !queries.some((x) => x.toLowerCase() === v.toLowerCase())) queries.push(v);
  };
  push(keyword || question);
  const qTokens = tokens(question);
  for (const e of ents) {
    const eTok = tokens(e);
    const at = qTokens.findIndex((t, i) => eTok.every((x, j) => qTokens[i + j] === x));
    const near = rel.filter((r) => {
      const i = qTokens.indexOf(r);
      return at >= 0 && i >= 0 && Math.abs(i - at) <= eTok.length + 3;
    });
    push([e, ...near.slice(0, 2)].join(' '));
  }
  if (queries.length < 2 && rel.length > 1) push(rel.join(' '));
  return queries.slice(0, Math.max(1, maxQueries));
}

/** Media of the pool worth opening: caption/label/description sharing content words with the question, best first. */
export function mediaToRead(question: string, media: PoolMedia[], maxReads = 2): PoolMedia[] {
  const q = stemSet(question);
  const ents = new Set(entities(question).flatMap((e) => tokens(e).map(stem)));
  const visual = /\b(figure|fig|chart|graph|plot|image|photo|picture|diagram|table|color|colour|logo|shown|depicted|map)\b/i.test(question);
  return media
    .map((m, i) => ({ m, i, s: overlapScore(q, ents, [m.label, m.caption, m.text].filter(Boolean).join(' ')) + (visual && m.kind === 'image' ? 0.5 : 0) }))
    .filter((x) => x.s >= 1)
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .slice(0, Math.max(0, maxReads))
    .map((x) => x.m);
}

export function locatorPlan(task: LocatorTask | AgentTask): PlannedCall[] {
  const tool = task.searchTool ?? 'search_knowledge';
  return decomposeQuestion(task.question, task.maxQueries ?? 3).map((query) => ({
    tool,
    args: { query, topk: task.topk ?? 8 },
    thought: `Search the knowledge base for "${query}".`,
  }));
}

export function readerPlan(task: ReaderTask | AgentTask): PlannedCall[] {
  const tool = task.readTool ?? 'read_media';
  return mediaToRead(task.question, task.media ?? [], task.maxReads ?? 2).map((m) => ({
    tool,
    args: { fragment_ids: [m.fragmentId], question: task.question },
    thought: `Read ${m.label ?? m.kind} ${m.fragmentId}: its caption matches the question.`,
  }));
}

/** The reply for this round given the plan: the next call in the request's protocol, or the final. */
export function agentStep(req: ChatRequest, plan: PlannedCall[]): OfflineAgentReply {
  const done = previousCalls(req).length;
  const nativeTools = (req.tools?.length ?? 0) > 0;
  const available = nativeTools ? new Set(req.tools!.map((t) => t.name)) : undefined;
  // Skip planned calls whose tool this request does not offer (native protocol only: JSON prompts list tools in prose).
  const next = plan.filter((p) => !available || available.has(p.tool))[done];
  if (!next) {
    const thought = done ? `I made ${done} call${done === 1 ? '' : 's'}; the evidence is gathered.` : 'Nothing to look up for this question.';
    return nativeTools ? { text: thought, toolCalls: [] } : { text: JSON.stringify({ thought, final: 'ok' }), toolCalls: [] };
  }
  if (nativeTools) {
    return { text: '', toolCalls: [{ id: `offline_call_${done + 1}`, name: next.tool, arguments: JSON.stringify(next.args) }] };
  }
  return { text: JSON.stringify({ thought: next.thought, tool: next.tool, args: next.args }), toolCalls: [] };
}

/** Words of a question for thoughts and reasons (content words, original order). */
export function questionGist(question: string): string {
  return contentWords(question).slice(0, 8).join(' ');
}
