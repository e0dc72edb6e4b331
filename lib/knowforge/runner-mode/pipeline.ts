/**
 * Runner mode (`loop = "runner"` with the knowforge-bench pack): one question answered the way the
 * released runner's pipeline answers it, over the knowledge-base API, so every model request is the
 * runner's. S4 (one search with the question and its guardrail, top 8), P1 (Locator, bridge judge), M5
 * (P1 and the Deep Reader), P0 (one agent with every tool, 8 rounds); then the fallback search when
 * nothing was found, the synthesizer with the persona and any forced-stop note, the checker.
 */
import type { ChatModel } from '../../model-api/types';
import { KfError } from '../../util/errors';
import { answerTexts, finalCheck, profileText, synthesize, type AnswerTexts, type RunnerBench } from './answer-texts';
import type { Json, KbApi } from './kb-api';
import { RunnerMaterials } from './materials';
import { poolMaterials } from './pool';
import { byFieldsCount, byFieldsExact, constant, fill, fillSeq, runnerTexts, type RunnerTexts } from './texts';
import { bridgeJudge, finalGuard } from './judge';
import { runLoop, type LoopResult } from './loop';
import { runnerTools, type ToolState } from './tools';

/** The runner's default round caps (its --loc and --deep). */
export const LOC_ROUNDS = 4;
export const DEEP_ROUNDS = 4;

export const RUNNER_MODES = ['M5', 'P1', 'P0', 'S4'] as const;
export type RunnerModeName = (typeof RUNNER_MODES)[number];

export interface RunnerQuestion {
  id?: string;
  /** The question without the guardrail (it is appended here, per benchmark). */
  question: string;
}

export interface RunnerAnswer {
  response: string;
  searches: { query: string; data: Json }[];
}

export interface RunnerModeOptions {
  bench: RunnerBench;
  mode: RunnerModeName;
  kb: KbApi;
  model: (stage: string) => ChatModel;
  checkout?: string;
}

/** The harness's benchmark names to the runner's. */
export function runnerBench(benchmark: string): RunnerBench {
  if (/mmlongbench|mmlb/i.test(benchmark)) return 'mmlb';
  if (/m3doc|m3d/i.test(benchmark)) return 'm3d';
  if (/multihop|mhr/i.test(benchmark)) return 'mhr';
  throw new KfError('runner_bench', `runner mode has no guardrail for benchmark ${benchmark}`, 'use mmlongbench-doc, m3docvqa or multihop-rag');
}

interface AgentRun {
  r1?: LoopResult;
  r2?: LoopResult;
}

/** Locator (or P0), the bridge judge and its searches, and (M5) the Deep Reader: the runner's order. */
async function agents(
  o: RunnerModeOptions,
  texts: RunnerTexts,
  a: AnswerTexts,
  st: ToolState,
  question: string,
  profile: string,
  qid?: string,
): Promise<AgentRun> {
  const loopRules = constant(texts, 'LOOP_RULES');
  const rule = o.bench === 'm3d' ? constant(texts, 'M3D_RULE') : o.bench === 'mhr' ? constant(texts, 'MHR_RULE') : '';
  const task = fillSeq(byFieldsExact(texts.pipeline, ['question']), [question]);
  const guard = (calls: number, fin: unknown) => finalGuard(a, constant(texts, 'FINAL_GUARD_TEXT'), calls, fin);
  const out: AgentRun = {};
  if (o.mode === 'P0') {
    const names = [...texts.locatorTools, ...texts.readerTools.filter((n) => !texts.locatorTools.includes(n))];
    out.r1 = await runLoop({
      texts,
      model: o.model('locator'),
      stage: 'locator',
      tools: runnerTools(texts, st, names),
      task,
      questionId: qid,
      system: `${profile}\n\n${loopRules}${constant(texts, 'P0_RULES_V43').trimEnd()}${rule}`,
      maxRounds: LOC_ROUNDS + DEEP_ROUNDS,
      feedbackSuffix: constant(texts, 'TASK_FEEDBACK_SUFFIX_V2'),
      finalGuard: guard,
    });
  } else {
    out.r1 = await runLoop({
      texts,
      model: o.model('locator'),
      stage: 'locator',
      tools: runnerTools(texts, st, texts.locatorTools),
      task,
      questionId: qid,
      system: `${profile}\n\n${loopRules}${constant(texts, 'LOC_RULES_V43').trimEnd()}${rule}`,
      maxRounds: LOC_ROUNDS,
      feedbackSuffix: constant(texts, 'LOC_SUFFIX'),
      finalGuard: guard,
    });
  }
  const pooled = () => poolMaterials(st.builder, st.searchLog);
  const queries = await bridgeJudge(texts, a, o.model('bridge'), question, pooled(), st.queries, qid);
  for (const q2 of queries) {
    try {
      const data = await st.kb.search(q2, 8);
      st.searchLog.push({ call: st.searchLog.length, query: q2, data, bridge: true });
      st.queries.push(q2);
      st.builder.addSearch(data);
    } catch {
      // the runner records the error and goes on
    }
  }
  if (o.mode === 'M5') {
    const digest = pooled();
    const task2 = fill(
      byFieldsCount(texts.pipeline, (f) => f.length === 2 && f[0] === 'question'),
      { question, digest },
    );
    out.r2 = await runLoop({
      texts,
      model: o.model('reader'),
      stage: 'reader',
      tools: runnerTools(texts, st, texts.readerTools),
      task: task2,
      questionId: qid,
      system: `${profile}\n\n${loopRules}${constant(texts, 'DEEP_RULES_V43').trimEnd()}${rule}`,
      maxRounds: DEEP_ROUNDS,
      feedbackSuffix: constant(texts, 'TASK_FEEDBACK_SUFFIX_V2'),
    });
  }
  return out;
}

export async function answerRunnerMode(o: RunnerModeOptions, q: RunnerQuestion): Promise<RunnerAnswer> {
  const texts = runnerTexts(o.checkout);
  const a = answerTexts(texts);
  const question = q.question + a.guardrail[o.bench];
  const profile = await profileText(a, o.kb);
  const builder = new RunnerMaterials(texts);
  const st: ToolState = { kb: o.kb, vision: o.model('vision'), questionId: q.id, builder, queries: [], searchLog: [] };
  let run: AgentRun = {};
  if (o.mode === 'S4') {
    const data = await o.kb.search(question, 8);
    st.searchLog.push({ call: 0, query: question, data });
    st.queries.push(question);
    builder.addSearch(data);
  } else run = await agents(o, texts, a, st, question, profile, q.id);
  if (!builder.hasContent()) {
    try {
      const data = await o.kb.search(question, 8);
      st.searchLog.push({ call: st.searchLog.length, query: question, data });
      builder.addSearch(data);
    } catch {
      // as the runner: no fallback material
    }
  }
  const last = run.r2 ?? run.r1;
  let response: string;
  if (builder.hasContent()) {
    const materials = poolMaterials(builder, st.searchLog);
    response = await synthesize(a, o.model('synth'), { question, materials, profile, note: last?.note ?? '', questionId: q.id });
  } else {
    const fin = last && typeof last.final === 'string' ? last.final.trim() : '';
    response = fin || last?.note || a.noMaterials;
  }
  if (question.includes('FINAL ANSWER')) response = await finalCheck(a, o.model('checker'), o.bench, question, response, q.id);
  return { response, searches: st.searchLog.map((x) => ({ query: String(x.query), data: x.data as Json })) };
}
