/**
 * The scripted model of the runner comparison: every reply is a deterministic function of the
 * request, so the released runner and the harness in runner mode get the same reply whenever they
 * send the same request. Calls are told apart by their shape, not by any prompt wording:
 *   vision     a message with an image part;
 *   extraction the benchmark judge (a user prompt then an assistant turn);
 *   judge      max_tokens 300 (bridge judge): need_more, queries (run even when need_more is false);
 *   checker    max_tokens 200: {"final": ...}, sometimes a refusal word, sometimes a list;
 *   synth      temperature 0.3: an answer with a FINAL ANSWER line;
 *   agent      anything else: a scripted turn chosen by the question, the role's tools (the lines of
 *              its catalogue) and the turn number (prose, a search, malformed JSON, a thought-only
 *              object, an unknown tool, repeats, a context read of an id taken from the latest tool
 *              result, an early finish, the listing and table tools, read_media on ids seen so far).
 */
import type { RecordedRequest, ScriptedReply } from '../../../models/testing/scripted-server';
import { sha256 } from '../../../util/hash';

type Msg = { role: string; content: unknown };

const textOf = (c: unknown): string =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : '')).join('') : '';

function pick<T>(key: string, xs: readonly T[]): T {
  return xs[parseInt(sha256(key).slice(0, 8), 16) % xs.length];
}

/** The question words (latin) of the first user message: what a search asks. */
function questionWords(messages: Msg[]): string {
  const user = textOf(messages.find((m) => m.role === 'user')?.content);
  const words = user.match(/[A-Za-z0-9][A-Za-z0-9'-]*/g) ?? [];
  return words.slice(0, 7).join(' ') || 'overview';
}

/** A fragment id named in the latest user message (the last tool result). */
function latestId(messages: Msg[]): string | undefined {
  const last = textOf([...messages].reverse().find((m) => m.role === 'user')?.content);
  const ids = last.match(/[A-Za-z0-9_.-]+#\d+/g) ?? last.match(/frag_[0-9a-f]+/g);
  return ids?.[0];
}

const obj = (o: Record<string, unknown>) => ({ text: JSON.stringify(o) });

/** Fragment ids named anywhere in the conversation after the system prompt, first seen first. */
function allIds(messages: Msg[]): string[] {
  const text = messages
    .slice(1)
    .map((m) => textOf(m.content))
    .join('\n');
  // Harness ids (<document>#<n>) or the ids kf serve kb shows the runner (frag_<hex>).
  return [...new Set(text.match(/[A-Za-z0-9_.-]+#\d+|frag_[0-9a-f]{16}/g) ?? [])];
}

/** Is a tool in the role's catalogue (a line of the system prompt that starts with its name)? */
const hasTool = (system: string, name: string) => new RegExp(`^- ${name}[^A-Za-z_]`, 'm').test(system);

function locatorScripts(messages: Msg[], q: string, look?: ScriptedReply): ScriptedReply[][] {
  const id = latestId(messages);
  const last = textOf([...messages].reverse().find((m) => m.role === 'user')?.content);
  const table = /table_id=([^\s，,）)]+)/.exec(last)?.[1] ?? id ?? 'none';
  const search = obj({ thought: 'search the question', tool: 'search_knowledge', args: { query: q } });
  const context = id ? obj({ thought: 'read around it', tool: 'fragment_context', args: { fragment_id: id, window: 1 } }) : search;
  const done = obj({ thought: 'enough', final: 'ok' });
  return [
    [search, context, done],
    [{ text: 'The answer is probably in the introduction of the report, so I will describe it directly here.' }, search, done],
    [search, { text: '{"thought": oops, "tool": }' }, { text: '{"thought": "next"}' }, done],
    [{ text: '{"thought": "need the figures"}' }, obj({ thought: 'x', tool: 'web_lookup', args: { q } }), search, done],
    [search, search, search],
    [{ text: '{"thought": "bad" "tool"' }, { text: 'not json {' }],
    [obj({ thought: 'answer now', final: 'x'.repeat(300) }), search, done],
    [obj({ thought: 'all figures', tool: 'list_media', args: {} }), look ?? search, done],
    [
      obj({ thought: 'numbered', tool: 'find_figure', args: { label: 'Figure 1' } }),
      obj({ thought: 'books', tool: 'list_books', args: {} }),
      obj({ thought: 'toc', tool: 'book_toc', args: { book: '.pdf' } }),
      done,
    ],
    [
      obj({ thought: 'tables', tool: 'list_tables', args: {} }),
      obj({ thought: 'rows', tool: 'query_table', args: { item: 'the' } }),
      obj({ thought: 'whole', tool: 'get_table', args: { table_id: table } }),
      done,
    ],
  ];
}

function readerScripts(messages: Msg[], q: string, canList: boolean): ScriptedReply[][] {
  const id = latestId(messages);
  const ids = allIds(messages);
  const context = id
    ? obj({ thought: 'read around it', tool: 'fragment_context', args: { fragment_id: id, window: 1 } })
    : obj({ thought: 'x', tool: 'fragment_context', args: {} });
  const look = obj({ thought: 'look at them', tool: 'read_media', args: { fragment_ids: [...ids.slice(0, 3), ...ids.slice(-3)], question: q } });
  const done = obj({ thought: 'enough', final: 'ok' });
  return [
    [context, ids.length ? look : done, done],
    [{ text: '{"thought": "look closer"}' }, context, done],
    [obj({ thought: 'x', tool: 'search_knowledge', args: { query: q } }), done],
    [look, done],
    [
      obj({ thought: 'its page', tool: 'media_context', args: { fragment_id: ids[ids.length - 1] ?? 'none' } }),
      look,
      obj({ thought: 'numbered', tool: 'find_figure', args: { label: 'Table 1' } }),
      done,
    ],
    ...(canList ? [[obj({ thought: 'every figure', tool: 'list_media', args: {} }), look, done]] : []),
  ];
}

function agentTurn(messages: Msg[]): ScriptedReply {
  const system = textOf(messages[0]?.content);
  const turn = messages.filter((m) => m.role === 'assistant').length;
  const key = `${textOf(messages[1]?.content).slice(0, 400)}`;
  const q = questionWords(messages);
  const canRead = hasTool(system, 'read_media');
  const ids = allIds(messages);
  const look = obj({ thought: 'look at them', tool: 'read_media', args: { fragment_ids: [...ids.slice(0, 3), ...ids.slice(-3)], question: q } });
  const scripts = hasTool(system, 'search_knowledge')
    ? [...locatorScripts(messages, q, canRead && ids.length ? look : undefined), ...(canRead ? readerScripts(messages, q, true).slice(3) : [])]
    : readerScripts(messages, q, false);
  const script = pick(key, scripts);
  return script[Math.min(turn, script.length - 1)];
}

/** The reply to one request of the comparison. */
export function scriptedReply(req: RecordedRequest): ScriptedReply {
  const body = req.body ?? {};
  const messages: Msg[] = body.messages ?? [];
  const all = JSON.stringify(messages);
  const key = all.slice(0, 2000);
  if (messages.some((m) => Array.isArray(m.content) && (m.content as { type?: string }[]).some((p) => p.type === 'image_url')))
    return { text: pick(key, ['It is in the second row.\nAnswer: 12', 'Top left of the figure.\nAnswer: blue']) };
  if (messages.length >= 2 && messages[1].role === 'assistant') {
    // The judge copies the answer's FINAL ANSWER line when it has one (so some answers score above 0).
    const fin = /FINAL ANSWER:\s*(.+)/.exec(textOf(messages[1].content))?.[1]?.trim();
    if (fin) return { text: `Extracted answer: ${fin}\nAnswer format: String` };
    return { text: pick(key, ['Extracted answer: 12\nAnswer format: Integer', 'Extracted answer: Not answerable\nAnswer format: String']) };
  }
  if (body.max_tokens === 300)
    return pick(key, [
      obj({ need_more: true, bridge_entities: ['X'], queries: ['annual revenue table', 'figure 2 caption'], reason: 'a part is missing' }),
      obj({ need_more: false, bridge_entities: [], queries: ['executive summary'], reason: 'enough' }),
      { text: 'no verdict' },
    ]);
  if (body.max_tokens === 200) return pick(key, [obj({ final: '12' }), obj({ final: 'None' }), obj({ final: ['a', 'b'] }), { text: 'cannot tell' }]);
  if (body.temperature === 0.3)
    return {
      text: pick(key, [
        'The report gives the figure [1].\nFINAL ANSWER: 2',
        'The documents do not say [1].\nFINAL ANSWER: Not answerable',
        'It lists two items [2].',
      ]),
    };
  return agentTurn(messages);
}
