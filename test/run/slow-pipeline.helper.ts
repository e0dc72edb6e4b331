/**
 * A plug-in for CLI tests, named in KF_PLUGINS: its one family and configuration `slow-fake`
 * (40-120 ms per question, seeded answers, no model call).
 */
import { z } from 'zod';
import type { Pipeline } from '../../lib/pipeline/types';
import type { Plugin } from '../../lib/pipeline/plugin';
import type { PipelineSpec } from '../../lib/pipeline/spec';

const slowFake: Pipeline = {
  name: 'slow-fake',
  description: 'slow fake pipeline for CLI tests',
  async run(ctx) {
    await new Promise((r) => setTimeout(r, 40 + ctx.rng.int(0, 80)));
    const final = ctx.rng.bool(0.5) ? String(ctx.question.answer) : 'no idea';
    return { prediction: `FINAL ANSWER: ${final}`, finalAnswer: final, counters: { rounds: 1 } };
  },
};

/** Its settings are its own business: any are taken (an experiment's caps included). */
const family: PipelineSpec = {
  family: 'test',
  description: 'fake pipelines for CLI tests',
  settings: z.looseObject({}),
  needsIndex: () => true,
  create: () => slowFake,
};

export const plugin: Plugin = {
  name: 'slow-fake-test',
  description: 'the slow fake pipeline of the CLI tests',
  families: [family],
  configurations: [{ name: 'slow-fake', family: 'test', paper: 'test', description: slowFake.description, settings: {} }],
};
