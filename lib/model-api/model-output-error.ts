/**
 * A model reply the pipeline cannot use: empty, cut off, or unparseable twice in
 * a row. It is an error of the question (record error.kind "model_output"),
 * never an answer: an empty reply scored as an empty final answer would count as
 * a refusal, and a refusal scores 1 on unanswerable questions.
 *
 * Thrown where replies are read (agent loop, synthesizer, answer step); the
 * runner records the stage and an excerpt of what came back.
 */
import { KfError } from '../util/errors';

/** How much of the reply a record keeps: enough to see what went wrong, not a whole transcript. */
export const RECEIVED_EXCERPT_CHARS = 300;

export type ModelOutputProblem = 'empty' | 'truncated' | 'unparseable' | 'no_final_answer';

export function excerptOf(text: string | undefined): string {
  const t = text ?? '';
  return t.length > RECEIVED_EXCERPT_CHARS ? `${t.slice(0, RECEIVED_EXCERPT_CHARS)}... [${t.length} chars]` : t;
}

export class ModelOutputError extends KfError {
  /** The reply (or replies) as received, cut to RECEIVED_EXCERPT_CHARS. */
  readonly received: string;
  /** The endpoint's finish reason of the (last) refused reply, when known (`length`: cut by the token limit). */
  readonly finishReason?: string;

  constructor(
    readonly stage: string,
    readonly problem: ModelOutputProblem,
    what: string,
    received: string | undefined,
    opts: { finishReason?: string } = {},
  ) {
    const excerpt = excerptOf(received);
    const cut = opts.finishReason === 'length' && !/token limit/.test(what) ? ', cut at the token limit (finish reason "length")' : '';
    super(
      'model_output',
      `${stage}: ${what}${cut} (received ${JSON.stringify(excerpt)})`,
      'check the endpoint and model of this stage (kf models --check; a cut reply needs a larger max_tokens); the refused reply is never replayed from the cache, so --retry-errors asks the model again',
      { concerns: stage },
    );
    this.received = excerpt;
    if (opts.finishReason) this.finishReason = opts.finishReason;
  }

  /** Why the reply was refused, for records and summaries: `length` when the token limit cut it, else the problem. */
  get reason(): string {
    return this.finishReason === 'length' ? 'length' : this.problem;
  }
}

export function isModelOutputError(e: unknown): e is ModelOutputError {
  return e instanceof ModelOutputError || (typeof e === 'object' && e !== null && (e as { code?: string }).code === 'model_output');
}
