/**
 * `kf subset`: write a question-id subset. Either the KnowForge paper's fixed
 * lists (--paper smoke|mid) or a seeded stratified sample (--n, --by, --seed).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { int, isPositiveInt, str } from '../command';
import { BENCHMARK_NAMES, type BenchmarkName } from '../../bench/names';
import { benchmarkSpec, defaultPaths, loadBenchmark } from '../../bench/registry';
import type { Question } from '../../bench/types';
import { paperSubset, selectSubset, stratifiedSample } from '../../bench/subsets';
import { looksLikeQuestionList, readQuestionsFile } from '../../bench/validate-question';
import { readJsonFile } from '../../bench/read';
import { writeJsonAtomic } from '../../util/fsx';
import { KfError } from '../../util/errors';

/** The questions of a benchmark file (its official format or a Question list), corpora not read. */
export function loadQuestions(bench: BenchmarkName, file: string | undefined, groundTruth: string | undefined): { questions: Question[]; source: string } {
  const spec = benchmarkSpec(bench)!;
  const defaults = defaultPaths(bench) as unknown as Record<string, string | undefined>;
  const source = file ?? defaults[spec.questionsKey];
  if (!source) throw new KfError('subset_no_questions', `no default questions file for ${bench}`, 'pass --questions <file>');
  if (!fs.existsSync(source)) {
    throw new KfError(
      'subset_no_questions',
      `questions file ${source} does not exist`,
      file ? 'check --questions' : 'pass --questions <file> (benchmarks live in ../shared/bench)',
    );
  }
  // A file already in our Question shape (a previous tool's output, the demo world) is read as such.
  if (/\.json$/i.test(source) && !spec.nativeQuestions) {
    const raw = readJsonFile(source, 'questions file');
    if (looksLikeQuestionList(raw)) return { questions: readQuestionsFile(source), source };
  }
  const paths: Record<string, string | undefined> = { [spec.questionsKey]: source };
  if (groundTruth) paths.groundTruth = groundTruth;
  // Subsets need questions only: skip corpora that loaders would otherwise read and check.
  if (spec.corpusKey) paths[spec.corpusKey] = undefined;
  return { questions: loadBenchmark(bench, paths as never).questions, source };
}

export const command: CommandSpec = {
  name: 'subset',
  group: 'data',
  summary: "Write a question-id subset: the paper's smoke/mid lists, or a seeded stratified sample",
  options: {
    bench: { type: 'string', required: true, description: 'benchmark name', choices: BENCHMARK_NAMES },
    questions: {
      type: 'string',
      description: "questions file in the benchmark's official format or a Question list (default: the benchmark's file in ../shared/bench)",
    },
    'ground-truth': { type: 'string', description: 'MultiHop-RAG ground-truth file for a queries-only questions file' },
    n: { type: 'string', description: 'subset size (stratified sample)', validate: isPositiveInt },
    by: {
      type: 'string',
      description: 'stratify by this field: modality, hops, type, page, format, source, subject, context, grade, answerable, or a dotted path (meta.docType)',
    },
    seed: { type: 'string', description: 'sampling seed', default: '0' },
    paper: { type: 'string', description: "the KnowForge paper's fixed list instead of sampling", choices: ['smoke', 'mid'] },
    out: { type: 'string', required: true, description: 'output JSON file ({ids, ...}; readable by readIdList)' },
  },
  examples: [
    'kf subset --bench mmlongbench-doc --n 100 --by format --seed 1 --out results/subsets/mmlb-100.json',
    'kf subset --bench m3docvqa --paper smoke --out results/subsets/m3d-smoke.json',
  ],
  async run(args) {
    const bench = str(args, 'bench') as BenchmarkName;
    const paper = str(args, 'paper');
    const n = int(args, 'n');
    const by = str(args, 'by');
    const seed = str(args, 'seed') ?? '0';
    const out = path.resolve(str(args, 'out')!);
    if (paper && (n !== undefined || by))
      throw new KfError('subset_bad_args', '--paper takes the fixed list; it cannot be combined with --n/--by', 'drop --paper to sample, or drop --n/--by');
    if (!paper && n === undefined) throw new KfError('subset_bad_args', 'say how many questions: --n N (or --paper smoke|mid)', 'add --n N');
    const { questions, source } = loadQuestions(bench, str(args, 'questions'), str(args, 'ground-truth'));
    let record: Record<string, unknown>;
    if (paper) {
      const ids = paperSubset(bench, paper);
      const { questions: found, missing } = selectSubset(questions, ids);
      record = { bench, source, paper, ids, found: found.length, missing };
      console.log(
        `${bench} paper ${paper}: ${ids.length} ids, ${found.length} in ${source}${missing.length ? ` (${missing.length} not in this file: held back)` : ''}`,
      );
    } else {
      if (!questions.length) throw new KfError('subset_empty', `no questions in ${source}`, 'check --questions');
      const s = stratifiedSample(questions, { n: n!, by, seed });
      record = { bench, source, n: s.ids.length, by: by ?? null, seed, ids: s.ids, strata: s.strata };
      const strata = Object.entries(s.strata)
        .map(([k, v]) => `${k}:${v.taken}/${v.size}`)
        .join(' ');
      console.log(`${bench}: sampled ${s.ids.length} of ${questions.length}${by ? ` stratified by ${by} (${strata})` : ''}, seed ${seed}`);
    }
    writeJsonAtomic(out, record);
    console.log(`wrote ${out}`);
  },
};
