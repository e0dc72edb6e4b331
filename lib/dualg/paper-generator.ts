/**
 * The paper's generator (generator = "paper"): the unified prompt (unified-prompt.ts) over the path snippets,
 * the retrieved passages and up to k_v raw images, answered in the benchmark's form (answer-form.ts), with
 * the two benchmark-specific settings of the paper's Appendix C.2 as experiment settings: `complexityCheck`
 * (WebQA: the model judges the question's complexity and simple ones get no path section) and `candidates`
 * (ScienceQA: an answer with retrieval and one without, the model keeps the more logical). KnowForge's
 * guardrail and format checker run only where the experiment asks (`guardrail`, `checker`), recorded in the
 * trace and the counters; otherwise the value scored is the reply's own FINAL ANSWER line.
 */
import * as path from 'node:path';
import * as fs from 'node:fs';
import { checkFormat } from '../answer/checker';
import type { EvidencePool } from '../answer/pool';
import { SYNTH_TEMPERATURE } from '../answer/synthesizer';
import { askAgainIfEmpty, cutByTokenLimit, refuseReply, rejectReply } from '../model-api/reply-verdict';
import type { PipelineContext } from '../pipeline/types';
import { answerValue, type AnswerForm } from './answer-form';
import { chooseCandidate, type Candidate } from './candidates';
import { assessComplexity } from './complexity';
import type { ImagePart } from './generate';
import { unifiedMessages, unifiedTask, type UnifiedInput } from './unified-prompt';

export interface PaperGeneratorSettings {
  answerForm: AnswerForm;
  complexityCheck: boolean;
  candidates: boolean;
  guardrail: boolean;
  checker: boolean;
}

export interface GenerationInput {
  pool: EvidencePool;
  /** The path section ('' when no path is injected). */
  paths: string;
  /** Raw images of the evidence, at most k_v. */
  images: ImagePart[];
}

export interface Generated {
  prediction: string;
  finalAnswer: string;
  counters: Record<string, number>;
}

const MIME: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' };

/** The question's own image (ScienceQA's IMG context, meta.imagePath) when its file exists: part of the question, sent with every candidate. */
export function questionImage(q: PipelineContext['question']): ImagePart[] {
  const file = typeof q.meta?.imagePath === 'string' ? q.meta.imagePath : undefined;
  if (!file || !fs.existsSync(file)) return [];
  return [{ type: 'image', path: file, mime: MIME[path.extname(file).toLowerCase()] ?? 'image/png' }];
}

async function unifiedCall(ctx: PipelineContext, input: UnifiedInput, candidate: string): Promise<Candidate> {
  const ask = () =>
    ctx.model('synth').chat(
      {
        stage: 'synth',
        messages: unifiedMessages(input),
        temperature: SYNTH_TEMPERATURE,
        maxTokens: 2048,
        questionId: ctx.question.id,
        task: unifiedTask(input),
      },
      ctx.signal,
    );
  // An empty reply is asked once more (a transient endpoint failure), as in the shared synthesizer.
  const { out: res, reasked } = await askAgainIfEmpty(ask, (r) => r);
  ctx.trace({
    kind: 'synth',
    generator: 'dualg-unified',
    candidate,
    form: input.form,
    text: res.text,
    cacheHit: res.cacheHit,
    latencyMs: res.latencyMs,
    reasked,
  });
  // The generator's reply is final: an empty one, or one cut at the token limit whatever it holds, is refused
  // (an error, never a score) and never replayed from the cache.
  if (!res.text.trim()) throw refuseReply(res, 'synth', 'empty', 'the generator sent an empty reply (asked twice)');
  if (cutByTokenLimit(res)) throw refuseReply(res, 'synth', 'truncated', 'the generator reply was cut at the token limit');
  return { text: res.text, final: answerValue(input.form, res.text) };
}

/** With `candidates`: the answer without retrieval, then the model's choice between the two. */
async function pickCandidate(ctx: PipelineContext, withRetrieval: Candidate, base: UnifiedInput): Promise<Candidate & { kept: 1 | 2 }> {
  const without = await unifiedCall(ctx, { ...base, paths: '', pool: undefined, images: questionImage(ctx.question) }, 'without retrieval');
  const choice = await chooseCandidate(ctx, withRetrieval, without);
  ctx.trace({ kind: 'candidate-choice', kept: choice.kept, how: choice.how, by: choice.by, final: choice.final, raw: choice.raw });
  const kept = choice.kept === 1 ? withRetrieval : without;
  return { text: kept.text, final: choice.final || kept.final, kept: choice.kept };
}

export async function generateAsPaper(ctx: PipelineContext, s: PaperGeneratorSettings, input: GenerationInput): Promise<Generated> {
  const counters: Record<string, number> = { synthCalls: 0, complexityCalls: 0, pathsBypassed: 0, candidateCalls: 0, checkerCalls: 0 };
  let paths = input.paths;
  if (s.complexityCheck && paths) {
    const c = await assessComplexity(ctx);
    counters.complexityCalls = 1;
    ctx.trace({ kind: 'complexity', verdict: c.verdict, bypass: c.bypass, by: c.by, raw: c.raw });
    if (c.bypass) {
      paths = '';
      counters.pathsBypassed = 1;
    }
  }
  const base: UnifiedInput = {
    question: ctx.question,
    convention: ctx.convention,
    form: s.answerForm,
    paths,
    pool: input.pool,
    images: [...questionImage(ctx.question), ...input.images],
    guardrail: s.guardrail,
  };
  let answer: Candidate = await unifiedCall(ctx, base, 'with retrieval');
  counters.synthCalls = 1;
  if (s.candidates) {
    const picked = await pickCandidate(ctx, answer, base);
    counters.synthCalls = 2;
    counters.candidateCalls = 1;
    counters.keptWithoutRetrieval = picked.kept === 2 ? 1 : 0;
    answer = picked;
  }
  if (!s.checker) return { prediction: answer.text, finalAnswer: answer.final, counters };
  const checked = await checkFormat(ctx.model('checker'), { question: ctx.question, convention: ctx.convention, answerText: answer.text }, ctx.signal);
  ctx.trace({
    kind: 'checker',
    final: checked.final,
    changed: checked.changed,
    parseError: checked.parseError,
    raw: checked.response.text,
    finishReason: checked.response.finishReason,
    askedBy: 'setting checker',
  });
  counters.checkerCalls = 1;
  // The checker's reply is final too: one cut at the token limit is refused, an unparseable one never replayed.
  if (cutByTokenLimit(checked.response)) throw refuseReply(checked.response, 'checker', 'truncated', 'the checker reply was cut at the token limit');
  if (checked.parseError) rejectReply(checked.response, 'unparseable');
  return { prediction: checked.text, finalAnswer: checked.final.trim() || answer.final, counters };
}
