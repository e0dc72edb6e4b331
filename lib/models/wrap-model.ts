/**
 * The one function that composes the model layer: a ChatModel wrapped by a list
 * of middleware, in the manner of the Vercel AI SDK's `wrapLanguageModel`.
 * Each middleware sees the request on its way in and the reply (or error) on its
 * way out, and decides whether and how to call the rest of the stack:
 *
 *   wrapModel(provider, [ledger, cache, redaction, retry])
 *     = ledger( cache( redaction( retry( provider ) ) ) )
 *
 * The FIRST middleware is the outermost (it sees the caller's request first and
 * the final reply last). Every concern (cache, ledger, retries, the concurrency
 * limit, the circuit breaker, redaction) is one middleware in one file under
 * lib/models/middleware/; the router only chooses the list per stage.
 */
import type { ChatModel, ChatRequest, ChatResponse } from '../model-api/types';

/** The rest of the stack below a middleware. */
export type ChatNext = (req: ChatRequest, signal?: AbortSignal) => Promise<ChatResponse>;

export interface ChatMiddleware {
  /** Short name (for error messages and tests). */
  readonly name: string;
  wrapChat(call: { next: ChatNext; req: ChatRequest; signal?: AbortSignal; model: ChatModel }): Promise<ChatResponse>;
}

export function wrapModel(model: ChatModel, middleware: readonly ChatMiddleware[]): ChatModel {
  let chat: ChatNext = (req, signal) => model.chat(req, signal);
  for (const mw of [...middleware].reverse()) {
    const next = chat;
    chat = (req, signal) => mw.wrapChat({ next, req, signal, model });
  }
  return { id: model.id, backend: model.backend, chat };
}
