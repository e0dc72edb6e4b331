/**
 * MMLongBench-Doc's model-judge step: a scorer model reads the question and the
 * free-form answer and extracts a short answer plus its format ("Extracted
 * answer: ... / Answer format: ..."), which the rule-based scorer then grades.
 * Protocol (spec): stage 'scorer', temperature 0, 256 tokens, 3 tries. The
 * model is injected (any ChatModel: a real endpoint, the offline backend, a
 * scripted mock), so this works with or without a real model.
 *
 * The default prompt is written for this harness from the official protocol's
 * description (not the official wording); pass `template` to use another
 * ({{question}} and {{analysis}} are filled in).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cutByTokenLimit, rejectReply } from '../../model-api/reply-verdict';
import type { ChatModel } from '../../model-api/types';
import { KfError } from '../../util/errors';
import { loadPrompt } from '../../util/prompts';

/** The default extraction prompt: prompts/scorer-mmlongbench.txt. */
export function defaultExtractionTemplate(): string {
  return loadPrompt('scorer-mmlongbench');
}

export const FAILED_TO_EXTRACT = 'Failed to extract';

export interface JudgeExtraction {
  /** The extracted answer, or FAILED_TO_EXTRACT (scores 0, as upstream). */
  pred: string;
  /** The format the judge named, when it named one. */
  format?: string;
  /** The judge's raw reply ('' when every try failed). */
  raw: string;
  attempts: number;
  failed: boolean;
  model?: string;
  backend?: string;
}

/** Parse "Extracted answer: X\nAnswer format: Y" the way the official runner does (split on the two labels). */
export function parseExtraction(reply: string): { pred: string; format?: string } | undefined {
  const beforeFormat = reply.split('Answer format:')[0];
  const parts = beforeFormat.split('Extracted answer:');
  if (parts.length < 2) return undefined;
  const formatPart = reply.split('Answer format:')[1];
  return { pred: parts[1].trim(), format: formatPart !== undefined ? formatPart.trim().split(/\r?\n/)[0].trim() : undefined };
}

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => (k in vars ? vars[k] : m));
}

export interface ExtractOptions {
  template?: string;
  /**
   * The benchmark's own extraction prompt (its eval/prompt_for_answer_extraction.md, read at run time
   * from the user's checkout): sent as the user turn, the question and the answer following as an
   * assistant turn, as MMLongBench-Doc's eval does (instead of the template).
   */
  benchmarkPrompt?: string;
  tries?: number;
  questionId?: string;
  runId?: string;
  signal?: AbortSignal;
}

export async function extractAnswerWithJudge(model: ChatModel, question: string, analysis: string, opts: ExtractOptions = {}): Promise<JudgeExtraction> {
  const tries = opts.tries ?? 3;
  const prompt = fill(opts.template ?? defaultExtractionTemplate(), { question, analysis });
  let raw = '';
  let lastError: unknown;
  for (let attempt = 1; attempt <= tries; attempt++) {
    if (opts.signal?.aborted) break;
    try {
      const res = await model.chat(
        {
          stage: 'scorer',
          messages: opts.benchmarkPrompt
            ? [
                { role: 'user', content: opts.benchmarkPrompt },
                { role: 'assistant', content: `\n\nQuestion:${question}\nAnalysis:${analysis}\n` },
              ]
            : [{ role: 'user', content: prompt }],
          temperature: 0,
          maxTokens: 256,
          questionId: opts.questionId,
          runId: opts.runId,
          task: { role: 'mmlongbench-extract', question, analysis },
        },
        opts.signal,
      );
      raw = res.text ?? '';
      // A reply cut by the token limit is never read (its label may be cut mid-answer); it and a reply
      // without the label are rejected (the cache never replays them) and asked again.
      const cut = cutByTokenLimit(res);
      const parsed = cut ? undefined : parseExtraction(raw);
      if (!parsed) rejectReply(res, cut ? 'length' : 'unparseable');
      if (parsed) return { ...parsed, raw, attempts: attempt, failed: false, model: res.model, backend: res.backend };
    } catch (e) {
      lastError = e;
    }
  }
  void lastError;
  return { pred: FAILED_TO_EXTRACT, raw, attempts: tries, failed: true };
}

/** MMLongBench-Doc's extraction prompt from the user's checkout (the folder, its eval/ folder, or the .md file). */
export function readBenchmarkExtractionPrompt(where: string): string {
  const candidates = [where, path.join(where, 'prompt_for_answer_extraction.md'), path.join(where, 'eval', 'prompt_for_answer_extraction.md')];
  const file = candidates.find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
  if (!file)
    throw new KfError(
      'no_extraction_prompt',
      `no prompt_for_answer_extraction.md at ${where} (or its eval/ folder)`,
      'pass your MMLongBench-Doc checkout (it holds eval/prompt_for_answer_extraction.md)',
      { concerns: where },
    );
  return fs.readFileSync(file, 'utf8');
}
