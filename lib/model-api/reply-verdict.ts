/**
 * The asking stage's verdict on a model reply. A stage that cannot use a reply
 * (cut at the token limit, empty, unparseable, holding no answer) rejects it:
 * the reply cache then never serves it again, so `--retry-errors` and every
 * later run ask the model anew instead of replaying the failure.
 */
import { ModelOutputError, type ModelOutputProblem } from './model-output-error';
import type { ChatResponse } from './types';

/** The finish reason of a reply cut by the token limit (OpenAI-compatible servers). */
const CUT_BY_TOKEN_LIMIT = 'length';

/** Whether the endpoint cut the reply at its token limit. */
export function cutByTokenLimit(res: Pick<ChatResponse, 'finishReason'>): boolean {
  return res.finishReason === CUT_BY_TOKEN_LIMIT;
}

/** Mark replies rejected (no-op for replies nothing stored). Never throws: a verdict must not hide the failure it reports. */
export function rejectReply(replies: ChatResponse | readonly (ChatResponse | undefined)[] | undefined, reason: string): void {
  for (const r of Array.isArray(replies) ? replies : [replies]) {
    try {
      (r as ChatResponse | undefined)?.reject?.(reason);
    } catch {
      /* the cache is closed or busy: the error itself still reaches the record */
    }
  }
}

/**
 * The error of a reply the stage refuses, the replies rejected first (the last one's finish reason goes into
 * the error: `length` for a reply cut by the token limit).
 */
export function refuseReply(
  replies: ChatResponse | readonly ChatResponse[],
  stage: string,
  problem: ModelOutputProblem,
  what: string,
  received?: string,
): ModelOutputError {
  const list = Array.isArray(replies) ? (replies as readonly ChatResponse[]) : [replies as ChatResponse];
  const last = list[list.length - 1];
  const err = new ModelOutputError(stage, problem, what, received ?? last?.text, { finishReason: last?.finishReason });
  rejectReply(list, err.reason);
  return err;
}

/** A reply with neither text nor a tool call. */
function emptyReply(res: Pick<ChatResponse, 'text' | 'toolCalls'>): boolean {
  return !res.text.trim() && !res.toolCalls.length;
}

/**
 * Ask, and ask once more when the reply is empty (a transient failure of the endpoint: the agent loops give
 * it a second chance too). Empty replies are never cached, so the second ask reaches the endpoint.
 */
export async function askAgainIfEmpty<T>(ask: () => Promise<T>, replyOf: (out: T) => ChatResponse): Promise<{ out: T; reasked: boolean }> {
  const first = await ask();
  if (!emptyReply(replyOf(first))) return { out: first, reasked: false };
  return { out: await ask(), reasked: true };
}
