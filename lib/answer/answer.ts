/**
 * The answer step every pipeline ends with (KnowForge one-shot and agent
 * configurations, DualG-MRAG): one synthesizer call over the pool, then the
 * format checker, whose value replaces the final line. Both calls are traced;
 * the counters go into the question's record.
 *
 * A reply that gives no answer is a ModelOutputError, never an empty final
 * answer (which scoring would read as a refusal): an empty synthesizer reply,
 * one cut off at the token limit before its FINAL ANSWER line, or an answer
 * whose final value is still empty after the checker. A reply cut by the token
 * limit (finish reason `length`) is refused whatever its text, at both calls: a
 * cut `FINAL ANSWER: No...` line is not an answer. An empty reply is asked once
 * more first. Refused replies are rejected, so the cache never replays them.
 */
import type { ChatResponse } from '../model-api/types';
import { askAgainIfEmpty, cutByTokenLimit, refuseReply, rejectReply } from '../model-api/reply-verdict';
import type { PipelineContext } from '../pipeline/types';
import { checkFormat } from './checker';
import { synthesize, type SynthInput } from './synthesizer';

export interface Answered {
  prediction: string;
  finalAnswer: string;
  counters: { synthCalls: number; checkerCalls: number; checkerRewrites: number; checkerParseErrors: number; emptyReasks: number };
}

/** Synthesize from `input` (question and convention come from the context), then check the format. */
export async function synthesizeAndCheck(
  ctx: PipelineContext,
  input: Omit<SynthInput, 'question' | 'convention'>,
  synthTrace: Record<string, unknown> = {},
): Promise<Answered> {
  const q = ctx.question;
  const { out: synth, reasked: synthAgain } = await askAgainIfEmpty(
    () => synthesize(ctx.model('synth'), { ...input, question: q, convention: ctx.convention }, ctx.signal),
    (o) => o.response,
  );
  const r = synth.response;
  ctx.trace({ kind: 'synth', text: synth.text, final: synth.final, cacheHit: r.cacheHit, latencyMs: r.latencyMs, finishReason: r.finishReason, ...synthTrace });
  refuseUnusableSynthesis(synth.text, r);
  const { out: checked, reasked: checkerAgain } = await askAgainIfEmpty(
    () => checkFormat(ctx.model('checker'), { question: q, convention: ctx.convention, answerText: synth.text }, ctx.signal),
    (o) => o.response,
  );
  const c = checked.response;
  ctx.trace({ kind: 'checker', final: checked.final, changed: checked.changed, parseError: checked.parseError, raw: c.text, finishReason: c.finishReason });
  if (cutByTokenLimit(c)) throw refuseReply(c, 'checker', 'truncated', 'the checker reply was cut at the token limit');
  if (checked.parseError) rejectReply(c, 'unparseable'); // not used (the synthesizer's line stands): never replayed either
  if (!checked.final.trim()) {
    const why = synth.final === undefined ? 'the synthesizer wrote no FINAL ANSWER line' : 'the FINAL ANSWER line is empty';
    throw refuseReply([r, c], 'checker', 'no_final_answer', `${why} and the checker gave no value`, `${synth.text} || checker: ${c.text}`);
  }
  return {
    prediction: checked.text,
    finalAnswer: checked.final,
    counters: {
      synthCalls: synthAgain ? 2 : 1,
      checkerCalls: checkerAgain ? 2 : 1,
      checkerRewrites: checked.changed ? 1 : 0,
      checkerParseErrors: checked.parseError ? 1 : 0,
      emptyReasks: (synthAgain ? 1 : 0) + (checkerAgain ? 1 : 0),
    },
  };
}

/** An empty synthesizer reply, or one cut at the token limit (whatever it holds, even a FINAL ANSWER line), is no answer to check. */
function refuseUnusableSynthesis(text: string, res: ChatResponse): void {
  if (!text.trim()) throw refuseReply(res, 'synth', 'empty', 'the synthesizer sent an empty reply (asked twice)');
  if (cutByTokenLimit(res)) throw refuseReply(res, 'synth', 'truncated', 'the synthesizer reply was cut at the token limit');
}
