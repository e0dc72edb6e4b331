/**
 * The query pattern P(q) = (conditions, target, k_v) through the `pattern`
 * model stage (paper: a constrained LLM parser). With an endpoint configured the
 * model parses; on the offline backend the rule stand-in of
 * lib/dualg/offline/pattern.ts answers the same request, and the result says so
 * (`by`), so a stand-in parse is never reported as a model's. A reply that is
 * not a pattern (or is cut by the token limit) is rejected (never replayed from
 * the cache) and asked once more; a second unusable reply falls back to the rule
 * parser, recorded as a departure (`departure`, traced and counted), never silently.
 */
import { findJsonObject } from '../../model-api/json-repair';
import { cutByTokenLimit, rejectReply } from '../../model-api/reply-verdict';
import type { ChatModel, ChatResponse } from '../../model-api/types';
import { parsePattern } from '../offline/pattern';
import { fillPrompt } from '../../util/prompts';
import type { PatternTask } from '../offline/tasks';
import type { PatternTriple } from './micro-match';

export interface QueryPattern {
  conditions: PatternTriple[];
  target: string;
  /** k_v: the most raw images the generator receives. */
  visualBudget: number;
  /** Who parsed: `model <id>` or `offline rules (stand-in)`. */
  by: string;
  /** True when the rule parser answered (the offline backend's stand-in, or the fallback after unusable replies). */
  offline: boolean;
  /** Set when the model's replies were unusable and the rule parser stood in: what happened, for traces and records. */
  departure?: string;
  /** The model calls made (1, or 2 after an unusable reply). */
  calls: number;
}

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
  const ask = () =>
    model.chat(
      {
        stage: 'pattern',
        messages: [{ role: 'user', content: fillPrompt('dualg-pattern', { question, maxImages: String(opts.maxImages) }) }],
        temperature: 0,
        json: true,
        questionId: opts.questionId,
        task,
      },
      opts.signal,
    );
  const replies: ChatResponse[] = [];
  for (let i = 0; i < 2; i++) {
    const res = await ask();
    replies.push(res);
    const p = cutByTokenLimit(res) ? undefined : patternOf(res.text, opts.maxImages);
    if (p) {
      const offline = res.backend === 'offline';
      return { ...p, offline, by: offline ? 'offline rules (stand-in)' : `model ${res.model}`, calls: replies.length };
    }
    rejectReply(res, cutByTokenLimit(res) ? 'length' : 'unparseable');
  }
  const why = replies.map((r) => (cutByTokenLimit(r) ? 'cut at the token limit' : r.text.trim() ? 'no {"conditions": [...]} object' : 'empty')).join(', then ');
  const rules = parsePattern(task);
  return {
    conditions: rules.conditions,
    target: rules.target,
    visualBudget: Math.max(0, Math.min(opts.maxImages, rules.visual_budget)),
    offline: true,
    by: 'rule parser (fallback: the model gave no usable pattern)',
    departure: `the pattern model's two replies were unusable (${why}): the rule parser stood in`,
    calls: replies.length,
  };
}
