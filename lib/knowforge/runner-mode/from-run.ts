/**
 * Runner mode from `kf run`: a knowforge-agents configuration with `loop = "runner"` (and the
 * knowforge-bench pack) answers each question with the released runner's pipeline (pipeline.ts) over
 * the knowledge-base API of its `--kb remote:<uuid>` (a hosted package, or `kf serve kb` over the
 * harness's index), instead of the harness's own loop. The configuration's row picks the runner's
 * mode (P0, S4 = no Locator rounds, P1 = no reader, else M5); what still differs from the runner is
 * listed in RUNNER_MODE_DEPARTURES, recorded with every question and so in the run's manifest.
 */
import type { PipelineContext, PipelineResult } from '../../pipeline/types';
import { findFinalAnswer } from '../../eval/metrics/final-answer';
import { KfError } from '../../util/errors';
import { KNOWFORGE_BENCH_PACK } from '../prompt-pack/packs';
import { httpKbApi } from './kb-api';
import { answerRunnerMode, runnerBench, type RunnerModeName } from './pipeline';

/** Where runner mode still departs from the released runner (also in experiments/knowforge/README.md). */
export const RUNNER_MODE_DEPARTURES: readonly string[] = [
  'model-call retries: the harness router retries by its own policy (the runner: 2 retries, 1.5 s apart; 1 for vision)',
  'table rows: cells whose column name is a whole number are listed first (JavaScript key order); the runner keeps the server order',
  'numbers in knowledge-base data written by Python as floats (5.0) are written as integers (5)',
  'read_media always has a vision model (the runner answers each id with an error when [vision] is not configured)',
  'round caps: the runner defaults (--loc 4, --deep 4; P0 8) whatever the row sets; the row only picks the mode',
];

export interface RunnerLoopSettings {
  prompts: string;
  p0: boolean;
  locatorRounds: number;
  reader: boolean;
  readerRounds: number;
}

/** The runner's mode a configuration row stands for. */
export function runnerModeOf(s: RunnerLoopSettings): RunnerModeName {
  if (s.p0) return 'P0';
  if (s.locatorRounds === 0) return 'S4';
  if (!s.reader || s.readerRounds === 0) return 'P1';
  return 'M5';
}

/** The knowledge-base API behind a `--kb remote:<uuid>` view (its server root and package id; the key from KF_KB_API_KEY). */
function apiOf(ctx: PipelineContext, name: string) {
  const client = (ctx.kb as { client?: { baseUrl?: unknown; uuid?: unknown } } | undefined)?.client;
  if (!client || typeof client.baseUrl !== 'string' || typeof client.uuid !== 'string')
    throw new KfError(
      'runner_loop_kb',
      `${name}: loop = "runner" talks to a knowledge base over the runner's API, and question ${ctx.question.id} has a local index`,
      'serve the index with `kf serve kb` and run with --kb remote:<uuid> (KF_KB_BASE_URL = the server root)',
      { concerns: ctx.question.id },
    );
  return httpKbApi(client.baseUrl, client.uuid, process.env.KF_KB_API_KEY);
}

export async function runRunnerLoop(ctx: PipelineContext, s: RunnerLoopSettings, name: string): Promise<PipelineResult> {
  if (s.prompts !== KNOWFORGE_BENCH_PACK)
    throw new KfError('runner_loop_pack', `${name}: loop = "runner" sends the released runner's texts`, `run it with --prompts ${KNOWFORGE_BENCH_PACK}`);
  const mode = runnerModeOf(s);
  const a = await answerRunnerMode(
    { bench: runnerBench(ctx.question.benchmark), mode, kb: apiOf(ctx, name), model: (stage) => ctx.model(stage) },
    { id: ctx.question.id, question: ctx.question.question },
  );
  return {
    prediction: a.response,
    finalAnswer: findFinalAnswer(a.response) ?? a.response.trim(),
    counters: { searches: a.searches.length },
    system: { label: `knowforge runner mode ${mode}`, loop: 'runner', mode, departures: [...RUNNER_MODE_DEPARTURES] },
  };
}
