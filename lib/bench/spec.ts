/**
 * What a benchmark declares, in one entry (the way lm-eval-harness declares a
 * task): where its files are, how they load, which answer convention the
 * pipelines follow, how one answer is scored, how recall is counted, which
 * breakdowns its paper reports. Entries live in lib/bench/benchmarks/<name>.ts
 * and are listed in lib/bench/registry.ts; nothing else tests a benchmark's name.
 */
import type { ChatModel, Embedder } from '../model-api/types';
import type { JudgeExtraction } from '../eval/metrics/mmlongbench-judge';
import type { MmqaOptions } from './mmqa';
import type { BenchmarkName } from './names';
import type { ScienceqaOptions } from './scienceqa';
import type { TextMultihopOptions } from './text-multihop';
import type { BenchmarkData, Question } from './types';
import type { WebqaOptions } from './webqa';

/** How answers are phrased and checked (guardrail, checker rules, refusal value). */
export type AnswerConvention = 'm3docvqa' | 'mmlongbench' | 'multihoprag' | 'generic';

/** Loader options (each loader reads the keys it knows). */
export type LoadOptions = TextMultihopOptions &
  MmqaOptions & { split?: string; /** own data: the benchmark name its questions carry */ name?: string } & Omit<WebqaOptions, 'split'> &
  Omit<ScienceqaOptions, 'split'>;

export interface ScoreOptions {
  /**
   * MMLongBench-Doc without a judge: a refusal is graded as "Not answerable"
   * (what the official extraction step writes for such answers). Default true.
   */
  refusalAsNotAnswerable?: boolean;
  /**
   * The whole reply the final answer came from. Benchmarks whose released scorer
   * reads the reply itself (M3DocVQA: no `FINAL ANSWER` line = empty prediction;
   * MultiHop-RAG: the last such line, else the last line) use it when given.
   */
  reply?: string;
}

export interface JudgeScoreOptions extends ScoreOptions {
  /** The scorer model (stage 'scorer'); without it MMLongBench-Doc falls back to the rule-based path. */
  judge?: ChatModel;
  /** Embedder for WebQA's BERTScore-style F1. */
  embedder?: Embedder;
  /** The full answer text the judge reads (default: the final answer). */
  fullText?: string;
  template?: string;
  /** MMLongBench-Doc: the benchmark's own extraction prompt (read from the user's checkout), sent its way. */
  extractionPrompt?: string;
  questionId?: string;
  runId?: string;
  signal?: AbortSignal;
}

export interface JudgedScores {
  scores: Record<string, number>;
  /** MMLongBench-Doc: what the judge extracted (absent without a judge). */
  extraction?: JudgeExtraction;
}

/** A benchmark's official run-level numbers computed from per-question scores (MMLongBench-Doc acc/F1). */
export interface OfficialAggregate {
  acc: number;
  f1: number;
  n: number;
  /** With a judge: the rule-based scorer on the FINAL ANSWER itself, no extraction step (rule-scored accuracy and F1; the paper's "strict accuracy" is another thing: judge score = 1). */
  ruleAcc?: number;
  ruleF1?: number;
}

export interface BenchmarkSpec<P extends object = Record<string, string | undefined>> {
  name: BenchmarkName;
  /** One line for listings: what it is and which paper uses it. */
  description: string;
  /** File keys the loader reads (`benchmark.paths.<key>` in experiment configs). */
  pathKeys: readonly (keyof P & string)[];
  /** The key of the questions file (`--questions`, kf subset) and of the corpus (`--corpus`). */
  questionsKey: keyof P & string;
  corpusKey?: keyof P & string;
  /** The questions file is already a Question list (no official format to convert). */
  nativeQuestions?: boolean;
  /** Where the files are by default; `holdout` swaps in the held-back split's files. */
  defaultPaths(split?: 'dev' | 'holdout'): P;
  load(paths: P, opts: LoadOptions): BenchmarkData;
  /** The answer convention pipelines follow for it. */
  convention: AnswerConvention;
  /** Recall granularity: gold documents, or gold pages (single long documents). */
  recallLevel: 'document' | 'page';
  /** Index-time relations: within each document (one document per question) or across the corpus. */
  relationsScope: 'document' | 'corpus';
  /** The metric keys its scorer writes, headline first (besides `refused`, which every scorer adds). */
  metrics: readonly string[];
  /** Rule-based, synchronous scores of one final answer (`refused`: 1 when the value is a refusal). */
  score(q: Question, value: string, refused: 0 | 1, opts: ScoreOptions): Record<string, number>;
  /** Model-judged scores where the benchmark's protocol has them (undefined: the rule-based scores stand). */
  judgeScore?(q: Question, finalAnswer: string, base: Record<string, number>, opts: JudgeScoreOptions): Promise<JudgedScores | undefined>;
  /** The benchmark's own run-level numbers from per-question scores. */
  aggregate?(scores: readonly Record<string, number>[]): OfficialAggregate;
  /** The KnowForge paper's fixed smoke/mid id lists exist for it (lib/bench/subsets.ts). */
  paperSubsets?: boolean;
  /** Breakdown fields its paper reports (bucket fields of lib/bench/fields.ts). */
  buckets: readonly string[];
  /** Generated benchmarks with size presets (the demo world): overrides that point an experiment at one preset's files and index. */
  presetOverrides?(preset: string, worldDir: string, opts?: { indexDir?: string }): { overrides: string[]; indexDir: string };
}
