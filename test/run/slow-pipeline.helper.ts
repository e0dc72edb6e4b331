/**
 * A pipeline module for CLI tests, loaded through KF_PIPELINE_MODULES: registers
 * `slow-fake` (40-120 ms per question, seeded answers, no model call).
 */
import { registerPipeline } from '../../lib/run/registry';
import type { Pipeline } from '../../lib/pipeline/types';

export function register(): void {
  const p: Pipeline = {
    name: 'slow-fake',
    description: 'slow fake pipeline for CLI tests',
    async run(ctx) {
      await new Promise((r) => setTimeout(r, 40 + ctx.rng.int(0, 80)));
      const final = ctx.rng.bool(0.5) ? String(ctx.question.answer) : 'no idea';
      return { prediction: `FINAL ANSWER: ${final}`, finalAnswer: final, counters: { rounds: 1 } };
    },
  };
  registerPipeline('slow-fake', () => p, { family: 'test', replace: true, description: p.description });
}
