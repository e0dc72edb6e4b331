/**
 * Small fakes for the runner tests: a question set written as a demo-format
 * benchmark, a scripted model behind the real Ledger, a deterministic fake
 * pipeline (answers from its per-question rng, one model call, a retrieval
 * log), and experiment objects pointing at them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Question } from '../../lib/bench/types';
import { Ledger } from '../../lib/models/ledger';
import { withLedger } from '../../lib/models/middleware';
import type { StageRoute } from '../../lib/models/router';
import type { Backend, ChatModel } from '../../lib/model-api/types';
import { experimentFromObject, type ResolvedExperiment } from '../../lib/run/config';
import type { RunnerRouter } from '../../lib/run/runner';
import type { Pipeline } from '../../lib/pipeline/types';
import { registerPipeline } from '../../lib/run/registry';

const made: string[] = [];
process.on('exit', () => {
  for (const d of made) fs.rmSync(d, { recursive: true, force: true });
});

/** A temporary folder, removed when the test process exits. */
export function tmpDir(prefix = 'kf-run-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

export function makeQuestions(n: number): Question[] {
  const mods = ['text', 'table', 'image'] as const;
  return Array.from({ length: n }, (_, i) => ({
    id: `q${String(i).padStart(3, '0')}`,
    benchmark: 'demo',
    question: `What is item ${i}?`,
    answer: `answer ${i}`,
    format: 'span' as const,
    goldDocs: [`d${i % 5}`],
    evidence: [{ doc: `d${i % 5}`, modality: mods[i % 3] }],
    modality: [mods[i % 3]],
    hops: 1 + (i % 2),
    type: i % 4 === 0 ? 'comparison' : 'bridge',
    meta: {},
  }));
}

/** questions.json + a corpus folder holding the gold documents (the demo loader checks them). */
export function writeBench(dir: string, questions: Question[]): { questions: string; corpus: string } {
  const corpus = path.join(dir, 'corpus');
  fs.mkdirSync(corpus, { recursive: true });
  for (const d of new Set(questions.flatMap((q) => q.goldDocs))) fs.writeFileSync(path.join(corpus, `${d}.md`), `# ${d}\n`);
  const file = path.join(dir, 'questions.json');
  fs.writeFileSync(file, JSON.stringify(questions));
  return { questions: file, corpus };
}

function fakeModel(backend: Backend = 'scripted', id = 'fake-model'): ChatModel {
  return {
    id,
    backend,
    async chat(req) {
      return {
        text: `reply to ${req.stage}`,
        toolCalls: [],
        usage: { promptTokens: 10, completionTokens: 2 },
        model: id,
        backend,
        finishReason: 'stop',
        cacheHit: false,
        latencyMs: 1,
        attempts: 1,
      };
    },
  };
}

/** A router over a scripted model with the real Ledger (so per-question usage is real). */
export function fakeRouter(backend: Backend = 'scripted', id = 'fake-model'): RunnerRouter & { closed: boolean } {
  const ledger = new Ledger();
  const m = withLedger(fakeModel(backend, id), ledger);
  const r = {
    closed: false,
    ledger,
    forStage: () => m,
    describe: (): StageRoute[] =>
      ['synth', 'checker'].map(
        (stage) =>
          ({
            stage,
            backend,
            model: id,
            protocol: 'json',
            apiKeyEnv: 'OPENAI_API_KEY',
            keySet: false,
            timeoutMs: 1000,
            concurrency: 4,
            maxAttempts: 1,
            extraBody: {},
            provenance: {},
          }) as StageRoute,
      ),
    async close() {
      r.closed = true;
    },
  };
  return r;
}

export interface FakePipelineOptions {
  name?: string;
  /** Max delay per question in ms (from the question's rng). */
  delayMs?: number;
  /** Ids that throw. */
  failIds?: Set<string>;
  /** Ids that never finish (unless aborted). */
  hangIds?: Set<string>;
  /** Observe concurrency. */
  onEnter?: () => void;
  onLeave?: () => void;
}

/** Answers right with probability 0.6 (seeded per question), makes one synth call, reports a retrieval log. */
export function fakePipeline(o: FakePipelineOptions = {}): Pipeline {
  return {
    name: o.name ?? 'fake',
    description: 'fake pipeline for tests',
    async run(ctx) {
      o.onEnter?.();
      try {
        const q = ctx.question;
        if (o.hangIds?.has(q.id)) await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
        const delay = o.delayMs ? ctx.rng.int(0, o.delayMs) : 0;
        if (delay) await new Promise((r) => setTimeout(r, delay));
        if (o.failIds?.has(q.id)) throw new Error(`boom on ${q.id}`);
        await ctx.model('synth').chat({ stage: 'synth', messages: [{ role: 'user', content: q.question }] });
        ctx.trace({ kind: 'note', text: 'answered' });
        const right = ctx.rng.bool(0.6);
        const final = right ? String(q.answer) : 'something else';
        let searches = 0;
        let hitDocs = [`d${ctx.rng.int(0, 4)}`, q.goldDocs[0], 'dX'];
        if (ctx.retriever) {
          const res = await ctx.retriever.search(q.question, { topk: 3 });
          searches = 1;
          hitDocs = res.hits.map((h) => h.docId);
        }
        const hits = hitDocs.map((d, i) => ({ fragmentId: `${d}#${i}`, docId: d, score: 1 - i / 10 }));
        return {
          prediction: `Because reasons.\nFINAL ANSWER: ${final}`,
          finalAnswer: final,
          retrieval: {
            firstSearch: hits,
            searches: [{ query: q.question, by: 'fake', hits }],
            poolText: right ? `pool with ${q.answer}` : 'pool',
            poolChars: 100,
            poolTrimmed: false,
          },
          counters: { searches, reads: ctx.rng.int(0, 1) },
        };
      } finally {
        o.onLeave?.();
      }
    },
  };
}

export function registerFake(name: string, o: FakePipelineOptions = {}): void {
  registerPipeline(name, () => fakePipeline({ ...o, name }), { family: 'test', replace: true, description: 'fake pipeline for tests' });
}

export function experiment(files: { questions: string; corpus: string }, extra: Record<string, unknown> = {}, overrides: string[] = []): ResolvedExperiment {
  const base: Record<string, unknown> = {
    name: 'fake-exp',
    seed: 7,
    benchmark: { name: 'demo', paths: { questions: files.questions, corpus: files.corpus } },
    pipeline: { name: 'fake' },
    ...extra,
  };
  return experimentFromObject(base, { overrides });
}

/**
 * Models stages that keep an index build offline (models.stages): a test about answering stages over an endpoint
 * opens the offline-built demo index instead of needing `kf prepare` for a model-built one (issue 32: a run never
 * builds an index with model calls on its own).
 */
export const OFFLINE_BUILD_STAGES = {
  extraction: { backend: 'offline' },
  relations: { backend: 'offline' },
  caption: { backend: 'offline' },
} as const;
