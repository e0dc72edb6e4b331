/**
 * The router over REAL HTTP against the scripted server: routing per stage,
 * override inheritance seen on the wire, images, cache and replay, ledger
 * totals equal to the server's usage, embeddings.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { createModelRouter } from '../../lib/models/router';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { isKfError } from '../../lib/util/errors';
import { SECRET, routerFor, tempDir } from './helpers';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';
import { nonEmpty } from '../_shared/non-empty';

// Stages routed to the offline backend need its handlers registered.
registerOfflineHandlers();

let server: ScriptedServer;
before(async () => {
  server = await ScriptedServer.start();
});
after(async () => {
  await server.close();
});

const ask = (stage: string, content: string, extra: Record<string, unknown> = {}) => ({ stage, messages: [{ role: 'user' as const, content }], ...extra });

test('each stage is routed to its own model; unset fields come from the defaults; offline stages make no HTTP call', async () => {
  server.reset();
  server.on({ model: 'judge-model', reply: { text: '{"need_more": false}' } });
  server.on({ model: 'synth-model', reply: { text: 'so.\nFINAL ANSWER: 42' } });
  server.on({ model: 'base-model', reply: (r) => ({ text: `base answers ${r.body.messages[0].content}` }) });
  const router = routerFor(server, { stages: { judge: { model: 'judge-model' }, synth: { model: 'synth-model' }, checker: { backend: 'offline' } } });
  const j = await router.forStage('judge').chat(ask('judge', 'q1'));
  assert.equal(j.text, '{"need_more": false}');
  assert.equal(j.model, 'judge-model');
  assert.equal(j.backend, 'openai');
  const s = await router.forStage('synth').chat(ask('synth', 'q2'));
  assert.match(s.text, /FINAL ANSWER: 42/);
  const l = await router.forStage('locator').chat(ask('locator', 'hello'));
  assert.equal(l.text, 'base answers hello');
  const c = await router.forStage('checker').chat({
    stage: 'checker',
    messages: [{ role: 'user', content: 'x' }],
    task: { role: 'checker', question: 'Is it?', answer: 'Yes.\nFINAL ANSWER: yes', convention: 'multihoprag' },
  });
  assert.equal(c.backend, 'offline');
  assert.deepEqual(JSON.parse(c.text), { final: 'Yes' });
  assert.deepEqual(
    server.chatRequests().map((r) => r.model),
    ['judge-model', 'synth-model', 'base-model'],
  );
  assert.equal(router.backendOf('checker'), 'offline');
  assert.equal(router.backendOf('extraction'), 'openai');
  const routes = router.describe();
  const judge = routes.find((r) => r.stage === 'judge')!;
  assert.equal(judge.model, 'judge-model');
  assert.equal(judge.provenance.model, 'experiment.stages.judge');
  assert.equal(judge.provenance.baseUrl, 'experiment.defaults');
  assert.equal(judge.keySet, true);
  assert.ok(!JSON.stringify(routes).includes(SECRET));
  // Authorization reached the server (so the key really is in use).
  assert.equal(server.chatRequests()[0].headers.authorization, `Bearer ${SECRET}`);
  await router.close();
});

test('a stage override inherits extra body and timeout: both seen on the wire', async () => {
  server.reset();
  server.on({ model: 'judge-model', match: (r) => r.body.messages[0].content === 'slow', reply: { delayMs: 1500, text: 'late' } });
  const router = routerFor(server, {
    defaults: { extraBody: { chat_template_kwargs: { enable_thinking: false } }, timeoutMs: 300, maxAttempts: 1, temperature: 0.2 },
    stages: { judge: { model: 'judge-model' } },
  });
  await router.forStage('judge').chat(ask('judge', 'fast', { temperature: 0.9, maxTokens: 77 }));
  const body = server.chatRequests()[0].body;
  assert.equal(body.model, 'judge-model');
  assert.deepEqual(body.chat_template_kwargs, { enable_thinking: false });
  assert.equal(body.temperature, 0.2, 'a configured temperature overrides the caller');
  assert.equal(body.max_tokens, 77, 'an unconfigured max tokens takes the caller value');
  await assert.rejects(router.forStage('judge').chat(ask('judge', 'slow', { questionId: 'q-slow' })), (e: unknown) => {
    assert.ok(isKfError(e));
    assert.match(e.message, /stage judge \(question q-slow\): model judge-model at http:\/\/127\.0\.0\.1:\d+\/v1 failed after 1 attempt/);
    assert.match(e.message, /timeout/);
    assert.match(e.hint, /timeoutMs/);
    return true;
  });
  await router.close();
});

test('native tools, tool results and images go out in the OpenAI format; replies with tool_calls come back parsed', async () => {
  server.reset();
  const dir = tempDir();
  const canvas = createCanvas(8, 8);
  canvas.getContext('2d').fillRect(0, 0, 4, 4);
  const png = path.join(dir, 'a.png');
  fs.writeFileSync(png, canvas.toBuffer('image/png'));
  server.enqueue({ toolCalls: [{ id: 'c1', name: 'search_knowledge', arguments: { query: 'x' } }] });
  const router = routerFor(server);
  const res = await router.forStage('reader').chat({
    stage: 'reader',
    tools: [{ name: 'search_knowledge', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', path: png },
        ],
      },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c0', name: 'search_knowledge', arguments: '{"query":"y"}' }] },
      { role: 'tool', toolCallId: 'c0', content: '{"hits": []}' },
    ],
  });
  assert.deepEqual(res.toolCalls, [{ id: 'c1', name: 'search_knowledge', arguments: '{"query":"x"}' }]);
  assert.equal(res.finishReason, 'tool_calls');
  const body = server.chatRequests()[0].body;
  assert.equal(body.tools[0].type, 'function');
  assert.equal(body.tools[0].function.name, 'search_knowledge');
  assert.match(body.messages[0].content[1].image_url.url, /^data:image\/png;base64,/);
  assert.equal(body.messages[1].tool_calls[0].function.arguments, '{"query":"y"}');
  assert.equal(body.messages[1].content, null);
  assert.deepEqual(body.messages[2], { role: 'tool', tool_call_id: 'c0', content: '{"hits": []}' });
  await router.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('cache: a rerun makes ZERO HTTP calls; keys ignore stage, base URL, key and task; images by content', async () => {
  server.reset();
  const dir = tempDir();
  const cacheFile = path.join(dir, 'cache.sqlite');
  const canvas = createCanvas(6, 6);
  canvas.getContext('2d').fillRect(1, 1, 3, 3);
  const bytes = canvas.toBuffer('image/png');
  fs.writeFileSync(path.join(dir, 'one.png'), bytes);
  fs.writeFileSync(path.join(dir, 'two.png'), bytes);
  const reqs = [
    ask('judge', 'alpha', { questionId: 'q1' }),
    ask('synth', 'beta', { questionId: 'q1', temperature: 0.3 }),
    {
      stage: 'vision',
      questionId: 'q2',
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'what' },
            { type: 'image' as const, path: path.join(dir, 'one.png') },
          ],
        },
      ],
    },
  ];
  const first = routerFor(server, {}, { cacheFile, cacheMode: 'read-write', runId: 'run-1' });
  const answers = [];
  for (const r of reqs) answers.push(await first.forStage(r.stage).chat(r));
  assert.ok(nonEmpty(answers).every((a) => !a.cacheHit));
  await first.close();
  const httpBefore = server.requests.length;
  assert.equal(httpBefore, 3);

  const other = await ScriptedServer.start(); // another base URL: same model answers the same
  const second = createModelRouter(
    { defaults: { baseUrl: other.url, model: 'base-model' } },
    { env: { OPENAI_API_KEY: 'another-key' }, cacheFile, cacheMode: 'read-write', runId: 'run-2' },
  );
  const again = [];
  for (const r of reqs) again.push(await second.forStage(r.stage).chat({ ...r, task: { role: 'whatever' } }));
  // Another stage asking the same thing, and the same image under another path.
  again.push(await second.forStage('reader').chat(ask('reader', 'alpha')));
  again.push(
    await second.forStage('vision').chat({
      ...reqs[2],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what' },
            { type: 'image', path: path.join(dir, 'two.png') },
          ],
        },
      ],
    }),
  );
  assert.equal(server.requests.length, httpBefore);
  assert.equal(other.requests.length, 0, 'zero HTTP calls on the rerun');
  assert.ok(nonEmpty(again).every((a) => a.cacheHit && a.usage.promptTokens === 0 && a.attempts === 0));
  assert.deepEqual(
    again.slice(0, 3).map((a) => a.text),
    answers.map((a) => a.text),
  );
  const t = second.ledger.totals();
  assert.equal(t.calls, 5);
  assert.equal(t.cacheHits, 5);
  assert.equal(t.promptTokens + t.completionTokens, 0, 'a hit adds no usage');
  assert.equal(second.ledger.byStage().judge.cacheHits, 1);
  // A different parameter is a different request.
  await second.forStage('synth').chat(ask('synth', 'beta', { temperature: 0.7 }));
  assert.equal(other.requests.length, 1);
  await second.close();
  await other.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('replay-only: hits are served, a miss fails loudly naming stage and question, without HTTP', async () => {
  server.reset();
  const dir = tempDir();
  const cacheFile = path.join(dir, 'replay.sqlite');
  const rec = routerFor(server, {}, { cacheFile, cacheMode: 'read-write' });
  await rec.forStage('judge').chat(ask('judge', 'recorded', { questionId: 'q7' }));
  await rec.close();
  const replay = routerFor(server, {}, { cacheFile, cacheMode: 'replay-only' });
  const hit = await replay.forStage('judge').chat(ask('judge', 'recorded', { questionId: 'q7' }));
  assert.equal(hit.cacheHit, true);
  await assert.rejects(replay.forStage('synth').chat(ask('synth', 'never recorded', { questionId: 'q8' })), (e: unknown) => {
    assert.ok(isKfError(e));
    assert.equal(e.code, 'cache_miss');
    assert.match(e.message, /stage synth, question q8/);
    assert.match(e.hint, /read-write/);
    return true;
  });
  assert.equal(server.requests.length, 1);
  await replay.close();
  assert.throws(() => routerFor(server, {}, { cacheFile: path.join(dir, 'absent.sqlite'), cacheMode: 'replay-only' }), /does not exist/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('ledger totals equal the usage the server reported, per stage, question and run; cost from prices', async () => {
  server.reset();
  server.on({ model: 'judge-model', reply: { text: 'j', usage: { prompt_tokens: 1000, completion_tokens: 10 } } });
  const router = routerFor(
    server,
    { stages: { judge: { model: 'judge-model' } }, prices: { 'judge-model': { promptPer1M: 2, completionPer1M: 10 } } },
    { runId: 'r1' },
  );
  for (let i = 0; i < 3; i++) await router.forStage('judge').chat(ask('judge', `question ${i}`, { questionId: `q${i}` }));
  for (let i = 0; i < 4; i++)
    await router.forStage('synth').chat(ask('synth', `a longer synthesis prompt number ${i} `.repeat(i + 1), { questionId: `q${i % 2}` }));
  const server_ = server.usageTotals();
  const t = router.ledger.totals();
  assert.equal(t.calls, 7);
  assert.equal(t.promptTokens, server_.promptTokens);
  assert.equal(t.completionTokens, server_.completionTokens);
  const byStage = router.ledger.byStage();
  assert.equal(byStage.judge.promptTokens, 3000);
  assert.equal(byStage.synth.promptTokens, server.usageTotals((r) => r.model === 'base-model').promptTokens);
  assert.equal(router.ledger.byQuestion('q0').calls, 3);
  assert.equal(router.ledger.forRun().calls, 7);
  assert.ok(Math.abs(byStage.judge.costUsd - (3 * (1000 * 2 + 10 * 10)) / 1e6) < 1e-12);
  assert.deepEqual(byStage.synth.unpricedModels, ['base-model']);
  const json = JSON.parse(JSON.stringify(router.ledger));
  assert.equal(json.totals.calls, 7);
  assert.equal(json.byModel['judge-model'].calls, 3);
  await router.close();
});

test('embeddings: batched, unit-normalised, in input order, cached, with ledger usage = server usage', async () => {
  server.reset();
  const dir = tempDir();
  const cacheFile = path.join(dir, 'emb.sqlite');
  const env = { OPENAI_API_KEY: SECRET, KF_EMBED_MODEL: 'bge-small' };
  const mk = () => createModelRouter({ defaults: { baseUrl: server.url, model: 'chat' } }, { env, cacheFile, cacheMode: 'read-write' });
  const router = mk();
  const emb = router.embedder()!;
  assert.ok(emb, 'an embedder when an embedding model is named');
  assert.equal(emb.id, 'openai:bge-small');
  assert.throws(() => emb.dim, /not known yet/);
  const texts = Array.from({ length: 70 }, (_, i) => `passage number ${i}`);
  const vecs = await emb.embed(texts);
  assert.equal(vecs.length, 70);
  assert.equal(emb.dim, 8);
  for (const v of nonEmpty(vecs, 'vectors')) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5);
  const embReqs = server.requests.filter((r) => r.kind === 'embeddings');
  assert.deepEqual(
    embReqs.map((r) => r.body.input.length),
    [64, 6],
  );
  assert.equal(embReqs[0].body.model, 'bge-small');
  // Order: the vector of text i is the one for text i even though the server reverses its list.
  const single = await emb.embed([texts[5]]);
  assert.deepEqual([...single[0]], [...vecs[5]]);
  assert.equal(router.ledger.byStage().embedding.promptTokens, server.usageTotals((r) => r.kind === 'embeddings').promptTokens);
  await router.close();
  const n = server.requests.length;
  const again = mk();
  const cached = await again.embedder()!.embed(texts.slice(0, 10));
  assert.equal(server.requests.length, n, 'cached embeddings make no HTTP call');
  assert.deepEqual([...cached[3]], [...vecs[3]]);
  assert.equal(again.ledger.totals().cacheHits, 1);
  await again.close();
  // No embedding model: no embedder (the index uses an offline encoder).
  const none = createModelRouter({ defaults: { baseUrl: server.url, model: 'chat' } }, { env: { OPENAI_API_KEY: SECRET } });
  assert.equal(none.embedder(), undefined);
  await none.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an injected fetch carries every request (proxies, tests)', async () => {
  server.reset();
  const seen: string[] = [];
  const spy: typeof fetch = (input, init) => {
    seen.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
  const router = routerFor(server, {}, { fetch: spy, env: { OPENAI_API_KEY: SECRET, KF_EMBED_MODEL: 'e' } });
  await router.forStage('judge').chat(ask('judge', 'via spy'));
  await router.embedder()!.embed(['x']);
  assert.deepEqual(
    seen.map((u) => u.replace(server.url, '')),
    ['/chat/completions', '/embeddings'],
  );
  await router.close();
});

test('cache: an empty reply is not stored (a rerun asks the endpoint again instead of replaying the failure)', async () => {
  server.reset();
  const dir = tempDir();
  const cacheFile = path.join(dir, 'cache.sqlite');
  try {
    server.enqueue({ text: '' }, { text: 'now an answer' });
    const first = routerFor(server, {}, { cacheFile, cacheMode: 'read-write' });
    assert.equal((await first.forStage('synth').chat(ask('synth', 'empty once'))).text, '');
    await first.close();
    const second = routerFor(server, {}, { cacheFile, cacheMode: 'read-write' });
    const res = await second.forStage('synth').chat(ask('synth', 'empty once'));
    assert.equal(res.text, 'now an answer');
    assert.equal(res.cacheHit, false);
    assert.equal(server.chatRequests().length, 2, 'the endpoint was asked again');
    const third = await second.forStage('synth').chat(ask('synth', 'empty once'));
    assert.equal(third.cacheHit, true, 'a real answer is stored');
    await second.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
