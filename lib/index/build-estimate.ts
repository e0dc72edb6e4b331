/**
 * What an index build with model stages will cost, printed before it starts
 * (`kf index build`, `kf prepare <experiment>`): calls, tokens and, with the
 * configured prices, dollars per stage. An estimate from the corpus size (text
 * characters, media files) and the batch sizes of the stages, never a
 * promise: documents already built are reused and cost nothing.
 * Above a threshold the build asks for `--yes`.
 */
import * as fs from 'node:fs';
import type { CorpusPassage } from '../bench/types';
import { listCorpusFiles } from '../corpus/ingest';
import type { PriceTable } from '../models/ledger';
import { KfError } from '../util/errors';
import { buildStageModels } from './model-build-guard';
import type { IndexModels } from './open';

/** Calls above this (or a cost above CONFIRM_USD) need --yes. */
export const CONFIRM_CALLS = 50;
export const CONFIRM_USD = 1;
const CHARS_PER_TOKEN = 4;
const EXTRACTION_BATCH_CHARS = 6000;
const PROMPT_OVERHEAD_TOKENS = 350;
const COMPLETION_TOKENS = { extraction: 500, relations: 300, caption: 200 } as const;

export interface StageEstimate {
  stage: 'extraction' | 'relations' | 'caption';
  model: string;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Dollars with the configured price of the model; undefined when it has none. */
  costUsd?: number;
}

export interface BuildEstimate {
  stages: StageEstimate[];
  calls: number;
  tokens: number;
  costUsd?: number;
  basis: string;
}

/** Text characters and media files of a corpus, read from sizes (PDFs: a tenth of their bytes, a rough guess). */
function corpusSize(input: { corpusDir?: string; passages?: readonly CorpusPassage[] }): { docs: number; chars: number[]; media: number } {
  if (input.passages) return { docs: input.passages.length, chars: input.passages.map((p) => (p.title?.length ?? 0) + p.text.length), media: 0 };
  const files = listCorpusFiles(input.corpusDir!).files;
  const chars: number[] = [];
  let media = 0;
  for (const { abs, rel } of files) {
    const bytes = fs.statSync(abs).size;
    if (/\.(png|jpe?g|gif|bmp|tiff?|webp)$/i.test(rel)) media++;
    else chars.push(/\.pdf$/i.test(rel) ? bytes / 10 : bytes);
    // Markdown and HTML images and tables: counted from the text (one description each).
    if (/\.(md|markdown|html?)$/i.test(rel)) media += (fs.readFileSync(abs, 'utf8').match(/!\[[^\]]*\]\(|<img\b|<table\b/gi) ?? []).length;
  }
  return { docs: files.length, chars, media };
}

export function estimateBuild(
  input: { corpusDir?: string; passages?: readonly CorpusPassage[]; models?: IndexModels },
  prices: PriceTable = {},
): BuildEstimate {
  const models = buildStageModels(input.models);
  const size = corpusSize(input);
  const totalChars = size.chars.reduce((a, b) => a + b, 0);
  const extractionCalls = size.chars.reduce((n, c) => n + Math.max(1, Math.ceil(c / EXTRACTION_BATCH_CHARS)), 0);
  const calls = { extraction: extractionCalls, relations: extractionCalls, caption: size.media };
  const prompt = {
    extraction: totalChars / CHARS_PER_TOKEN + extractionCalls * PROMPT_OVERHEAD_TOKENS,
    relations: extractionCalls * (PROMPT_OVERHEAD_TOKENS + 600),
    caption: size.media * (PROMPT_OVERHEAD_TOKENS + 800),
  };
  const stages: StageEstimate[] = [];
  for (const stage of ['extraction', 'relations', 'caption'] as const) {
    const model = models[stage];
    if (model === 'offline' || !calls[stage]) continue;
    const id = model.slice(model.indexOf(':') + 1);
    const promptTokens = Math.round(prompt[stage]);
    const completionTokens = calls[stage] * COMPLETION_TOKENS[stage];
    const p = prices[id];
    stages.push({
      stage,
      model,
      calls: calls[stage],
      promptTokens,
      completionTokens,
      ...(p ? { costUsd: (promptTokens * p.promptPer1M + completionTokens * p.completionPer1M) / 1e6 } : {}),
    });
  }
  const priced = stages.every((s) => s.costUsd !== undefined);
  return {
    stages,
    calls: stages.reduce((n, s) => n + s.calls, 0),
    tokens: stages.reduce((n, s) => n + s.promptTokens + s.completionTokens, 0),
    ...(priced && stages.length ? { costUsd: stages.reduce((n, s) => n + (s.costUsd ?? 0), 0) } : {}),
    basis: `${size.docs} documents, ~${Math.round(totalChars / 1000)}k characters, ${size.media} images/tables; documents already built are reused and cost nothing`,
  };
}

export function estimateLines(e: BuildEstimate): string[] {
  const usd = (x: number | undefined) => (x === undefined ? 'no price configured (models.prices)' : `$${x.toFixed(2)}`);
  return [
    `estimate: about ${e.calls} model calls, ${Math.round(e.tokens / 1000)}k tokens, ${usd(e.costUsd)} (${e.basis})`,
    ...e.stages.map(
      (s) => `  ${s.stage.padEnd(10)} ${s.model}: ~${s.calls} calls, ~${s.promptTokens} prompt + ~${s.completionTokens} completion tokens, ${usd(s.costUsd)}`,
    ),
  ];
}

/** Print the estimate; refuse without --yes when it passes the threshold. */
export function confirmEstimate(e: BuildEstimate, o: { yes: boolean; log: (line: string) => void; command: string }): void {
  if (!e.stages.length) return;
  for (const line of estimateLines(e)) o.log(line);
  const big = e.calls > CONFIRM_CALLS || (e.costUsd ?? 0) > CONFIRM_USD;
  if (big && !o.yes)
    throw new KfError(
      'confirm_cost',
      `this build calls a model about ${e.calls} times (more than ${CONFIRM_CALLS} calls or $${CONFIRM_USD} ask for a yes)`,
      `rerun with --yes to go ahead: ${o.command} --yes`,
    );
}
