/**
 * The KnowForge agent pipeline over REAL HTTP (scripted server), per stage
 * model names so each role's requests can be inspected: disjoint role tool
 * sets, out-of-role refusal, one judge call with at most two searches, every
 * forced stop reaching the synthesizer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentPipeline } from '../../lib/knowforge/agent-pipeline';
import { agentSettings } from '../../lib/knowforge/agent-settings';
import { stageModel } from '../../lib/pipeline/stage-model';
import { toolsOf } from '../../lib/knowforge/tools/role-tools';
import { ScriptedServer, type RecordedRequest } from '../../lib/models/testing/scripted-server';
import type { AgentProtocol } from '../../lib/model-api/types';
import type { PipelineContext, PipelineResult, TraceEvent } from '../../lib/pipeline/types';
import { makeRng } from '../../lib/util/rng';
import { routerFor } from '../models/helpers';
import { toyKb } from './toy-kb';

const READING = ['fragment_context', 'read_media', 'media_context'];
const FINDING = ['search_knowledge', 'list_books', 'book_toc', 'list_tables', 'query_table', 'get_table'];
const STAGE_MODELS = { locator: 'loc', reader: 'rdr', bridge: 'jdg', vision: 'vis', synth: 'syn', checker: 'chk', p0: 'p0m' } as const;

const call = (tool: string, args: Record<string, unknown>) => ({ text: JSON.stringify({ thought: 'step', tool, args }) });
const fin = { text: JSON.stringify({ thought: 'done', final: 'ok' }) };
const native = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });

/** `first` registers rules that win over the defaults (the first matching rule answers). */
async function withServer(fn: (server: ScriptedServer) => Promise<void>, first?: (server: ScriptedServer) => void): Promise<void> {
  const server = await ScriptedServer.start();
  first?.(server);
  server.on({ model: 'syn', reply: { text: 'Bob Stone was born in Paris [1].\nFINAL ANSWER: Paris' } });
  server.on({ model: 'chk', reply: { text: '{"final": "Paris"}' } });
  server.on({ model: 'vis', reply: { text: 'Where: line 2 of the chart.\nAnswer: 1951: 30' } });
  try {
    await fn(server);
  } finally {
    await server.close();
  }
}

/** `fromEndpoint`: the protocol is not a pipeline setting but the stage endpoint's (models.stages.<stage>.protocol). */
async function runPipeline(server: ScriptedServer, settings: Record<string, unknown>, protocol: AgentProtocol = 'json', fromEndpoint = false) {
  const stages = Object.fromEntries(Object.entries(STAGE_MODELS).map(([s, model]) => [s, { model, protocol }]));
  const router = routerFor(server, { stages });
  const kb = toyKb();
  const events: TraceEvent[] = [];
  const ctx: PipelineContext = {
    question: {
      id: 'q1',
      benchmark: 'demo',
      question: 'Where was the director of Alpha Quest born?',
      answer: 'Paris',
      goldDocs: ['alpha', 'bob'],
      evidence: [],
    } as unknown as PipelineContext['question'],
    model: (stage) => (fromEndpoint ? stageModel(router, stage) : router.forStage(stage)),
    kb,
    convention: 'generic',
    settings: {},
    rng: makeRng('t'),
    signal: new AbortController().signal,
    trace: (e) => events.push(e),
  };
  const s = agentSettings.parse(fromEndpoint ? settings : { protocol, ...settings });
  const result: PipelineResult = await agentPipeline('test', '', s).run(ctx);
  await router.close();
  return { result, events, kb };
}

const byModel = (server: ScriptedServer, model: string): RecordedRequest[] => server.requests.filter((r) => r.kind === 'chat' && r.model === model);
const toolNames = (r: RecordedRequest): string[] => (r.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
const bodyText = (r: RecordedRequest): string => JSON.stringify(r.body.messages);

test('native tools: Locator requests carry no reading tool, Reader requests no search tool; judge once, <= 2 fresh bridge searches', async () => {
  await withServer(async (server) => {
    server.on({
      model: 'loc',
      reply: [native('search_knowledge', { query: 'Alpha Quest director' }), native('list_books', {}), { text: 'found the film page' }],
    });
    server.on({
      model: 'jdg',
      reply: {
        text: '{"need_more": true, "bridge_entities": ["Bob Stone"], "queries": ["alpha quest DIRECTOR", "Bob Stone", "Bob Stone birthplace", "Bob Stone career"], "reason": "the director page is missing"}',
      },
    });
    server.on({
      model: 'rdr',
      reply: [
        native('read_media', { fragment_ids: ['alpha#1'], question: 'box office in 1951?' }),
        native('fragment_context', { fragment_id: 'alpha#2' }),
        { text: 'read enough' },
      ],
    });
    const { result, events, kb } = await runPipeline(server, {}, 'tools');
    const loc = byModel(server, 'loc');
    const rdr = byModel(server, 'rdr');
    assert.equal(loc.length, 3);
    assert.equal(rdr.length, 3);
    for (const r of loc) {
      assert.deepEqual(toolNames(r).sort(), toolsOf('locator').names().sort());
      assert.ok(!toolNames(r).some((n) => READING.includes(n)), 'no reading tool in a Locator request');
    }
    for (const r of rdr) {
      assert.deepEqual(toolNames(r).sort(), toolsOf('reader').names().sort());
      assert.ok(!toolNames(r).some((n) => FINDING.includes(n)), 'no search tool in a Reader request');
    }
    // The reader sees the question and the rendered pool only (system + one user message on its first call).
    const first = rdr[0].body.messages;
    assert.equal(first.length, 2);
    assert.match(first[1].content, /Where was the director of Alpha Quest born\?/);
    assert.match(first[1].content, /\[1\] /);
    assert.doesNotMatch(first[1].content, /list_books/);
    assert.equal(byModel(server, 'jdg').length, 1, 'the judge runs once');
    assert.deepEqual(
      kb.searches,
      ['Alpha Quest director', 'Bob Stone', 'Bob Stone birthplace'],
      'already-run query dropped case-insensitively, at most 2 kept',
    );
    assert.equal(result.counters?.bridgeSearches, 2);
    assert.equal(byModel(server, 'vis').length, 1, 'one asset per vision call');
    assert.match(bodyText(byModel(server, 'syn')[0]), /1951: 30/, 'the reading note reaches the synthesizer');
    assert.equal(result.finalAnswer, 'Paris');
    assert.ok(events.some((e) => e.kind === 'pool' && e.stage === 'bridge'));
    assert.ok(events.some((e) => e.kind === 'timing'));
  });
});

test("JSON protocol: a call to another role's tool is refused (never run), gets an error result and is counted", async () => {
  await withServer(async (server) => {
    server.on({
      model: 'loc',
      reply: [call('read_media', { fragment_ids: ['alpha#1'], question: 'chart?' }), call('search_knowledge', { query: 'Alpha Quest' }), fin],
    });
    server.on({ model: 'jdg', reply: { text: '{"need_more": false, "bridge_entities": [], "queries": [], "reason": "ok"}' } });
    const { result } = await runPipeline(server, { reader: false, readerRounds: 0 });
    assert.equal(result.counters?.outOfRole, 1);
    assert.equal(byModel(server, 'vis').length, 0, 'read_media never ran for the Locator');
    const second = byModel(server, 'loc')[1];
    assert.match(bodyText(second), /out_of_role/);
    assert.equal(result.counters?.locatorSearches, 1);
  });
});

test('judge: need_more=false runs nothing (paper) or its queries anyway (runner setting)', async () => {
  for (const [mode, expected] of [
    ['paper', 0],
    ['runner', 1],
  ] as const) {
    await withServer(async (server) => {
      server.on({ model: 'loc', reply: [call('search_knowledge', { query: 'Alpha Quest' }), fin] });
      server.on({
        model: 'jdg',
        reply: { text: '```json\n{"need_more": false, "bridge_entities": ["Bob Stone"], "queries": ["Bob Stone"], "reason": "covered"}\n```' },
      });
      const { result } = await runPipeline(server, { reader: false, readerRounds: 0, judgeOnNeedMoreFalse: mode });
      assert.equal(result.counters?.bridgeSearches ?? 0, expected, mode);
      assert.equal(byModel(server, 'jdg').length, 1);
    });
  }
});

test('every forced stop (cap, circuit break, prose) happens as specified and reaches the synthesizer', async () => {
  const cases = [
    {
      name: 'cap',
      replies: [call('search_knowledge', { query: 'a' }), call('search_knowledge', { query: 'b' })],
      rounds: 2,
      counter: 'stop_max_rounds',
      note: /round limit \(2 rounds\)/,
    },
    {
      name: 'circuit',
      replies: [call('search_knowledge', { query: 'same' })],
      rounds: 4,
      counter: 'stop_circuit_break',
      note: /repeating the same call \(search_knowledge\)/,
    },
    {
      name: 'prose',
      replies: [{ text: 'I think the answer is clearly Paris because the director was born there, as everyone knows.' }],
      rounds: 4,
      counter: 'proseFinals',
      note: /replied in prose/,
    },
  ];
  for (const c of cases) {
    await withServer(async (server) => {
      server.on({ model: 'loc', reply: c.replies });
      server.on({ model: 'jdg', reply: { text: '{"need_more": false, "bridge_entities": [], "queries": [], "reason": "ok"}' } });
      const { result, events } = await runPipeline(server, { locatorRounds: c.rounds, reader: false, readerRounds: 0 });
      assert.equal(result.counters?.[c.counter], 1, `${c.name}: ${JSON.stringify(result.counters)}`);
      assert.match(bodyText(byModel(server, 'syn')[0]), c.note, `${c.name}: the synthesizer is told`);
      assert.ok(
        events.some((e) => e.kind === 'forced-stop'),
        `${c.name}: traced`,
      );
      if (c.name === 'circuit') assert.equal(result.counters?.locatorSearches, 2, 'the third identical call is not run');
      if (c.name === 'prose') assert.equal(byModel(server, 'loc').length, 2, 'one nudge, then the prose is accepted');
    });
  }
});

test('two malformed locator replies in a row stop the Locator; the synthesizer still answers, told of the stop', async () => {
  await withServer(async (server) => {
    server.on({ model: 'loc', reply: [{ text: '{"tool": "search_knowledge", "args": [[' }, { text: 'nope {' }] });
    server.on({ model: 'jdg', reply: { text: '{"need_more": false, "bridge_entities": [], "queries": [], "reason": "ok"}' } });
    const { result, events } = await runPipeline(server, { locatorRounds: 4, reader: false, readerRounds: 0 });
    assert.equal(byModel(server, 'syn').length, 1, 'the synthesizer answers');
    assert.match(bodyText(byModel(server, 'syn')[0]), /two malformed replies/);
    assert.ok(events.some((e) => e.kind === 'forced-stop'));
    assert.equal(result.counters?.stop_bad_json, 1);
  });
});

test('P0 requests list every tool of both roles', async () => {
  await withServer(async (server) => {
    server.on({
      model: 'p0m',
      reply: [native('search_knowledge', { query: 'Alpha Quest' }), native('read_media', { fragment_ids: ['alpha#1'], question: 'chart' }), { text: 'done' }],
    });
    server.on({ model: 'jdg', reply: { text: '{"need_more": false, "bridge_entities": [], "queries": [], "reason": "ok"}' } });
    const { result } = await runPipeline(server, { p0: true }, 'tools');
    const names = toolNames(byModel(server, 'p0m')[0]);
    for (const n of [...READING, ...FINDING, 'list_media', 'find_figure']) assert.ok(names.includes(n), n);
    assert.equal(byModel(server, 'rdr').length, 0, 'no separate reader in P0');
    assert.equal(result.counters?.reads, 1);
  });
});

test('an unreadable judge reply and a failing vision call end in explained outcomes, not a crash', async () => {
  await withServer(
    async (server) => {
      server.on({ model: 'loc', reply: [call('search_knowledge', { query: 'Alpha Quest' }), fin] });
      server.on({ model: 'jdg', reply: { text: 'I think we need more evidence about the director.' } });
      server.on({ model: 'rdr', reply: [call('read_media', { fragment_ids: ['alpha#1'], question: 'chart?' }), fin] });
      const { result, events } = await runPipeline(server, {});
      assert.equal(result.counters?.judgeParseErrors, 1);
      assert.equal(result.counters?.bridgeSearches ?? 0, 0, 'nothing runs on an unreadable verdict');
      assert.match(bodyText(byModel(server, 'syn')[0]), /bridge judge's reply could not be read/);
      const step = events.find((e) => e.kind === 'step' && e.tool === 'read_media');
      assert.match(String(step?.result), /tool_failed/, 'the vision failure is a tool error the reader sees');
      assert.equal(result.finalAnswer, 'Paris');
    },
    (server) => server.on({ model: 'vis', reply: { status: 400, error: 'image too large' } }),
  );
});

test("with no protocol setting, each role uses its endpoint's protocol (native tools configured per stage)", async () => {
  await withServer(async (server) => {
    server.on({ model: 'loc', reply: [native('search_knowledge', { query: 'Alpha Quest' }), { text: 'done' }] });
    server.on({ model: 'jdg', reply: { text: '{"need_more": false, "bridge_entities": [], "queries": [], "reason": "ok"}' } });
    const { result } = await runPipeline(server, { reader: false, readerRounds: 0 }, 'tools', true);
    assert.deepEqual(toolNames(byModel(server, 'loc')[0]).sort(), toolsOf('locator').names().sort(), 'tools listed natively');
    assert.equal(result.counters?.locatorSearches, 1);
  });
});
