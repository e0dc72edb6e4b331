/**
 * `kf score`: score any system's predictions with a benchmark's own scorer
 * (lib/eval/score-file.ts): prints a summary JSON; --out writes one scored line
 * per input line. Rule-based only: MMLongBench-Doc's judge step needs a model
 * (`kf run` with scoring.judge); here its strict accuracy and F1 are reported.
 */
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { str } from '../command';
import { BENCHMARK_NAMES, assertBenchmarkName } from '../../bench/names';
import type { Question } from '../../bench/types';
import { questionsFor, readPredictions, scorePredictions } from '../../eval/score-file';
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
  },
  examples: [
    'kf score --bench m3docvqa --predictions my-system.jsonl --out my-system.scored.jsonl',
    'kf score --bench multihop-rag --predictions answers.jsonl',
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
    const { summary, scored } = scorePredictions(bench, lines, questionsFor(bench, lines, byId, file));
    const out = str(args, 'out');
    if (out) writeFileAtomic(path.resolve(out), scored.map((s) => JSON.stringify(s)).join('\n') + '\n');
    console.log(JSON.stringify({ ...summary, predictions: file, ...(out ? { out } : {}), git: gitInfo().commit }));
  },
};
