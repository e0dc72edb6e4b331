/**
 * The agent loop over REAL HTTP (scripted server) in both protocols, one test
 * per runner rule, plus the offline locator/reader driving the same loop.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runAgentLoop, type AgentLoopOptions } from '../../lib/agents/loop';
import { composeSystemPrompt } from '../../lib/agents/system-prompt';
import { ToolRegistry, type AgentTool } from '../../lib/agents/tools';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer, damage } from '../../lib/models/testing/scripted-server';
import { routerFor } from '../models/helpers';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';

// The offline-backend tests below route stages to the in-process model: its handlers must be registered.
registerOfflineHandlers();

let server: ScriptedServer;
before(async () => {
  server = await ScriptedServer.start();
});
after(async () => {
  await server.close();
});

interface Ctx {
  searches: string[];
}

function makeTools(): AgentTool<Ctx>[] {
  return [
    {
      name: 'search_knowledge',
      description: 'Search the knowledge base.',
      parameters: { type: 'object', properties: { query: { type: 'string' }, topk: { type: 'integer' } }, required: ['query'] },
      isSearch: true,
      async handler(args, ctx) {
        ctx.context.searches.push(String(args.query));
        return { hits: [{ n: ctx.context.searches.length, text: `result for ${args.query}` }] };
      },
    },
    {
      name: 'list_books',
      description: 'List books.',
      parameters: { type: 'object', properties: { keyword: { type: 'string' } } },
      async handler() {
        throw new Error('the book index is not built');
      },
    },
  ];
}

const call = (tool: string, args: Record<string, unknown>, thought = 'step') => JSON.stringify({ thought, tool, args });
const fin = (thought = 'done') => JSON.stringify({ thought, final: 'ok' });

async function loop(overrides: Partial<AgentLoopOptions<Ctx>> = {}, protocol: 'json' | 'tools' = 'json') {
  const router = routerFor(server, { stages: { locator: { protocol } } });
  const ctx: Ctx = { searches: [] };
  const t = await runAgentLoop<Ctx>({
    role: 'locator',
    model: router.forStage('locator'),
    tools: makeTools(),
    protocol: router.endpoint('locator').protocol,
    maxRounds: 4,
    system: { roleRules: 'You find evidence.' },
    user: 'Question: who?',
    questionId: 'q1',
    context: ctx,
    ...overrides,
  });
  await router.close();
  return { t, ctx };
}

test('json protocol: fenced JSON and trailing commas are repaired; full history, temperature 0, 2,048 tokens every round', async () => {
  server.reset();
  server.enqueue(
    { text: damage.fenced({ thought: 'look', tool: 'search_knowledge', args: { query: 'alpha' } }) },
    { text: '{"thought": "enough", "final": "ok",}' },
  );
  const { t, ctx } = await loop();
  assert.equal(t.stopReason, 'final');
  assert.equal(t.forced, false);
  assert.equal(t.final, 'ok');
  assert.deepEqual(ctx.searches, ['alpha']);
  assert.equal(t.rounds, 1);
  assert.equal(t.counters.repairs, 1);
  assert.deepEqual(t.counters.byTool, { search_knowledge: 1 });
  const reqs = server.chatRequests();
  assert.equal(reqs.length, 2);
  for (const r of reqs) {
    assert.equal(r.body.temperature, 0);
    assert.equal(r.body.max_tokens, 2048);
    assert.equal(r.body.tools, undefined);
  }
  const second = reqs[1].body.messages;
  assert.equal(second.length, 4, 'system, user, assistant, tool result: the full history');
  assert.match(second[0].content, /Tools:\n- search_knowledge: Search the knowledge base\. Params: \{query: string, topk\?: integer\}/);
  assert.match(second[0].content, /"final": "ok"/);
  assert.match(second[3].content, /^Result of search_knowledge:\n\{"hits"/);
  assert.equal(t.messages.length, 5);
});

test('json protocol: prose before any tool call gets ONE nudge; afterwards prose is accepted as final', async () => {
  server.reset();
  const prose = 'The answer is probably Christopher Nolan, who directed the film in 2010 and is well known.';
  server.enqueue({ text: prose }, { text: call('search_knowledge', { query: 'nolan' }) }, { text: prose });
  const { t } = await loop();
  assert.equal(t.stopReason, 'prose_final');
  assert.equal(t.final, prose);
  assert.equal(t.counters.nudges, 1);
  assert.match(server.chatRequests()[1].body.messages[3].content, /Do not answer in prose/);
  server.reset();
  server.enqueue({ text: prose }, { text: prose });
  const second = await loop();
  assert.equal(second.t.stopReason, 'prose_final', 'after the one nudge, prose is accepted even without a call');
  assert.equal(second.t.counters.nudges, 1);
});

test('json protocol: bad JSON gets one retry with a hint; two in a row force a stop (bad_json)', async () => {
  server.reset();
  server.enqueue({ text: 'ok' }, { text: call('search_knowledge', { query: 'a' }) }, { text: '{bad' }, { text: '{"thought": "x"}' });
  const { t } = await loop({ malformedStop: 'synthesize' }); // the paper runner's behaviour, kept as an option
  assert.equal(t.stopReason, 'bad_json');
  assert.equal(t.forced, true);
  assert.match(t.stopNote!, /two malformed replies/);
  assert.equal(t.counters.badJson, 3);
  assert.equal(t.rounds, 1);
  assert.match(server.chatRequests()[1].body.messages.at(-1).content, /not valid JSON/);
  // By default the same stop is a model_output error of the question (never a scored answer).
  server.reset();
  server.enqueue({ text: 'ok' }, { text: call('search_knowledge', { query: 'a' }) }, { text: '{bad' }, { text: '' });
  await assert.rejects(loop(), (e: unknown) => (e as { code?: string }).code === 'model_output' && /two malformed replies/.test(String(e)));
});

test('json protocol: a reply cut mid-string is repaired and the call runs', async () => {
  server.reset();
  server.enqueue(
    { text: damage.truncated({ thought: 'go', tool: 'search_knowledge', args: { query: 'director of Inception' } }, 0.9), finishReason: 'length' },
    { text: fin() },
  );
  const { t, ctx } = await loop();
  assert.equal(t.stopReason, 'final');
  assert.equal(ctx.searches.length, 1);
  assert.match(ctx.searches[0], /^director of In/);
  assert.equal(t.steps[0].repaired, true);
});

test('finishing without any search is rejected once for roles that require it', async () => {
  server.reset();
  server.enqueue({ text: fin('I know it') }, { text: fin('still sure') });
  const { t, ctx } = await loop({ requireSearch: true });
  assert.equal(t.stopReason, 'final');
  assert.equal(t.counters.rejectedFinals, 1);
  assert.equal(ctx.searches.length, 0);
  assert.match(server.chatRequests()[1].body.messages.at(-1).content, /not searched yet.*search_knowledge/);
  server.reset();
  server.enqueue({ text: fin() });
  const free = await loop({ requireSearch: false });
  assert.equal(free.t.counters.rejectedFinals, 0, 'roles without the requirement may finish at once');
});

test('the 3rd identical tool+args call forces a stop (circuit_break) without running it', async () => {
  server.reset();
  const same = call('search_knowledge', { query: 'loop', topk: 8 });
  server.enqueue({ text: same }, { text: JSON.stringify({ tool: 'search_knowledge', args: { topk: 8, query: 'loop' }, thought: 'again' }) }, { text: same });
  const { t, ctx } = await loop();
  assert.equal(t.stopReason, 'circuit_break');
  assert.equal(t.forced, true);
  assert.deepEqual(ctx.searches, ['loop', 'loop']);
  assert.match(t.stopNote!, /repeating the same call \(search_knowledge\)/);
});

test('unknown tool: guidance message and the round is consumed; tool exception: tool_failed, recoverable', async () => {
  server.reset();
  server.enqueue({ text: call('read_media', { fragment_ids: ['x'] }) }, { text: call('list_books', {}) }, { text: fin() });
  const { t } = await loop();
  assert.equal(t.stopReason, 'final');
  assert.equal(t.rounds, 2);
  assert.equal(t.counters.unknownTools, 1);
  assert.equal(t.counters.toolErrors, 1);
  const msgs = server.chatRequests()[2].body.messages;
  assert.match(msgs[3].content, /Unknown tool "read_media"\. Use one of: search_knowledge, list_books/);
  const failed = JSON.parse(msgs[5].content.replace(/^Result of list_books:\n/, '').replace(/\n\n\[.*$/s, ''));
  assert.deepEqual(failed, { error: { code: 'tool_failed', detail: 'the book index is not built', recoverable: true } });
  // Arguments that break the schema are reported back, not run.
  server.reset();
  server.enqueue({ text: call('search_knowledge', { topk: 3 }) }, { text: fin() });
  const bad = await loop();
  assert.equal(bad.t.counters.badArgs, 1);
  assert.match(server.chatRequests()[1].body.messages[3].content, /missing required argument \\"query\\"/);
});

test('the remaining budget is shown only when <= 2 rounds remain; the cap forces a stop reported for the synthesizer', async () => {
  server.reset();
  for (let i = 0; i < 10; i++) server.enqueue({ text: call('search_knowledge', { query: `q${i}` }) });
  const { t } = await loop({ maxRounds: 4 });
  assert.equal(t.stopReason, 'max_rounds');
  assert.equal(t.forced, true);
  assert.equal(t.rounds, 4);
  assert.equal(t.counters.modelCalls, 4);
  assert.match(t.stopNote!, /round limit \(4 rounds\)/);
  const results = t.messages
    .filter((m) => m.role === 'user')
    .slice(1)
    .map((m) => String(m.content));
  assert.equal(results.length, 4);
  assert.ok(!/rounds? left/.test(results[0]), '3 left: not shown');
  assert.match(results[1], /\[2 rounds left/);
  assert.match(results[2], /\[1 round left: this is your last call/);
  assert.ok(!/rounds? left/.test(results[3]));
});

test('tools protocol: native tool_calls run, results go back as tool messages; a text reply finishes', async () => {
  server.reset();
  server.enqueue(
    {
      toolCalls: [
        { id: 'a1', name: 'search_knowledge', arguments: { query: 'alpha' } },
        { id: 'a2', name: 'no_such_tool', arguments: {} },
      ],
    },
    { toolCalls: [{ id: 'b1', name: 'search_knowledge', arguments: '{"query": "beta",}' }] },
    { text: 'I have what I need.' },
  );
  const { t, ctx } = await loop({}, 'tools');
  assert.equal(t.protocol, 'tools');
  assert.equal(t.stopReason, 'final');
  assert.equal(t.final, 'I have what I need.');
  assert.deepEqual(ctx.searches, ['alpha', 'beta']);
  assert.equal(t.rounds, 2);
  assert.equal(t.counters.unknownTools, 1);
  const reqs = server.chatRequests();
  assert.deepEqual(
    reqs[0].body.tools.map((x: { function: { name: string } }) => x.function.name),
    ['search_knowledge', 'list_books'],
  );
  const m = reqs[1].body.messages;
  assert.equal(m[2].tool_calls.length, 2);
  assert.equal(m[3].role, 'tool');
  assert.equal(m[3].tool_call_id, 'a1');
  assert.equal(JSON.parse(m[4].content).error.code, 'unknown_tool');
  assert.match(reqs[0].body.messages[0].content, /function calls/);
});

test('tools protocol: malformed arguments get a hint, twice in a row force bad_json; prose first gets a nudge', async () => {
  server.reset();
  server.enqueue({ toolCalls: [{ name: 'search_knowledge', arguments: 'query = alpha' }] }, { toolCalls: [{ name: 'search_knowledge', arguments: '[1' }] });
  const { t } = await loop({ malformedStop: 'synthesize' }, 'tools');
  assert.equal(t.stopReason, 'bad_json');
  server.reset();
  server.enqueue(
    { text: 'Christopher Nolan directed it; I am quite sure about this one from memory.' },
    { toolCalls: [{ name: 'search_knowledge', arguments: { query: 'x' } }] },
    { text: 'done' },
  );
  const n = await loop({}, 'tools');
  assert.equal(n.t.counters.nudges, 1);
  assert.equal(n.t.stopReason, 'final');
  assert.equal(n.t.final, 'done');
  // A model that writes the JSON protocol in its content under the tools protocol still works.
  server.reset();
  server.enqueue({ text: call('search_knowledge', { query: 'y' }) }, { text: 'finished' });
  const j = await loop({}, 'tools');
  assert.deepEqual(j.ctx.searches, ['y']);
});

test('offline locator and reader drive the same loop in both protocols', async () => {
  const router = createModelRouter({}, { env: {} });
  for (const protocol of ['json', 'tools'] as const) {
    const ctx: Ctx = { searches: [] };
    const t = await runAgentLoop<Ctx>({
      role: 'locator',
      model: router.forStage('locator'),
      tools: makeTools(),
      protocol,
      maxRounds: 4,
      user: 'Question: In what year was the director of Inception born?',
      requireSearch: true,
      task: { role: 'locator', question: 'In what year was the director of Inception born?' },
      context: ctx,
    });
    assert.equal(t.stopReason, 'final', protocol);
    assert.equal(t.backend, 'offline');
    // The offline Locator reformulates: keywords, then the question's title no result is about yet, then a decomposition.
    assert.deepEqual(ctx.searches, ['year director Inception born', 'Inception', 'Inception director born'], protocol);
  }
  const reads: unknown[] = [];
  const reader = await runAgentLoop({
    role: 'reader',
    model: router.forStage('reader'),
    tools: [
      {
        name: 'read_media',
        description: 'Read media.',
        parameters: {
          type: 'object',
          properties: { fragment_ids: { type: 'array', items: { type: 'string' } }, question: { type: 'string' } },
          required: ['fragment_ids'],
        },
        handler: async (a) => (reads.push(a.fragment_ids), 'Where: top.\nAnswer: 5.2'),
      },
    ],
    maxRounds: 4,
    user: 'q',
    task: {
      role: 'reader',
      question: 'What was the revenue in 2021?',
      media: [
        { fragmentId: 'd#4', kind: 'image', caption: 'Revenue by year' },
        { fragmentId: 'd#5', kind: 'image', caption: 'Staff photo' },
      ],
    },
  });
  assert.equal(reader.stopReason, 'final');
  assert.deepEqual(reads, [['d#4']]);
  assert.equal(router.ledger.byStage().locator.calls, 8);
  await router.close();
});

test('tool registry: each role owns a disjoint tool set; shared lookups and an explicit union role are allowed', () => {
  const mk = (name: string, shared = false): AgentTool => ({
    name,
    description: name,
    parameters: { type: 'object', properties: {} },
    shared,
    handler: async () => null,
  });
  const reg = new ToolRegistry();
  reg.registerRole('locator', [mk('search_knowledge'), mk('find_figure', true), mk('list_media', true)]);
  reg.registerRole('reader', [mk('read_media'), mk('fragment_context'), mk('find_figure', true), mk('list_media', true)]);
  assert.throws(() => reg.registerRole('cheater', [mk('search_knowledge')]), /belongs to role locator/);
  assert.throws(() => reg.registerRole('cheater2', [mk('read_media', true)]), /not shared/);
  assert.deepEqual(reg.toolsFor('reader').names(), ['read_media', 'fragment_context', 'find_figure', 'list_media']);
  assert.ok(!reg.toolsFor('locator').has('read_media'));
  assert.ok(!reg.toolsFor('reader').has('search_knowledge'));
  const p0 = reg.registerUnion('p0', ['locator', 'reader']);
  assert.deepEqual(p0.names(), ['search_knowledge', 'find_figure', 'list_media', 'read_media', 'fragment_context']);
  assert.ok(reg.isUnion('p0'));
  assert.equal(reg.ownerOf('read_media'), 'reader');
  assert.throws(() => reg.toolsFor('judge'), /no tools registered for role judge/);
  const prompt = composeSystemPrompt(
    { kbProfile: 'KB: 3 books.', roleRules: 'Only find.', benchmarkRule: 'Answer yes or no.' },
    reg.toolsFor('locator'),
    'json',
  );
  const order = [
    'KB: 3 books.',
    'You work in rounds',
    'Only find.',
    'Answer yes or no.',
    '- search_knowledge:',
    'Protocol: reply with exactly ONE JSON object',
  ].map((s) => prompt.indexOf(s));
  assert.ok(
    order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1])),
    `sections in order: ${order}`,
  );
  assert.equal(
    composeSystemPrompt((tools, protocol) => `${tools.role}/${protocol}`, reg.toolsFor('reader'), 'tools'),
    'reader/tools',
  );
});
