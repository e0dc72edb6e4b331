/**
 * The answer step every pipeline ends with (KnowForge one-shot and agent
 * configurations, DualG-MRAG): one synthesizer call over the pool, then the
 * format checker, whose value replaces the final line. Both calls are traced;
 * the counters go into the question's record.
 *
 * A reply that gives no answer is a ModelOutputError, never an empty final
 * answer (which scoring would read as a refusal): an empty synthesizer reply,
 * one cut off at the token limit before its FINAL ANSWER line, or an answer
 * whose final value is still empty after the checker.
 */
import { ModelOutputError } from '../model-api/model-output-error';
import type { PipelineContext } from '../pipeline/types';
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
  refuseUnusableSynthesis(synth.text, synth.final, synth.response.finishReason);
  const checked = await checkFormat(ctx.model('checker'), { question: q, convention: ctx.convention, answerText: synth.text }, ctx.signal);
  ctx.trace({ kind: 'checker', final: checked.final, changed: checked.changed, parseError: checked.parseError, raw: checked.response.text });
  if (!checked.final.trim()) {
    const why = synth.final === undefined ? 'the synthesizer wrote no FINAL ANSWER line' : 'the FINAL ANSWER line is empty';
    throw new ModelOutputError('checker', 'no_final_answer', `${why} and the checker gave no value`, `${synth.text} || checker: ${checked.response.text}`);
  }
  return {
    prediction: checked.text,
    finalAnswer: checked.final,
    counters: { synthCalls: 1, checkerCalls: 1, checkerRewrites: checked.changed ? 1 : 0, checkerParseErrors: checked.parseError ? 1 : 0 },
  };
}

/** An empty synthesizer reply, or one cut at the token limit before any FINAL ANSWER line, holds no answer to check. */
function refuseUnusableSynthesis(text: string, final: string | undefined, finishReason: string): void {
  if (!text.trim()) throw new ModelOutputError('synth', 'empty', 'the synthesizer sent an empty reply', text);
  if (final === undefined && finishReason === 'length')
    throw new ModelOutputError('synth', 'truncated', 'the synthesizer reply was cut at the token limit before its FINAL ANSWER line', text);
}
