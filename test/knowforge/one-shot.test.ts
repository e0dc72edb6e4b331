/**
 * One-shot baselines over real HTTP against the scripted OpenAI-compatible server:
 * S4 sends exactly one search's materials to one synthesizer call and one checker
 * call per question, and the checker's output replaces the final line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScriptedServer } from '../../lib/models/testing/scripted-server';
import { createModelRouter } from '../../lib/models/router';
import { registerOfflineHandlers } from '../../lib/pipeline/offline-backend';
import { getPipeline } from '../../lib/run/registry';
import { retrieverKnowledgeBase } from '../../lib/pipeline/retriever-knowledge-base';
import type { Question } from '../../lib/bench/types';
import type { Retriever, SearchHit, SearchOptions, SearchResult } from '../../lib/index/types';
import type { PipelineContext, TraceEvent } from '../../lib/pipeline/types';
import { makeRng } from '../../lib/util/rng';

// Stages routed to the offline backend need its handlers registered.
registerOfflineHandlers();

const timings = { embedMs: 0, bm25Ms: 0, hnswMs: 0, fusionMs: 0, expansionMs: 0, contextMs: 0, roundMs: 0 };

class FakeRetriever implements Retriever {
  calls: { query: string; opts?: SearchOptions }[] = [];
  async search(query: string, opts?: SearchOptions): Promise<SearchResult> {
    this.calls.push({ query, opts });
    const hits: SearchHit[] = [
      {
        fragmentId: 'kelto-x2#1',
        docId: 'kelto-x2',
        kind: 'text',
        rank: 1,
        score: 0.9,
        scores: {},
        via: 'hybrid',
        text: 'The Kelto X2 is manufactured by Zorvan Industries.',
        section: ['Kelto X2'],
        media: [],
      },
      {
        fragmentId: 'zorvan#0',
        docId: 'zorvan',
        kind: 'text',
        rank: 2,
        score: 0.7,
        scores: {},
        via: 'hybrid',
        text: 'Zorvan Industries was founded in 1987 in Pellmoor.',
        section: ['Zorvan Industries'],
        media: [],
      },
      {
        fragmentId: 'zorvan#3',
        docId: 'zorvan',
        kind: 'image',
        rank: 3,
        score: 0.2,
        scores: {},
        via: 'expansion',
        anchorId: 'zorvan#0',
        relation: 'similar',
        text: 'Figure 1: revenue chart',
        section: [],
        media: [{ fragmentId: 'zorvan#3', kind: 'image', label: 'Figure 1' }],
      },
    ];
    return { query, hits: hits.slice(0, opts?.topk ?? 8), timings };
  }
}

function question(id: string): Question {
  return {
    id,
    benchmark: 'demo',
    question: `In what year was the maker of the Kelto X2 founded? (${id})`,
    answer: '1987',
    format: 'number',
    goldDocs: ['kelto-x2', 'zorvan'],
    evidence: [],
    modality: ['text'],
    hops: 2,
    meta: {},
  };
}

function ctxFor(q: Question, router: ReturnType<typeof createModelRouter>, retriever: Retriever | undefined, trace: TraceEvent[]): PipelineContext {
  return {
    question: q,
    model: (s) => router.forStage(s),
    retriever,
    kb: retriever && retrieverKnowledgeBase(retriever),
    convention: 'generic',
    settings: {},
    rng: makeRng(`1/${q.id}`),
    signal: new AbortController().signal,
    trace: (e) => trace.push(e),
  };
}

test("S4 over HTTP: one search -> one synthesizer call with that search's materials -> one checker call whose value replaces the final line", async () => {
  const server = await ScriptedServer.start();
  try {
    server.on({ model: 'synth-model', reply: { text: 'The Kelto X2 is made by Zorvan Industries [1], founded in 1987 [2].\nFINAL ANSWER: in 1987' } });
    server.on({ model: 'checker-model', reply: { text: '```json\n{"final": "1987"}\n```' } });
    const router = createModelRouter(
      { defaults: { baseUrl: server.url, model: 'synth-model' }, stages: { checker: { model: 'checker-model' } }, cache: { mode: 'off' } },
      { env: {} },
    );
    const retriever = new FakeRetriever();
    const s4 = getPipeline('S4');
    for (const id of ['q1', 'q2']) {
      const trace: TraceEvent[] = [];
      const before = server.requests.length;
      const out = await s4.run(ctxFor(question(id), router, retriever, trace));
      const reqs = server.requests.slice(before);
      assert.equal(reqs.length, 2, 'exactly two model calls per question');
      assert.deepEqual(
        reqs.map((r) => r.model),
        ['synth-model', 'checker-model'],
      );
      const synthPrompt = JSON.stringify(reqs[0].body.messages);
      for (const id2 of ['kelto-x2#1', 'zorvan#0', 'zorvan#3']) assert.ok(synthPrompt.includes(id2), `materials of the search include ${id2}`);
      assert.match(synthPrompt, /Context:/, 'S4 uses the M3DocRAG-style template');
      assert.equal(reqs[0].body.temperature, 0.3);
      const checkerPrompt = JSON.stringify(reqs[1].body.messages);
      assert.ok(checkerPrompt.includes('FINAL ANSWER: in 1987'), 'the checker sees the answer text');
      assert.ok(!checkerPrompt.includes('zorvan#0'), 'the checker never sees the materials');
      assert.equal(out.finalAnswer, '1987');
      assert.match(out.prediction, /\nFINAL ANSWER: 1987$/);
      assert.equal(out.retrieval?.searches.length, 1);
      assert.deepEqual(
        out.retrieval?.firstSearch.map((h) => h.docId),
        ['kelto-x2', 'zorvan', 'zorvan'],
      );
      assert.equal(out.counters?.checkerRewrites, 1);
    }
    assert.equal(retriever.calls.length, 2, 'one search per question');
    assert.equal(retriever.calls[0].opts?.mode, 'hybrid+graph');
    await router.close();
  } finally {
    await server.close();
  }
});

test("S0 closed book makes no search; a malformed checker reply keeps the synthesizer's final line", async () => {
  const server = await ScriptedServer.start();
  try {
    server.on({ model: 'synth-model', reply: { text: 'I do not know.\nFINAL ANSWER: Not answerable' } });
    server.on({ model: 'checker-model', reply: { text: 'sorry, no json' } });
    const router = createModelRouter(
      { defaults: { baseUrl: server.url, model: 'synth-model' }, stages: { checker: { model: 'checker-model' } }, cache: { mode: 'off' } },
      { env: {} },
    );
    const retriever = new FakeRetriever();
    const trace: TraceEvent[] = [];
    const out = await getPipeline('S0').run(ctxFor(question('q3'), router, retriever, trace));
    assert.equal(retriever.calls.length, 0);
    assert.equal(out.finalAnswer, 'Not answerable');
    assert.equal(out.retrieval, undefined);
    assert.ok(trace.some((e) => e.kind === 'checker' && typeof e.parseError === 'string'));
    assert.doesNotMatch(JSON.stringify(server.requests[0].body.messages), /Materials|Context:/);
    await router.close();
  } finally {
    await server.close();
  }
});

test('S1/S3/S4v1 use dense / hybrid / hybrid+graph; the offline backend answers end to end', async () => {
  const router = createModelRouter({ cache: { mode: 'off' } }, { env: {} });
  for (const [name, mode] of [
    ['S1', 'dense'],
    ['S3', 'hybrid'],
    ['S4v1', 'hybrid+graph'],
  ] as const) {
    const retriever = new FakeRetriever();
    const out = await getPipeline(name).run(ctxFor(question('q4'), router, retriever, []));
    assert.equal(retriever.calls[0].opts?.mode, mode);
    assert.equal(router.backendOf('synth'), 'offline');
    assert.equal(typeof out.finalAnswer, 'string');
    assert.match(out.prediction, /FINAL ANSWER:/);
  }
  await router.close();
});
