/**
 * A competent model for runs over the demo world, played by the scripted
 * server: it tells which question a request is about (the question text in the
 * messages) and answers each stage (by the model name the test routes it to) as
 * a model that finds the gold answer would. Used by the chaos suite and the
 * 429-storm and replica tests.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureDemoWorld } from '../../lib/demo';
import { parsePattern } from '../../lib/dualg/offline/pattern';
import type { RecordedRequest, ScriptedReply } from '../../lib/models/testing/scripted-server';
import { sharedScratch } from '../_shared/scratch';
import { experimentFromObject } from '../../lib/run/config';
import { OFFLINE_BUILD_STAGES } from './helpers';

/** The model name each stage is routed to (models.stages.<stage>.model). */
export const STAGE_MODELS = { locator: 'loc', reader: 'rdr', bridge: 'jdg', vision: 'vis', synth: 'syn', checker: 'chk', pattern: 'pat' } as const;

export const DEMO_QUESTIONS = 100;

export interface Q {
  id: string;
  question: string;
  answer: string;
}

/** What a competent model answers at each stage (the gold answer at the end, so a fault-free run scores). */
export function goodReply(req: RecordedRequest, q: Q): ScriptedReply {
  const msgs = req.body.messages as { role: string }[];
  const followUp = msgs.some((m) => m.role === 'assistant' || m.role === 'tool');
  switch (req.model) {
    case 'loc':
      return {
        text: JSON.stringify(followUp ? { thought: 'found it', final: 'done' } : { thought: 'search', tool: 'search_knowledge', args: { query: q.question } }),
      };
    case 'rdr':
      return { text: JSON.stringify({ thought: 'read', final: q.answer }) };
    case 'jdg':
      return { text: JSON.stringify({ need_more: false, bridge_entities: [], queries: [], reason: 'enough' }) };
    case 'vis':
      return { text: `Answer: ${q.answer}` };
    case 'chk':
      return { text: JSON.stringify({ final: q.answer }) };
    case 'pat':
      // DualG's query pattern: the parse a rule reader makes of the question (a well-formed reply, the same each time).
      return { text: JSON.stringify(parsePattern({ role: 'pattern', question: q.question, maxImages: 4 })) };
    default:
      return { text: `The passage [1] says so.\nFINAL ANSWER: ${q.answer}` };
  }
}

/** Which of `questions` a request is about (its index), by the longest question text found in the messages. */
export function questionFinder(questions: Q[]): (req: RecordedRequest) => { q: Q; i: number } | undefined {
  const byText = questions.map((q, i) => ({ q, i })).sort((a, b) => b.q.question.length - a.q.question.length);
  return (req) => {
    const text = JSON.stringify(req.body.messages ?? '');
    return byText.find(({ q }) => text.includes(JSON.stringify(q.question).slice(1, -1)));
  };
}

/** The tiny demo world with 100 questions (same corpus as the tiny world), shared by the test files of this user. */
export async function demoWorld100() {
  const world = await ensureDemoWorld({ preset: 'tiny', questions: DEMO_QUESTIONS, dir: sharedScratch('demo-tiny-100') });
  const questions = JSON.parse(fs.readFileSync(path.join(world.dir, 'questions.json'), 'utf8')) as Q[];
  return { world, questions };
}

/** Index folder for that world. */
export function demoIndex100(): string {
  return sharedScratch('index', 'demo-tiny-100');
}

/**
 * An experiment over the 100-question demo world at concurrency 8, each stage routed to its model name
 * (STAGE_MODELS) on the scripted server; `endpoint` holds the base URL(s) and the retry/timeout settings.
 */
export function demoExperiment(o: {
  name: string;
  pipeline: string;
  /** The row's settings over its defaults (e.g. a DualG row with the format checker). */
  settings?: Record<string, unknown>;
  worldDir: string;
  endpoint: Record<string, unknown>;
  limits?: Record<string, number>;
  /** The reply cache (default: none). */
  cacheFile?: string;
}) {
  return experimentFromObject({
    name: o.name,
    seed: 1,
    concurrency: 8,
    benchmark: { name: 'demo', paths: { questions: path.join(o.worldDir, 'questions.json'), corpus: path.join(o.worldDir, 'corpus') } },
    pipeline: { name: o.pipeline, ...(o.settings ? { settings: o.settings } : {}) },
    // DualG's graph on its offline rules (explicit settings win over an endpoint's model stages): these tests
    // inject faults into the answering steps, and a run never builds a model graph on its own.
    index: { dir: demoIndex100(), build: 'ensure', embedder: 'fitted', settings: { openie: 'rules', microImages: 'ocr' } },
    models: {
      defaults: { model: 'm', concurrency: 8, ...o.endpoint },
      stages: { ...OFFLINE_BUILD_STAGES, ...Object.fromEntries(Object.entries(STAGE_MODELS).map(([s, model]) => [s, { model }])) },
      ...(o.cacheFile ? { cache: { mode: 'read-write', file: o.cacheFile } } : {}),
    },
    ...(o.limits ? { limits: o.limits } : {}),
  });
}
