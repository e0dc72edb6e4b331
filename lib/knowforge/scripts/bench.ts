/**
 * How fast the KnowForge pipeline runs against a real endpoint, model-free: M5
 * over the tiny demo world's index with every model call answered by the
 * scripted OpenAI-compatible server after a fixed latency (default 100 ms).
 * The same N questions run at concurrency 1 and at concurrency C; the script
 * prints both wall times, the speed-up, and whether the two runs' records
 * (answers, counters, retrieval logs) are identical.
 *
 *   node --import tsx lib/knowforge/scripts/bench.ts [--questions 100] [--concurrency 16] [--latency 100]
 *
 * Builds the tiny demo world and its index on first use (offline, about a minute), as `kf demo --preset tiny` would.
 */
import { fork } from 'node:child_process';
import * as path from 'node:path';
import { scriptArgs } from '../../util/script-args';
import { ensureDemoWorld } from '../../demo';
import { loadBenchmark } from '../../bench/registry';
import type { Question } from '../../bench/types';
import { openIndex } from '../../index/open';
import { ensureIndex } from '../../index/build';
import { demoIndexDir } from '../../bench/benchmarks/demo';
import { agentPipeline } from '../agent-pipeline';
import { agentSettings } from '../agent-settings';
import { scriptedRouter } from '../../models/testing/scripted-router';
import { ScriptedServer, type RecordedRequest, type ScriptedReply } from '../../models/testing/scripted-server';
import { engineKnowledgeBase } from '../../pipeline/index-view';
import type { PipelineContext, PipelineResult } from '../../pipeline/types';
import type { KnowledgeBase } from '../../pipeline/knowledge-base';
import { makeRng } from '../../util/rng';

const { values } = scriptArgs(__filename, {
  options: {
    questions: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '16' },
    latency: { type: 'string', default: '100' },
    serve: { type: 'boolean' },
  },
});
const N = Number(values.questions);
const C = Number(values.concurrency);
const LATENCY = Number(values.latency);

const assistantTurns = (r: RecordedRequest) => (r.body.messages as { role: string }[]).filter((m) => m.role === 'assistant').length;
const userText = (r: RecordedRequest) => String((r.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user')?.content ?? '');
const json = (o: unknown): ScriptedReply => ({ text: JSON.stringify(o), delayMs: LATENCY });

/** Deterministic role replies: a function of the request only, so both runs see the same answers. */
function script(server: ScriptedServer): void {
  server.on({
    model: 'loc',
    reply: (r) => {
      const q = userText(r).replace(/^Question:\s*/, '');
      const n = assistantTurns(r);
      return n < 2 ? json({ thought: 'search', tool: 'search_knowledge', args: { query: n ? `${q} details` : q } }) : json({ thought: 'done', final: 'ok' });
    },
  });
  server.on({
    model: 'jdg',
    reply: (r) =>
      json({ need_more: true, bridge_entities: [], queries: [`${/Question: (.*)/.exec(userText(r))?.[1] ?? 'more'} background`], reason: 'one more hop' }),
  });
  server.on({
    model: 'rdr',
    reply: (r) => {
      const id = /id=([^\s)·]+)/.exec(userText(r))?.[1];
      return assistantTurns(r) === 0 && id
        ? json({ thought: 'read', tool: 'fragment_context', args: { fragment_id: id } })
        : json({ thought: 'done', final: 'ok' });
    },
  });
  server.on({ model: 'vis', reply: { text: 'Where: top.\nAnswer: not shown', delayMs: LATENCY } });
  server.on({
    model: 'syn',
    reply: (r) => ({ text: `From [1].\nFINAL ANSWER: ${/id=([^\s)·#]+)/.exec(JSON.stringify(r.body.messages))?.[1] ?? 'unknown'}`, delayMs: LATENCY }),
  });
  server.on({
    model: 'chk',
    reply: (r) => ({ text: JSON.stringify({ final: /FINAL ANSWER: ([^\\"]+)/.exec(JSON.stringify(r.body.messages))?.[1] ?? '' }), delayMs: LATENCY }),
  });
}

/** The scripted server lives in a child process (its own core where there is one): the bench measures the client side. */
interface ServerHandle {
  url: string;
  stats(): Promise<{ chat: number; maxInFlight: number }>;
  close(): void;
}

function startServerProcess(): Promise<ServerHandle> {
  const child = fork(__filename, ['--serve', '--latency', String(LATENCY)], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (m: { url: string }) =>
      resolve({
        url: m.url,
        stats: () =>
          new Promise((res) => {
            child.once('message', (x) => res(x as { chat: number; maxInFlight: number }));
            child.send('stats');
          }),
        close: () => child.kill(),
      }),
    );
  });
}

async function serve(): Promise<void> {
  const server = await ScriptedServer.start();
  script(server);
  process.on('message', () => process.send!({ chat: server.requests.filter((r) => r.kind === 'chat').length, maxInFlight: server.maxInFlight }));
  process.send!({ url: server.url });
}

async function runAll(server: { url: string }, kb: KnowledgeBase, questions: Question[], concurrency: number) {
  const stages = { locator: 'loc', bridge: 'jdg', reader: 'rdr', vision: 'vis', synth: 'syn', checker: 'chk' };
  const router = scriptedRouter(server, { stages });
  const pipeline = agentPipeline('M5', 'bench', agentSettings.parse({}));
  const out: PipelineResult[] = new Array(questions.length);
  let next = 0;
  const t0 = Date.now();
  const worker = async () => {
    while (next < questions.length) {
      const i = next++;
      const q = questions[i];
      const ctx: PipelineContext = {
        question: q,
        model: (s) => router.forStage(s),
        kb,
        convention: 'generic',
        settings: {},
        rng: makeRng(`0/${q.id}`),
        signal: new AbortController().signal,
        trace: () => {},
      };
      out[i] = await pipeline.run(ctx);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (Date.now() - t0) / 1000;
  await router.close();
  return { seconds, records: out.map((r) => JSON.stringify({ p: r.prediction, f: r.finalAnswer, c: r.counters, r: r.retrieval })) };
}

if (values.serve) void serve();
else
  void (async () => {
    const world = await ensureDemoWorld({ preset: 'tiny' });
    const base = loadBenchmark('demo', { questions: path.join(world.dir, 'questions.json'), corpus: path.join(world.dir, 'corpus') } as never).questions;
    const questions = Array.from({ length: N }, (_, i) => ({ ...base[i % base.length], id: `${base[i % base.length].id}-${i}` }));
    // The demo's own index folder, built here when missing or stale (offline: the build calls no model).
    const ensured = await ensureIndex({ corpusDir: path.join(world.dir, 'corpus'), outDir: demoIndexDir('tiny') });
    const idx = await openIndex(ensured.dir);
    const kb = engineKnowledgeBase(idx);
    await kb.search(questions[0].question); // warm the index (lazy loads) outside the timings
    const server = await startServerProcess();
    try {
      const serial = await runAll(server, kb, questions, 1);
      const calls = (await server.stats()).chat;
      const parallel = await runAll(server, kb, questions, C);
      const maxInFlight = (await server.stats()).maxInFlight;
      const identical = serial.records.every((r, i) => r === parallel.records[i]);
      console.log(
        JSON.stringify({
          questions: N,
          latencyMs: LATENCY,
          callsPerQuestion: calls / N,
          concurrency1Seconds: serial.seconds,
          [`concurrency${C}Seconds`]: parallel.seconds,
          speedup: Math.round((serial.seconds / parallel.seconds) * 10) / 10,
          identicalRecords: identical,
          serverMaxInFlight: maxInFlight,
        }),
      );
    } finally {
      server.close();
    }
  })();
