/**
 * The fault server of the test tree: the scripted OpenAI-compatible server
 * (lib/models/testing/scripted-server.ts) playing a competent model
 * (demo-model.helper.ts) that injects faults per question and per role, each
 * transient (the first `times` requests of that role about that question) or
 * persistent (every request, every attempt), until `recover()` is called: then
 * every request is answered well, as an endpoint that came back.
 *
 * Fault kinds, by what they break:
 *   transport  t429 (429, Retry-After 0), http500, hang (past the client's timeout),
 *              cutBody (connection dropped mid-body), html (an HTML error page as the body)
 *   content    empty, truncated (the good text cut to a third, finish reason length),
 *              cutFinal (cut inside its FINAL ANSWER line, finish reason length: "FINAL ANSWER: Kr"),
 *              garbage (a short text that is neither JSON nor an answer), badArgs (a tool call whose
 *              arguments are not JSON), repairArgs (a tool call whose arguments need repair: a
 *              trailing comma), echo (the good reply with `echo` text appended)
 */
import type { RecordedRequest, ScriptedReply } from '../../lib/models/testing/scripted-server';
import { goodReply, questionFinder, type Q } from './demo-model.helper';
import { loadPrompt } from '../../lib/util/prompts';

const IMAGE_PROBE_TEXT = loadPrompt('dualg-image-probe').trim();

export type FaultKind = 't429' | 'http500' | 'hang' | 'cutBody' | 'html' | 'empty' | 'truncated' | 'cutFinal' | 'garbage' | 'badArgs' | 'repairArgs';

export interface Fault {
  kind: FaultKind;
  mode: 'transient' | 'persistent';
  /** The model name (role) it hits (demo-model.helper's STAGE_MODELS: syn, chk, loc, pat...); default every role. */
  role?: string;
  /** Transient faults: how many requests of that role fail first (default 1). */
  times?: number;
}

/** Neither JSON nor an answer, and too short to pass for a prose finish (the agent loops read it as malformed). */
const GARBAGE = '@@@ ### garbled ### @@@';

/** A good FINAL ANSWER reply cut inside its final line (what a max_tokens stop leaves): "...FINAL ANSWER: Kr". */
function cutInsideFinal(good: ScriptedReply): ScriptedReply {
  const text = good.text ?? '';
  const at = text.lastIndexOf('FINAL ANSWER:');
  const keep = at >= 0 ? at + 'FINAL ANSWER: '.length + Math.max(1, Math.floor((text.length - at - 14) / 2)) : Math.floor(text.length / 2);
  return { text: text.slice(0, Math.max(1, keep)), finishReason: 'length' };
}

function faultReply(kind: FaultKind, good: ScriptedReply, q: Q, hangMs: number): ScriptedReply {
  switch (kind) {
    case 't429':
      return { status: 429, headers: { 'retry-after': '0' } };
    case 'http500':
      return { status: 500, error: 'injected' };
    case 'hang':
      return { ...good, delayMs: hangMs };
    case 'cutBody':
      return { ...good, cutBody: true };
    case 'html':
      return { rawBody: '<html><body><h1>502 Bad Gateway</h1></body></html>', headers: { 'content-type': 'text/html' } };
    case 'empty':
      return { text: '' };
    case 'truncated':
      return { text: (good.text ?? '').slice(0, Math.max(1, Math.floor((good.text ?? '').length / 3))), finishReason: 'length' };
    case 'cutFinal':
      return cutInsideFinal(good);
    case 'garbage':
      return { text: GARBAGE };
    case 'badArgs':
      return { text: '', toolCalls: [{ name: 'search_knowledge', arguments: '{"query": "unterminated' }] };
    case 'repairArgs':
      return { text: '', toolCalls: [{ name: 'search_knowledge', arguments: `{"query": ${JSON.stringify(q.question)},}` }] };
  }
}

export interface FaultScript {
  /** Question ids a request was about (cleared by the caller between runs). */
  asked: Set<string>;
  /** Requests per question id and role (model name), since the last reset. */
  requests: Map<string, Map<string, number>>;
  /** How many faults were injected. */
  injected: number;
  reply(req: RecordedRequest): ScriptedReply;
  /** The endpoint came back: no more faults. */
  recover(): void;
  /** Forget the request counts (a new pass; transient faults fire again only for counts they had not reached). */
  resetCounts(): void;
  /** Requests made for a role (model name), over every question. */
  count(role: string): number;
}

export function faultScript(questions: Q[], faultsOf: (i: number) => Fault[], opts: { hangMs?: number; echo?: string } = {}): FaultScript {
  const questionOf = questionFinder(questions);
  const seen = new Map<string, number>();
  let recovered = false;
  const s: FaultScript = {
    asked: new Set(),
    requests: new Map(),
    injected: 0,
    recover: () => void (recovered = true),
    resetCounts: () => s.requests.clear(),
    count: (role) => [...s.requests.values()].reduce((n, m) => n + (m.get(role) ?? 0), 0),
    reply(req) {
      // DualG's one-time image probe of the synth endpoint (lib/dualg/image-probe.ts): this model takes images.
      if (JSON.stringify(req.body).includes(IMAGE_PROBE_TEXT)) return { text: 'white' };
      const hit = questionOf(req);
      if (!hit) return { status: 400, error: 'the scripted model cannot tell which question this is' };
      const role = req.model ?? '';
      s.asked.add(hit.q.id);
      const per = s.requests.get(hit.q.id) ?? new Map<string, number>();
      per.set(role, (per.get(role) ?? 0) + 1);
      s.requests.set(hit.q.id, per);
      const key = `${hit.q.id}\u0000${role}`;
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      const good = goodReply(req, hit.q);
      const withEcho = opts.echo && good.text !== undefined ? { ...good, text: `${good.text}\n${opts.echo}` } : good;
      if (recovered) return withEcho;
      const f = faultsOf(hit.i).find((x) => x.role === undefined || x.role === role);
      if (!f || (f.mode === 'transient' && n >= (f.times ?? 1))) return withEcho;
      s.injected++;
      return faultReply(f.kind, good, hit.q, opts.hangMs ?? 3000);
    },
  };
  return s;
}
