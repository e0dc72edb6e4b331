/** Shared bits of the index-build tests: a scripted fake ChatModel, fragments, temp dirs. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Fragment } from '../../lib/corpus/types';
import type { ChatModel, ChatRequest, ChatResponse } from '../../lib/model-api/types';

export function tempDir(prefix = 'kf-index-build-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

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

let ordinal = 0;
export function frag(docId: string, text: string, extra: Partial<Fragment> = {}): Fragment {
  const n = extra.ordinal ?? ordinal++;
  return { id: `${docId}#${n}`, docId, kind: 'text', text, section: [], ordinal: n, attached: [], ...extra };
}
