/**
 * `kf score`: score any system's predictions with a benchmark's own scorer
 * (lib/eval/score-file.ts): prints a summary JSON; --out writes one scored line
 * per input line. Rule-based by default (MMLongBench-Doc: its strict accuracy and
 * F1); with --judge-url and --judge-model, MMLongBench-Doc's model-judge step runs
 * first (with --extraction-prompt: the benchmark's own prompt, read from the
 * user's MMLongBench-Doc checkout and sent its way; else the harness's prompt).
 */
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { str } from '../command';
import { BENCHMARK_NAMES, assertBenchmarkName } from '../../bench/names';
import type { Question } from '../../bench/types';
import { judgePredictions, questionsFor, readPredictions, scorePredictions } from '../../eval/score-file';
import { readBenchmarkExtractionPrompt } from '../../eval/metrics/mmlongbench-judge';
import { createModelRouter, type ModelRouter } from '../../models/router';
import { KfError } from '../../util/errors';
import { writeFileAtomic } from '../../util/fsx';
import { gitInfo } from '../../util/git';
import { loadQuestions } from './subset';

export const command: CommandSpec = {
  name: 'score',
  group: 'evaluate',
  summary: "Score a predictions file (JSON lines: response or final, plus a question id or an inline gold) with a benchmark's scorer",
  options: {
    bench: { type: 'string', required: true, choices: BENCHMARK_NAMES, description: 'benchmark whose scorer is used' },
    predictions: { type: 'string', required: true, description: 'JSON lines: {"id"|"gold", "response"|"final", ["type"], ["answer_format"]}' },
    questions: { type: 'string', description: "questions file for lines given by id (default: the benchmark's dev file under ../shared/bench)" },
    'ground-truth': { type: 'string', description: 'MultiHop-RAG ground-truth file for a queries-only questions file' },
    out: { type: 'string', description: 'write one scored JSON line per input line here' },
    'judge-url': { type: 'string', description: 'OpenAI-compatible endpoint of the judge (MMLongBench-Doc extraction); key from $OPENAI_API_KEY' },
    'judge-model': { type: 'string', description: 'the judge model name (with --judge-url)' },
    'extraction-prompt': {
      type: 'string',
      description: "your MMLongBench-Doc checkout (its eval/prompt_for_answer_extraction.md is the judge's prompt, sent the benchmark's way)",
    },
  },
  examples: [
    'kf score --bench m3docvqa --predictions my-system.jsonl --out my-system.scored.jsonl',
    'kf score --bench multihop-rag --predictions answers.jsonl',
    'kf score --bench mmlongbench-doc --predictions answers.jsonl --judge-url http://127.0.0.1:8000/v1 --judge-model qwen --extraction-prompt ../MMLongBench-Doc',
  ],
  async run(args) {
    const bench = assertBenchmarkName(str(args, 'bench')!, '--bench');
    const file = str(args, 'predictions')!;
    const lines = readPredictions(file);
    let byId: Map<string, Question> | undefined;
    if (lines.some((p) => p.gold === undefined)) {
      const { questions } = loadQuestions(bench, str(args, 'questions'), str(args, 'ground-truth'));
      byId = new Map(questions.map((q) => [q.id, q]));
    }
    const questions = questionsFor(bench, lines, byId, file);
    const url = str(args, 'judge-url');
    if (!url !== !str(args, 'judge-model'))
      throw new KfError('bad_flag', '--judge-url and --judge-model go together', 'pass both, or neither for the rule-based scorer');
    const where = str(args, 'extraction-prompt');
    let router: ModelRouter | undefined;
    const { summary, scored } = url
      ? await judgePredictions(bench, lines, questions, {
          judge: (router = createModelRouter(
            { defaults: { baseUrl: url, model: str(args, 'judge-model')! } },
            { env: process.env, cacheMode: 'off' },
          )).forStage('scorer'),
          ...(where ? { extractionPrompt: readBenchmarkExtractionPrompt(where) } : {}),
        }).finally(() => router?.close())
      : scorePredictions(bench, lines, questions);
    const out = str(args, 'out');
    if (out) writeFileAtomic(path.resolve(out), scored.map((s) => JSON.stringify(s)).join('\n') + '\n');
    console.log(JSON.stringify({ ...summary, predictions: file, ...(out ? { out } : {}), git: gitInfo().commit }));
  },
};
