/**
 * M5JD: the bridge judge may also drop evidence. Over real HTTP (scripted
 * server): the judge's request carries the drop instruction (own words), its
 * "drop" list takes the named block out of the pool the reader and the
 * synthesizer see, the trace names what was dropped and the counter counts it.
 * Only blocks the judge saw can go. M5 (no drops) sends no such instruction.
 * Offline, the stand-in rule drops blocks sharing no content word with the question.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentPipeline } from '../../lib/knowforge/agent-pipeline';
import { agentSettings } from '../../lib/knowforge/agent-settings';
import { configuration } from '../../lib/pipeline/registry';
import { offTopicBlocks } from '../../lib/knowforge/offline/judge-drop';
import { numberedBlocks } from '../../lib/answer/block-format';
import { ScriptedServer, type RecordedRequest } from '../../lib/models/testing/scripted-server';
import { routerFor } from '../models/helpers';
import type { TraceEvent } from '../../lib/pipeline/types';
import { agentContext } from './agent-context.helper';

const call = (tool: string, args: Record<string, unknown>) => ({ text: JSON.stringify({ thought: 'step', tool, args }) });
const fin = { text: JSON.stringify({ thought: 'done', final: 'ok' }) };
const STAGES = { locator: 'loc', reader: 'rdr', bridge: 'jdg', vision: 'vis', synth: 'syn', checker: 'chk' } as const;
const userText = (r: RecordedRequest) => (r.body.messages as { role: string; content: string }[]).map((m) => String(m.content)).join('\n');

/** The number of the block holding `needle` in the pool text a judge request shows. */
function blockNumber(text: string, needle: string): number | undefined {
  return numberedBlocks(text).find((b) => b.text.includes(needle))?.n;
}

async function runWith(config: 'M5JD' | 'M5', extra: Record<string, unknown> = {}) {
  const server = await ScriptedServer.start();
  server.on({ model: 'loc', reply: [call('search_knowledge', { query: 'film director' }), fin] });
  server.on({
    model: 'jdg',
    reply: (req) => ({
      text: JSON.stringify({ need_more: false, bridge_entities: [], queries: [], reason: 'enough', drop: [blockNumber(userText(req), 'Gamma Ray'), 99] }),
    }),
  });
  server.on({ model: 'rdr', reply: fin });
  server.on({ model: 'syn', reply: { text: 'Bob Stone [1].\nFINAL ANSWER: Bob Stone' } });
  server.on({ model: 'chk', reply: { text: '{"final": "Bob Stone"}' } });
  const router = routerFor(server, { stages: Object.fromEntries(Object.entries(STAGES).map(([s, model]) => [s, { model }])) });
  const { ctx, events } = agentContext(router, { benchmark: 'demo', question: 'Who directed the film Alpha Quest?', answer: 'Bob Stone' }, 'generic');
  try {
    const settings = agentSettings.parse({ ...configuration(config)!.settings, locatorRounds: 2, ...extra });
    const result = await agentPipeline(config, '', settings).run(ctx);
    return { server, events, result };
  } finally {
    await router.close();
    await server.close();
  }
}

test('M5JD: the judge is told it may drop blocks, and what it drops leaves the pool', async () => {
  const { server, events, result } = await runWith('M5JD');
  const [jdg] = server.requests.filter((r) => r.model === 'jdg');
  assert.match(userText(jdg), /list its number under "drop"/);
  assert.ok(userText(jdg).includes('Gamma Ray'), 'the off-topic block was offered');
  const judge = events.find((e) => e.kind === 'judge') as TraceEvent & { dropped?: string[] };
  assert.deepEqual(judge.dropped, ['other#0'], 'only the block it saw goes (99 names none)');
  assert.equal(result.counters?.judgeDropped, 1);
  const [syn] = server.requests.filter((r) => r.model === 'syn');
  assert.ok(!userText(syn).includes('Gamma Ray'), 'the synthesizer no longer sees it');
  assert.ok(userText(syn).includes('Alpha Quest is a 1950 film'), 'the rest stays');
});

test('M5JD with the pool in the runner layout: the number the judge reads in a material block drops that block', async () => {
  const { server, events } = await runWith('M5JD', { blockFormat: 'runner' });
  const [jdg] = server.requests.filter((r) => r.model === 'jdg');
  assert.match(userText(jdg), /<Material \d+> cite as \[\d+\] \(Gamma Ray\): Gamma Ray is a 1960 film/);
  const judge = events.find((e) => e.kind === 'judge') as TraceEvent & { dropped?: string[] };
  assert.deepEqual(judge.dropped, ['other#0']);
  const [syn] = server.requests.filter((r) => r.model === 'syn');
  assert.ok(!userText(syn).includes('Gamma Ray'), 'the synthesizer no longer sees it');
  assert.match(userText(syn), /<Material \d+> cite as \[\d+\] \(Alpha Quest\): Alpha Quest is a 1950 film/, 'the rest stays, in the runner layout');
});

test('M5 sends no drop instruction and ignores a drop list', async () => {
  const { server, events } = await runWith('M5');
  const [jdg] = server.requests.filter((r) => r.model === 'jdg');
  assert.doesNotMatch(userText(jdg), /"drop"/);
  assert.equal((events.find((e) => e.kind === 'judge') as { dropped?: unknown }).dropped, undefined);
  const [syn] = server.requests.filter((r) => r.model === 'syn');
  assert.ok(userText(syn).includes('Gamma Ray'));
});

test('offline stand-in: blocks sharing no content word with the question are dropped', () => {
  const pool =
    '[1] (text · alpha) Alpha Quest is a 1950 film directed by Bob Stone.\n\n[fig 2] image · id=alpha#1\nBox office\n\n[3] (text · other) Gamma Ray is about the sea.';
  // The figure of the Alpha document stays: its header names the document the question asks about.
  assert.deepEqual(offTopicBlocks('Who directed the film Alpha Quest?', pool), [3]);
  assert.deepEqual(offTopicBlocks('the of', pool), [], 'a question without content words drops nothing');
});
