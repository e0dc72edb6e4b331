/**
 * The bridge judge (spec job 3): ONE code-scheduled model call after the
 * Locator stops. It sees the question (without the answer-format guardrail),
 * the queries already run and the first 8,000 characters of the pool, and
 * answers {need_more, bridge_entities (<=3), queries, reason (<=200 chars)}.
 * Queries already run are dropped (case-insensitive), at most 2 are kept and
 * each runs as a search (top-k 8) tagged `bridge`. It only ADDS evidence.
 *
 * need_more = false: the paper runs nothing; the released runner still runs the
 * queries (setting `judgeOnNeedMoreFalse: 'paper' | 'runner'`).
 *
 * Configuration M5JD (setting judgeDrops): the judge may also take evidence
 * out, naming pool blocks by number ("drop"); only blocks it saw (in its
 * 8,000 characters) can go, and they stay out of the pool for good.
 */
import type { ChatMessage, ChatModel, ChatResponse } from '../model-api/types';
import { findJsonObject } from '../model-api/json-repair';
import { cutByTokenLimit, refuseReply, rejectReply } from '../model-api/reply-verdict';
import { fillPrompt, hasPrompt, loadPrompt } from '../util/prompts';
import type { JudgeTask } from './offline/tasks';

export const JUDGE_POOL_CHARS = 8_000;
export const JUDGE_MAX_QUERIES = 2;
export const JUDGE_MAX_ENTITIES = 3;
export const JUDGE_REASON_CHARS = 200;

export interface JudgeVerdict {
  needMore: boolean;
  bridgeEntities: string[];
  /** Queries as the judge proposed them. */
  proposed: string[];
  /** What will run: proposed minus already-run (case-insensitive), at most 2; empty when nothing should run. */
  toRun: string[];
  reason: string;
  /** Pool block numbers the judge asked to drop (only when it may: setting judgeDrops). */
  drop: number[];
  /** Why the reply could not be used (nothing runs then). */
  parseError?: string;
  response: ChatResponse;
}

export interface JudgeInput {
  question: string;
  queriesRun: string[];
  poolText: string;
  onNeedMoreFalse: 'paper' | 'runner';
  questionId?: string;
  /** The judge may also drop pool blocks by number (configuration M5JD): its prompt says how. */
  mayDrop?: boolean;
}

function strings(v: unknown): string[] {
  return Array.isArray(v)
    ? v
        .filter((x): x is string => typeof x === 'string')
        .map((x) => x.trim())
        .filter(Boolean)
    : typeof v === 'string' && v.trim()
      ? [v.trim()]
      : [];
}

/** Block numbers of a drop list: positive integers (numbers or digit strings such as "3" / "fig 3"), once each. */
function blockNumbers(v: unknown): number[] {
  const out = new Set<number>();
  for (const x of Array.isArray(v) ? v : []) {
    const n = typeof x === 'number' ? x : typeof x === 'string' ? Number(/(\d+)/.exec(x)?.[1]) : NaN;
    if (Number.isInteger(n) && n > 0) out.add(n);
  }
  return [...out];
}

/** Drop queries already run or repeated (case-insensitive); keep at most `max`. */
export function freshQueries(proposed: string[], alreadyRun: string[], max = JUDGE_MAX_QUERIES): string[] {
  const seen = new Set(alreadyRun.map((q) => q.trim().toLowerCase()));
  const out: string[] = [];
  for (const q of proposed) {
    const key = q.trim().toLowerCase();
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(q.trim());
    if (out.length >= max) break;
  }
  return out;
}

/**
 * The judge's messages: one user message from `bridge-judge` (the project's layout), or, when the prompt pack
 * splits it as the released runner does, `bridge-judge-system` plus a `bridge-judge-user` message.
 */
export function judgeMessages(question: string, queriesRun: string[], pool: string, mayDrop = false): ChatMessage[] {
  const messages = judgeBaseMessages(question, queriesRun, pool);
  if (!mayDrop) return messages;
  // The drop instruction follows the layout's own request, in the last (user) message.
  const last = messages[messages.length - 1];
  return [...messages.slice(0, -1), { ...last, content: `${String(last.content)}\n\n${fillPrompt('bridge-judge-drop', {}).trim()}` }];
}

function judgeBaseMessages(question: string, queriesRun: string[], pool: string): ChatMessage[] {
  const vars = {
    question,
    queries: queriesRun.length ? queriesRun.map((q) => `- ${q}`).join('\n') : '(none)',
    queriesJson: JSON.stringify(queriesRun),
    pool: pool || '(nothing found)',
  };
  if (hasPrompt('bridge-judge-system') && hasPrompt('bridge-judge-user'))
    return [
      { role: 'system', content: loadPrompt('bridge-judge-system') },
      { role: 'user', content: fillPrompt('bridge-judge-user', vars) },
    ];
  return [{ role: 'user', content: fillPrompt('bridge-judge', vars) }];
}

export async function runBridgeJudge(model: ChatModel, input: JudgeInput, signal?: AbortSignal): Promise<JudgeVerdict> {
  const pool = input.poolText.slice(0, JUDGE_POOL_CHARS);
  const task: JudgeTask = { role: 'judge', question: input.question, queriesRun: input.queriesRun, pool, ...(input.mayDrop ? { mayDrop: true } : {}) };
  const response = await model.chat(
    {
      stage: 'bridge',
      messages: judgeMessages(input.question, input.queriesRun, pool, input.mayDrop),
      temperature: 0,
      maxTokens: 512,
      json: true,
      questionId: input.questionId,
      task,
    },
    signal,
  );
  // Its reply is final (one call, no second chance): a reply cut by the token limit is refused, never half-read.
  if (cutByTokenLimit(response)) throw refuseReply(response, 'bridge', 'truncated', 'the bridge judge reply was cut at the token limit');
  const found = findJsonObject(response.text, (v) => 'need_more' in v || 'queries' in v);
  if (!found) {
    rejectReply(response, 'unparseable'); // unused, so never replayed from the cache
    return {
      needMore: false,
      bridgeEntities: [],
      proposed: [],
      toRun: [],
      reason: '',
      drop: [],
      parseError: `no judge JSON in the reply: ${JSON.stringify(response.text.slice(0, 200))}`,
      response,
    };
  }
  const v = found.value;
  const needMore = v.need_more === true || v.need_more === 'true';
  const proposed = strings(v.queries);
  const fresh = freshQueries(proposed, input.queriesRun);
  const runs = needMore || input.onNeedMoreFalse === 'runner';
  return {
    needMore,
    bridgeEntities: strings(v.bridge_entities).slice(0, JUDGE_MAX_ENTITIES),
    proposed,
    toRun: runs ? fresh : [],
    reason: (typeof v.reason === 'string' ? v.reason : '').slice(0, JUDGE_REASON_CHARS),
    drop: input.mayDrop ? blockNumbers(v.drop) : [],
    response,
  };
}
