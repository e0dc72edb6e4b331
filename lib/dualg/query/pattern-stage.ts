/**
 * The query pattern P(q) = (conditions, target, k_v) through the `pattern`
 * model stage (paper: a constrained LLM parser). With an endpoint configured the
 * model parses; on the offline backend the rule stand-in of
 * lib/dualg/offline/pattern.ts answers the same request, and the result says so
 * (`by`), so a stand-in parse is never reported as a model's. A reply that is
 * not a pattern (or is cut by the token limit) is rejected (never replayed from
 * the cache) and asked again once, with the unusable reply and a correction
 * appended (a different request); a second unusable reply is parsed by the rule
 * parser instead, and the pattern says so (`departure`, `by`): a departure
 * recorded for that question, never a failed question and never a silent
 * substitution.
 */
import { findJsonObject } from '../../model-api/json-repair';
import { cutByTokenLimit, rejectReply } from '../../model-api/reply-verdict';
import type { ChatMessage, ChatModel, ChatResponse } from '../../model-api/types';
import { fillPrompt, loadPrompt } from '../../util/prompts';
import { parsePattern } from '../offline/pattern';
import type { PatternTask } from '../offline/tasks';
import type { PatternTriple } from './micro-match';

export interface QueryPattern {
  conditions: PatternTriple[];
  target: string;
  /** k_v: the most raw images the generator receives. */
  visualBudget: number;
  /** Who parsed: `model <id>` or `offline rules (stand-in)`. */
  by: string;
  /** True when the offline backend's rule stand-in answered (a fallback after unusable model replies is `by` RULES_AFTER_MODEL). */
  offline: boolean;
  /** Set when the model's replies were unusable and the rule parser stood in: what happened, for traces and records. */
  departure?: string;
  /** The model calls made (1, or 2 after an unusable reply). */
  calls: number;
}

/** `by` of a pattern the rule parser wrote after the model's replies held none. */
export const RULES_AFTER_MODEL = 'rule parser (after the model replied twice without a pattern)';

/** The entities the parser recognised: the condition terms that are not variables (`?x`), in order, once each. */
export function patternEntities(conditions: readonly PatternTriple[]): string[] {
  const out: string[] = [];
  for (const [s, , o] of conditions) for (const t of [s, o]) if (!t.trim().startsWith('?') && !out.includes(t.trim())) out.push(t.trim());
  return out;
}

const isTriple = (t: unknown): t is PatternTriple => Array.isArray(t) && t.length === 3 && t.every((x) => typeof x === 'string' && x.trim() !== '');

/** The pattern in a reply, or undefined when the reply holds none. */
export function patternOf(text: string, maxImages: number): Pick<QueryPattern, 'conditions' | 'target' | 'visualBudget'> | undefined {
  const found = findJsonObject(text, (v) => Array.isArray(v.conditions));
  if (!found) return undefined;
  const v = found.value as { conditions: unknown[]; target?: unknown; visual_budget?: unknown };
  const conditions = v.conditions.filter(isTriple);
  if (!conditions.length) return undefined;
  const budget = typeof v.visual_budget === 'number' && Number.isFinite(v.visual_budget) ? Math.round(v.visual_budget) : 0;
  return { conditions, target: typeof v.target === 'string' ? v.target : '?x', visualBudget: Math.max(0, Math.min(maxImages, budget)) };
}

export async function parseQueryPattern(
  model: ChatModel,
  question: string,
  opts: { maxImages: number; questionId?: string; signal?: AbortSignal },
): Promise<QueryPattern> {
  const task: PatternTask = { role: 'pattern', question, maxImages: opts.maxImages };
  const ask = (messages: ChatMessage[]) =>
    model.chat({ stage: 'pattern', messages, temperature: 0, json: true, questionId: opts.questionId, task }, opts.signal);
  const usable = (res: ChatResponse) => (cutByTokenLimit(res) ? undefined : patternOf(res.text, opts.maxImages));
  const verdict = (res: ChatResponse) => rejectReply(res, cutByTokenLimit(res) ? 'length' : 'unparseable');
  const first: ChatMessage[] = [{ role: 'user', content: fillPrompt('dualg-pattern', { question, maxImages: String(opts.maxImages) }) }];
  const res = await ask(first);
  const p = usable(res);
  const offline = res.backend === 'offline';
  if (p) return { ...p, offline, by: offline ? 'offline rules (stand-in)' : `model ${res.model}`, calls: 1 };
  verdict(res);
  // Once more, with the unusable reply and a correction: a different request, so no cached reply answers it.
  const again = await ask([...first, { role: 'assistant', content: res.text }, { role: 'user', content: loadPrompt('dualg-pattern-retry') }]);
  const p2 = usable(again);
  if (p2) return { ...p2, offline, by: `model ${again.model} (second try)`, calls: 2 };
  verdict(again);
  const why = [res, again]
    .map((r) => (cutByTokenLimit(r) ? 'cut at the token limit' : r.text.trim() ? 'no {"conditions": [...]} object' : 'empty'))
    .join(', then ');
  const rules = patternOf(JSON.stringify(parsePattern(task)), opts.maxImages)!;
  return {
    ...rules,
    offline: false,
    by: RULES_AFTER_MODEL,
    departure: `pattern: model ${again.model} gave two unusable replies (${why}); the rule parser parsed the question`,
    calls: 2,
  };
}
