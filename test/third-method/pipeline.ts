/**
 * The third method's pipeline family ('third'): one search with its own retriever, then one model
 * call (role 'third', its own prompt) that reads the best passage and answers. Written against the
 * contract (lib/pipeline) and the answer layer (lib/answer) only.
 */
import { z } from 'zod';
import { findFinalAnswer } from '../../lib/answer/final-answer';
import type { PipelineSpec } from '../../lib/pipeline/spec';
import type { Pipeline, PipelineContext, PipelineResult } from '../../lib/pipeline/types';
import { fillPrompt } from '../../lib/util/prompts';

const THIRD_FAMILY = 'third';

const settings = z.strictObject({ topk: z.number().int().min(1).max(10).default(3) });

async function answer(name: string, s: z.output<typeof settings>, ctx: PipelineContext): Promise<PipelineResult> {
  const q = ctx.question.question;
  const found = await ctx.kb!.search(q, { mode: 'third-overlap', k: s.topk });
  const hits = found.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, page: h.page, score: h.score }));
  ctx.trace({ kind: 'third-read', fragment: hits[0]?.fragmentId ?? null, hits: hits.length });
  const passage = found.hits[0]?.text ?? '';
  const reply = await ctx.model('third').chat(
    {
      stage: 'third',
      messages: [{ role: 'user', content: fillPrompt('third-answer', { question: q, passage }) }],
      task: { role: 'third', question: q, passage },
      questionId: ctx.question.id,
    },
    ctx.signal,
  );
  return {
    prediction: reply.text,
    finalAnswer: findFinalAnswer(reply.text) ?? '',
    retrieval: { firstSearch: hits, searches: [{ query: q, by: name, hits }], poolText: passage, poolChars: passage.length, poolTrimmed: false },
  };
}

export const thirdFamily: PipelineSpec<typeof settings> = {
  family: THIRD_FAMILY,
  description: 'third method: one search, one reading call',
  settings,
  needsIndex: () => true,
  create: (name, s): Pipeline => ({ name, description: `third method (top ${s.topk})`, needsIndex: true, run: (ctx) => answer(name, s, ctx) }),
};
