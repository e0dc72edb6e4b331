/**
 * The query pattern P(q) = (conditions, target, k_v) through the `pattern`
 * model stage (paper: a constrained LLM parser). With an endpoint configured the
 * model parses; on the offline backend the rule stand-in of
 * lib/dualg/offline/pattern.ts answers the same request, and the result says so
 * (`by`), so a stand-in parse is never reported as a model's. A reply that is
 * not a pattern fails the question (ModelOutputError), it is never replaced by
 * the rules silently.
 */
import { ModelOutputError } from '../../model-api/model-output-error';
import { findJsonObject } from '../../model-api/json-repair';
import type { ChatModel } from '../../model-api/types';
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
  /** True when the offline backend's rule stand-in answered. */
  offline: boolean;
}

/** The entities the parser recognised: the condition terms that are not variables (`?x`), in order, once each. */
export function patternEntities(conditions: readonly PatternTriple[]): string[] {
  const out: string[] = [];
  for (const [s, , o] of conditions) for (const t of [s, o]) if (!t.trim().startsWith('?') && !out.includes(t.trim())) out.push(t.trim());
  return out;
}

const isTriple = (t: unknown): t is PatternTriple => Array.isArray(t) && t.length === 3 && t.every((x) => typeof x === 'string' && x.trim() !== '');

/** The pattern in a reply, or undefined when the reply holds none. */
export function patternOf(text: string, maxImages: number): Omit<QueryPattern, 'by' | 'offline'> | undefined {
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
  const res = await model.chat(
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
  const p = patternOf(res.text, opts.maxImages);
  if (!p) throw new ModelOutputError('pattern', 'unparseable', 'the pattern parser replied without a {"conditions": [[s, r, o], ...]} object', res.text);
  const offline = res.backend === 'offline';
  return { ...p, offline, by: offline ? 'offline rules (stand-in)' : `model ${res.model}` };
}
