/**
 * The answer step every pipeline ends with (KnowForge one-shot and agent
 * configurations, DualG-MRAG): one synthesizer call over the pool, then the
 * format checker, whose value replaces the final line. Both calls are traced;
 * the counters go into the question's record.
 */
import type { PipelineContext } from '../run/types';
import { checkFormat } from './checker';
import { synthesize, type SynthInput } from './synthesizer';

export interface Answered {
  prediction: string;
  finalAnswer: string;
  counters: { synthCalls: number; checkerCalls: number; checkerRewrites: number; checkerParseErrors: number };
}

/** Synthesize from `input` (question and convention come from the context), then check the format. */
export async function synthesizeAndCheck(
  ctx: PipelineContext,
  input: Omit<SynthInput, 'question' | 'convention'>,
  synthTrace: Record<string, unknown> = {},
): Promise<Answered> {
  const q = ctx.question;
  const synth = await synthesize(ctx.model('synth'), { ...input, question: q, convention: ctx.convention }, ctx.signal);
  ctx.trace({ kind: 'synth', text: synth.text, final: synth.final, cacheHit: synth.response.cacheHit, latencyMs: synth.response.latencyMs, ...synthTrace });
  const checked = await checkFormat(ctx.model('checker'), { question: q, convention: ctx.convention, answerText: synth.text }, ctx.signal);
  ctx.trace({ kind: 'checker', final: checked.final, changed: checked.changed, parseError: checked.parseError, raw: checked.response.text });
  return {
    prediction: checked.text,
    finalAnswer: checked.final,
    counters: { synthCalls: 1, checkerCalls: 1, checkerRewrites: checked.changed ? 1 : 0, checkerParseErrors: checked.parseError ? 1 : 0 },
  };
}
