/**
 * `kf eval retrieval`: model-free retrieval recall of one retrieval mode on a
 * benchmark (spec "Retrieval recall"): each question's text is searched ONCE;
 * R@k = |gold ∩ units of the first k hits| / |gold| and allFound@k (every gold
 * unit among them), document-level for corpora of documents, page-level for
 * MMLongBench-Doc (one document per question: searches are restricted to it);
 * questions without gold are excluded. Prints ONE JSON object; per-question
 * records go to --out. The index is built (or updated) when --index is absent
 * or stale, under a content-hash folder, so repeated evaluations are fast.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { bool, int, isPositiveInt, str } from '../command';
import type { BenchmarkData, Question } from '../../bench/types';
import { BENCHMARK_NAMES, assertBenchmarkName, type BenchmarkName } from '../../bench/names';
import { loadBenchmark, type BenchPathsByName } from '../../bench/registry';
import { loadTitledPassages } from '../../bench/text-corpus';
import { ensureIndex, EMBEDDER_CHOICES, type EmbedderChoice } from '../../index/build';
import { openIndex, type OpenIndex } from '../../index/open';
import type { RetrievalMode } from '../../index/types';
import { goldUnits, retrievalScores } from '../../eval/retrieval';
import { KfError } from '../../util/errors';
import { ensureWritableDir, JsonlWriter, writeJsonAtomic } from '../../util/fsx';
import { gitInfo } from '../../util/git';
import { modelsFor, progressPrinter } from './index-build';

export const MODES: readonly RetrievalMode[] = ['bm25', 'dense', 'hybrid', 'hybrid+graph'];
export const DEFAULT_KS = [1, 2, 3, 5, 8];

export function parseKs(s: string): number[] | string {
  const ks = s.split(',').map((x) => x.trim()).filter(Boolean);
  if (!ks.length || ks.some((k) => !/^[1-9]\d*$/.test(k))) return `--k must be a comma-separated list of positive integers, got "${s}"`;
  return [...new Set(ks.map(Number))].sort((a, b) => a - b);
}

/** Load a benchmark with the files given on the command line (each loader names its files differently). */
export function loadBench(name: BenchmarkName, corpus?: string, questions?: string): BenchmarkData {
  const paths: Record<string, string> = {};
  switch (name) {
    case 'mmlongbench-doc':
      if (questions) paths.samples = questions;
      if (corpus) paths.documents = corpus;
      break;
    case 'multihop-rag':
      if (questions) paths.queries = questions;
      if (corpus) paths.corpus = corpus;
      break;
    default:
      if (questions) paths.questions = questions;
      if (corpus) paths.corpus = corpus;
  }
  return loadBenchmark(name, paths as Partial<BenchPathsByName[typeof name]>);
}

export interface RetrievalEvalRecord {
  id: string;
  question: string;
  gold: string[];
  excluded: boolean;
  scores: Record<string, number> | null;
  hits: { fragmentId: string; docId: string; page?: number; via: string; score: number }[];
}

export interface RetrievalEvalSummary {
  n: number;
  excluded: number;
  recall: Record<string, number>;
  allFound: Record<string, number>;
  bench: string;
  mode: RetrievalMode;
  level: 'document' | 'page';
  ks: number[];
  topk: number;
}

/** Search every question once in `mode` and score R@k / allFound@k (records in question order). */
export async function evaluateRetrieval(
  idx: Pick<OpenIndex, 'retrieverFor'>,
  data: BenchmarkData,
  opts: { mode: RetrievalMode; ks: number[]; limit?: number; onRecord?: (r: RetrievalEvalRecord) => void },
): Promise<{ summary: RetrievalEvalSummary; records: RetrievalEvalRecord[] }> {
  const ks = opts.ks;
  const topk = Math.max(...ks);
  const level = data.recallLevel;
  const qs: Question[] = opts.limit ? data.questions.slice(0, opts.limit) : data.questions;
  const records: RetrievalEvalRecord[] = [];
  const sums: Record<string, number> = {};
  let n = 0;
  for (const q of qs) {
    const gold = goldUnits(q, level);
    let hits: RetrievalEvalRecord['hits'] = [];
    let scores: Record<string, number> | null = null;
    if (gold.length) {
      const res = await idx.retrieverFor(q).search(q.question, { topk, mode: opts.mode, withContext: false });
      hits = res.hits.map((h) => ({ fragmentId: h.fragmentId, docId: h.docId, ...(h.page !== undefined ? { page: h.page } : {}), via: h.via, score: Math.round(h.score * 1e6) / 1e6 }));
      scores = retrievalScores(q, { firstSearch: res.hits, searches: [] }, { ks, level });
    }
    if (scores) {
      n++;
      for (const k of ks) {
        sums[`R@${k}`] = (sums[`R@${k}`] ?? 0) + scores[`R@${k}`];
        sums[`allFound@${k}`] = (sums[`allFound@${k}`] ?? 0) + scores[`allFound@${k}`];
      }
    }
    const rec: RetrievalEvalRecord = { id: q.id, question: q.question, gold, excluded: !scores, scores, hits };
    records.push(rec);
    opts.onRecord?.(rec);
  }
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  const recall: Record<string, number> = {};
  const allFound: Record<string, number> = {};
  for (const k of ks) {
    recall[String(k)] = n ? round(sums[`R@${k}`] / n) : 0;
    allFound[String(k)] = n ? round(sums[`allFound@${k}`] / n) : 0;
  }
  return { summary: { n, excluded: qs.length - n, recall, allFound, bench: data.name, mode: opts.mode, level, ks, topk }, records };
}

export const command: CommandSpec = {
  name: 'eval retrieval',
  group: 'evaluate',
  summary: 'Model-free retrieval recall (R@k, all-found@k) of one retrieval mode on a benchmark; builds the index when needed',
  options: {
    bench: { type: 'string', required: true, choices: BENCHMARK_NAMES, description: 'benchmark (question format, gold, recall level)' },
    corpus: { type: 'string', description: 'passages JSON file or documents folder (default: the benchmark\'s own under ../shared/bench)' },
    questions: { type: 'string', description: 'questions file (default: the benchmark\'s dev file)' },
    index: { type: 'string', description: 'index folder to use; built or updated there when absent or stale (default: a content-hash folder under .kf-cache/indexes)' },
    mode: { type: 'string', default: 'hybrid+graph', choices: MODES, description: 'retrieval mode' },
    k: { type: 'string', default: DEFAULT_KS.join(','), validate: (v) => { const r = parseKs(v); return typeof r === 'string' ? r : undefined; }, description: 'cut-offs for R@k and allFound@k' },
    embedder: { type: 'string', default: 'fitted', choices: EMBEDDER_CHOICES, description: 'dense encoder when the index is built here' },
    offline: { type: 'boolean', description: 'build with no model (offline knowledge points and relations)' },
    ocr: { type: 'string', choices: ['auto', 'off'], default: 'auto', description: 'OCR when the index is built (PDF pages without text, images)' },
    models: { type: 'string', description: 'models config file for the build stages' },
    cache: { type: 'string', description: 'root of the content-hash index folders (default .kf-cache/indexes)' },
    limit: { type: 'string', validate: isPositiveInt, description: 'only the first N questions' },
    out: { type: 'string', description: 'write records.jsonl (one per question) and summary.json here' },
    json: { type: 'boolean', description: 'print one JSON object (the default output is JSON as well; kept for symmetry)' },
    quiet: { type: 'boolean', description: 'no build progress on stderr' },
  },
  examples: [
    'kf eval retrieval --bench 2wiki --mode hybrid --json',
    'kf eval retrieval --bench musique --corpus ../shared/bench/text-multihop/musique_corpus.json --questions ../shared/bench/text-multihop/musique_questions.dev.json --mode bm25 --k 2,5,8 --out results/recall-musique-bm25',
    'kf eval retrieval --bench mmlongbench-doc --mode hybrid --offline --json',
  ],
  async run(args) {
    const t0 = Date.now();
    const bench = assertBenchmarkName(str(args, 'bench')!, '--bench');
    const ks = parseKs(str(args, 'k')!) as number[];
    const mode = str(args, 'mode') as RetrievalMode;
    const corpusArg = str(args, 'corpus');
    const data = loadBench(bench, corpusArg, str(args, 'questions'));
    let corpus: { corpusDir?: string; passages?: BenchmarkData['passages'] };
    if (data.passages) corpus = { passages: data.passages };
    else if (data.corpusDir) corpus = { corpusDir: data.corpusDir };
    else if (corpusArg && /\.json$/i.test(corpusArg)) corpus = { passages: loadTitledPassages(corpusArg, 'passages file').passages };
    else throw new KfError('corpus_missing', `benchmark ${bench} has no corpus to index here`, 'pass --corpus <passages.json|documents dir>', { concerns: bench });
    const { models, router } = modelsFor(args);
    try {
      const ensured = await ensureIndex({
        ...corpus,
        outDir: str(args, 'index'),
        cacheRoot: str(args, 'cache'),
        embedder: str(args, 'embedder') as EmbedderChoice,
        models,
        options: { benchmark: bench, ingest: { ocr: (str(args, 'ocr') as 'auto' | 'off') ?? 'auto' }, onProgress: progressPrinter(!bool(args, 'quiet')) },
      });
      const idx = await openIndex(ensured.dir, { models });
      const outDir = str(args, 'out') ? ensureWritableDir(str(args, 'out')!, '--out folder') : undefined;
      // Each evaluation writes its records afresh (a rerun replaces, never appends to, the previous records).
      if (outDir) fs.writeFileSync(path.join(outDir, 'records.jsonl'), '');
      const w = outDir ? new JsonlWriter(path.join(outDir, 'records.jsonl')) : undefined;
      let summary;
      try {
        ({ summary } = await evaluateRetrieval(idx, data, { mode, ks, limit: int(args, 'limit'), onRecord: (r) => w?.write(r) }));
      } finally {
        w?.close();
      }
      const m = idx.manifest;
      const out = {
        ...summary,
        questions: int(args, 'limit') ? Math.min(int(args, 'limit')!, data.questions.length) : data.questions.length,
        index: { dir: ensured.dir, built: ensured.built, generation: m.generation, embedder: m.embedder.id, offline: m.offline, documents: m.counts.documents, fragments: m.counts.fragments, relations: m.counts.relations.fragmentEdges },
        git: gitInfo().commit,
        seconds: Math.round((Date.now() - t0) / 100) / 10,
      };
      if (outDir) writeJsonAtomic(path.join(outDir, 'summary.json'), out);
      console.log(JSON.stringify(out));
    } finally {
      await router?.close();
    }
  },
};
