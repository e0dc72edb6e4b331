/**
 * WebQA's complexity self-check (paper, Appendix C.2: part of WebQA's queries need fewer hops, so the model
 * is asked to judge the query's complexity and the path injection is bypassed for simple ones): one call
 * to the generator's model (stage `synth`) with our prompt (prompts/dualg-complexity.txt), answered SIMPLE
 * or COMPLEX. A reply that says neither keeps the paths (the full method), and the trace says so.
 */
import type { PipelineContext } from '../pipeline/types';
import { fillPrompt } from '../util/prompts';
import type { ComplexityTask } from './offline/tasks';

export interface ComplexityVerdict {
  /** True: the path section is left out of the prompt. */
  bypass: boolean;
  verdict: 'simple' | 'complex' | 'unclear';
  /** `model <id>` or `offline rules (stand-in)`. */
  by: string;
  raw: string;
}

export function verdictOf(text: string): ComplexityVerdict['verdict'] {
  const simple = /\bSIMPLE\b/i.test(text);
  const complex = /\bCOMPLEX\b/i.test(text);
  if (simple === complex) return 'unclear';
  return simple ? 'simple' : 'complex';
}

export async function assessComplexity(ctx: PipelineContext): Promise<ComplexityVerdict> {
  const q = ctx.question;
  const task: ComplexityTask = { role: 'dualg-complexity', question: q.question };
  const res = await ctx.model('synth').chat(
    {
      stage: 'synth',
      messages: [{ role: 'user', content: fillPrompt('dualg-complexity', { question: q.question }) }],
      temperature: 0,
      maxTokens: 16,
      questionId: q.id,
      task,
    },
    ctx.signal,
  );
  const verdict = verdictOf(res.text);
  const by = res.backend === 'offline' ? 'offline rules (stand-in)' : `model ${res.model}`;
  return { bypass: verdict === 'simple', verdict, by, raw: res.text };
}
