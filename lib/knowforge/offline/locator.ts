/**
 * The offline Locator (and the finding half of the offline P0 agent): it
 * REFORMULATES from what it has found, like a model reading its search
 * results. Each round it reads the search results already in the
 * conversation and picks the next query:
 *   1. round 1: the question's keywords;
 *   2. an entity of the question that no found document is about yet
 *      (comparison questions name two first hops);
 *   3. a next-hop name found in the text of a first-hop document ("directed
 *      by X", "married X"), one per first-hop document;
 *   4. the remaining rule-based decompositions of the question.
 * Queries already run are never repeated; it finishes when nothing is left or
 * its query budget (one round short of the cap) is spent.
 */
import { findJsonObject } from '../../model-api/json-repair';
import type { ChatRequest } from '../../model-api/types';
import { agentStep, decomposeQuestion, previousCalls, readerPlan, type OfflineAgentReply, type PlannedCall } from './agent-policies';
import { bridgeNames, uncoveredEntities, type FoundHit } from './bridge-entities';
import { runnerListingHits } from './runner-listing';
import type { AgentTask, LocatorTask, PoolMedia } from './tasks';

function textOf(content: ChatRequest['messages'][number]['content']): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

/** Hits of the search results already in the conversation (either protocol, either listing layout), in order. */
export function searchResultsSoFar(req: ChatRequest): FoundHit[] {
  const out: FoundHit[] = [];
  for (const m of req.messages) {
    if (m.role !== 'tool' && m.role !== 'user') continue;
    const text = textOf(m.content);
    if (!text.includes('"hits"')) {
      out.push(...runnerListingHits(text));
      continue;
    }
    const found = findJsonObject(text.slice(text.indexOf('{')), (v) => Array.isArray(v.hits));
    for (const h of (found?.value.hits as { doc?: unknown; text?: unknown; id?: unknown; kind?: unknown }[] | undefined) ?? []) {
      if (typeof h?.doc === 'string')
        out.push({
          doc: h.doc,
          text: typeof h.text === 'string' ? h.text : '',
          id: typeof h.id === 'string' ? h.id : undefined,
          kind: typeof h.kind === 'string' ? h.kind : undefined,
        });
    }
  }
  return out;
}

/** The next query of a finding role given what it already ran and found (undefined: finish). */
export function nextQuery(question: string, ran: string[], hits: FoundHit[]): string | undefined {
  const done = new Set(ran.map((q) => q.trim().toLowerCase()));
  const fresh = (q: string | undefined) => (q && !done.has(q.trim().toLowerCase()) ? q : undefined);
  const decomposed = decomposeQuestion(question, 4);
  if (!ran.length) return decomposed[0];
  // A figure line of the runner's listing names no document: only hits with one tell what was found.
  const found = hits.filter((h) => h.doc);
  for (const e of uncoveredEntities(question, found)) if (fresh(e)) return e;
  for (const n of bridgeNames(question, found)) if (fresh(n)) return n;
  for (const d of decomposed) if (fresh(d)) return d;
  return undefined;
}

/** P0's reading half: the figures and tables its own searches returned, opened when they match the question. */
export function mediaReadsFromResults(req: ChatRequest, task: AgentTask): PlannedCall[] {
  const seen = new Set<string>();
  const media: PoolMedia[] = [];
  for (const h of searchResultsSoFar(req)) {
    if (!h.id || (h.kind !== 'image' && h.kind !== 'table') || seen.has(h.id)) continue;
    seen.add(h.id);
    media.push({ fragmentId: h.id, kind: h.kind, text: h.text });
  }
  return readerPlan({ ...task, media: task.media?.length ? task.media : media });
}

export function locatorReply(req: ChatRequest, task: LocatorTask | AgentTask, after: PlannedCall[] = []): OfflineAgentReply {
  const tool = task.searchTool ?? 'search_knowledge';
  const calls = previousCalls(req);
  const ran = calls.filter((c) => c.tool === tool).map((c) => String(c.args.query ?? ''));
  const budget = task.maxQueries ?? 3;
  const plan: PlannedCall[] = calls.map((c) => ({ tool: c.tool, args: c.args, thought: '' }));
  const query = ran.length < budget && calls.length === ran.length ? nextQuery(task.question, ran, searchResultsSoFar(req)) : undefined;
  if (query)
    plan.push({
      tool,
      args: { query, topk: task.topk ?? 8 },
      thought: ran.length ? `Search for "${query}": the next hop named in what I found.` : `Search the knowledge base for "${query}".`,
    });
  else plan.push(...after.slice(calls.length - ran.length));
  return agentStep(req, plan);
}
