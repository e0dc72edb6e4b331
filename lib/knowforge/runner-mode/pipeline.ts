/**
 * Runner mode (`loop = "runner"` with the knowforge-bench pack): one question answered the way the
 * released runner's pipeline answers it, over the knowledge-base API, so every model request is the
 * runner's. Implemented: S4 (one search with the question and its guardrail, top 8, the persona and
 * synthesizer layout, the checker). The agent configurations (M5, P1, P0) are listed as departures
 * in experiments/knowforge/README.md until their tools are ported.
 */
import type { ChatModel } from '../../model-api/types';
import { KfError } from '../../util/errors';
import { answerTexts, finalCheck, profileText, synthesize, type RunnerBench } from './answer-texts';
import type { Json, KbApi } from './kb-api';
import { RunnerMaterials } from './materials';
import { poolMaterials } from './pool';
import { runnerTexts } from './texts';

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

export async function answerRunnerMode(o: RunnerModeOptions, q: RunnerQuestion): Promise<RunnerAnswer> {
  const texts = runnerTexts(o.checkout);
  const a = answerTexts(texts);
  const question = q.question + a.guardrail[o.bench];
  const profile = await profileText(a, o.kb);
  const builder = new RunnerMaterials(texts);
  const searchLog: { query: string; data: Json }[] = [];
  if (o.mode !== 'S4')
    throw new KfError(
      'runner_mode_unported',
      `runner mode ${o.mode} is not ported yet (S4 is)`,
      'run S4 in runner mode, or the configuration in the own loop; see experiments/knowforge/README.md',
    );
  const data = await o.kb.search(question, 8);
  searchLog.push({ query: question, data });
  builder.addSearch(data);
  let response: string;
  if (builder.hasContent()) {
    const materials = poolMaterials(builder, searchLog);
    response = await synthesize(a, o.model('synth'), { question, materials, profile, note: '', questionId: q.id });
  } else response = a.noMaterials;
  if (question.includes('FINAL ANSWER')) response = await finalCheck(a, o.model('checker'), o.bench, question, response, q.id);
  return { response, searches: searchLog };
}
