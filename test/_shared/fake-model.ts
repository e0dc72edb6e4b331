/**
 * A fake ChatModel for tests that call a model stage directly (no HTTP): the replies are scripted, the
 * requests recorded. Tests of the HTTP path use the scripted server (lib/models/testing/scripted-server.ts).
 */
import type { ChatModel, ChatRequest, ChatResponse } from '../../lib/model-api/types';

/** A ChatModel that answers with `reply(req, n)` (a string, or an Error to throw) and records every request. */
export function fakeModel(reply: (req: ChatRequest, n: number) => string | Error, id = 'fake-model'): ChatModel & { calls: ChatRequest[] } {
  const calls: ChatRequest[] = [];
  return {
    id,
    backend: 'scripted',
    calls,
    async chat(req: ChatRequest): Promise<ChatResponse> {
      calls.push(req);
      const r = reply(req, calls.length - 1);
      if (r instanceof Error) throw r;
      return {
        text: r,
        toolCalls: [],
        usage: { promptTokens: 100, completionTokens: 20 },
        model: id,
        backend: 'scripted',
        finishReason: 'stop',
        cacheHit: false,
        latencyMs: 1,
        attempts: 1,
      };
    },
  };
}
