/**
 * `kf eval retrieval`: model-free retrieval recall of one retrieval mode (or any
 * registered retriever, `--retriever`; plug-ins named in KF_PLUGINS are
 * loaded) on a
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
import { bool, int, isPositiveInt, str, type ParsedArgs } from '../command';
import type { BenchmarkData, Question } from '../../bench/types';
import { BENCHMARK_NAMES, assertBenchmarkName } from '../../bench/names';
import { loadTitledPassages } from '../../bench/text-corpus';
import { ensureIndex, EMBEDDER_CHOICES, type EmbedderChoice } from '../../index/build';
import { openIndex, type OpenIndex } from '../../index/open';
import { isSearchMode, searchModeNames } from '../../pipeline/retrievers';
import type { RankedEvidence } from '../../pipeline/ranked-evidence';
import { engineKnowledgeBase } from '../../pipeline/index-view';
import { didYouMean } from '../../run/schema';
import { KfError } from '../../util/errors';
import { ensureWritableDir, fsError, JsonlWriter, writeJsonAtomic } from '../../util/fsx';
import { gitInfo } from '../../util/git';
import { modelsFor, progressPrinter } from './index-build';
import { configRetrieval, type ScopedKnowledgeBase } from '../../run/pipeline-retrieval';
import { isRemoteKbRef, openRemoteKb, remoteKbInfo, remoteKbUuid } from '../../remote-kb/open';

export { loadBench };
export { MODES, DEFAULT_KS, evaluateRetrieval } from '../../run/retrieval-eval';
export type { RetrievalEvalRecord, RetrievalEvalSummary } from '../../run/retrieval-eval';
import { loadBench } from '../../bench/registry';
import { MODES, DEFAULT_KS, evaluateRetrieval } from '../../run/retrieval-eval';

export function parseKs(s: string): number[] | string {
  const ks = s
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!ks.length || ks.some((k) => !/^[1-9]\d*$/.test(k))) return `--k must be a comma-separated list of positive integers, got "${s}"`;
  return [...new Set(ks.map(Number))].sort((a, b) => a - b);
}

/** --retriever-settings: a JSON object, or nothing. */
function retrieverSettings(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    v = undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new KfError('bad_flag', `--retriever-settings must be a JSON object, got ${text}`, `e.g. --retriever-settings '{"tau": 0.5}'`);
  return v as Record<string, unknown>;
}

/** --retriever (validated against the registered ones) or --mode; `--retriever list` prints the names and returns undefined. */
function chosenRetriever(retriever: string | undefined, mode: string): string | undefined {
  if (retriever === undefined) return mode;
  if (retriever === 'list') {
    console.log(searchModeNames().join('\n'));
    return undefined;
  }
  if (!isSearchMode(retriever)) {
    const names = searchModeNames();
    const near = didYouMean(retriever, names);
    throw new KfError(
      'bad_flag',
      `--retriever ${retriever}: no such retriever`,
      near ? `did you mean "${near}"?` : `registered: ${names.join(', ')} (plug-ins in KF_PLUGINS are loaded)`,
      { concerns: retriever },
    );
  }
  return retriever;
}

/** The benchmark's corpus for an index build here. */
function corpusOf(bench: string, data: BenchmarkData, corpusArg: string | undefined): { corpusDir?: string; passages?: BenchmarkData['passages'] } {
  if (data.passages) return { passages: data.passages };
  if (data.corpusDir) return { corpusDir: data.corpusDir };
  if (corpusArg && /\.json$/i.test(corpusArg)) return { passages: loadTitledPassages(corpusArg, 'passages file').passages };
  throw new KfError('corpus_missing', `benchmark ${bench} has no corpus to index here`, 'pass --corpus <passages.json|documents dir> (or --kb remote:<uuid>)', {
    concerns: bench,
  });
}

/** What is searched: the knowledge-base view, a check that a question's document is there, and what the summary says about it. */
interface SearchSource {
  kb: ScopedKnowledgeBase;
  /** What a configuration's retrieval side searches (the local index with the pipeline's own view, or kb). */
  side: OpenIndex | ScopedKnowledgeBase;
  check(q: Question): void;
  describe(): Record<string, unknown>;
  close(): Promise<void>;
}

/** The local index (built or updated first when absent or stale). */
async function localSource(
  args: ParsedArgs,
  bench: string,
  corpus: ReturnType<typeof corpusOf>,
  models: ReturnType<typeof modelsFor>['models'],
  ks: number[],
): Promise<SearchSource> {
  const ensured = await ensureIndex({
    ...corpus,
    outDir: str(args, 'index'),
    cacheRoot: str(args, 'cache'),
    embedder: str(args, 'embedder') as EmbedderChoice,
    models,
    options: { benchmark: bench, ingest: { ocr: (str(args, 'ocr') as 'auto' | 'off') ?? 'auto' }, onProgress: progressPrinter(!bool(args, 'quiet')) },
  });
  const idx = await openIndex(ensured.dir, { models });
  // Every retriever is searched through the knowledge-base view (contexts off: recall needs ids only).
  const settings = retrieverSettings(str(args, 'retriever-settings'));
  const m = idx.manifest;
  return {
    kb: engineKnowledgeBase(idx, { forced: { withContext: false }, maxTopk: Math.max(...ks), settings }),
    side: idx,
    check: (q) => void idx.retrieverFor(q), // refuses a question whose document is not in the index
    describe: () => ({
      dir: ensured.dir,
      built: ensured.built,
      generation: m.generation,
      embedder: m.embedder.id,
      offline: m.offline,
      documents: m.counts.documents,
      fragments: m.counts.fragments,
      relations: m.counts.relations.fragmentEdges,
    }),
    close: async () => {},
  };
}

/** A hosted knowledge base (--kb remote:<uuid>): nothing is built, every search is one request. */
function remoteSource(ref: string, ks: number[]): SearchSource {
  const kb = openRemoteKb(ref, { maxTopk: Math.max(...ks) });
  const info = remoteKbInfo(kb); // the first request: a bad key or server fails here, before any question
  return { kb, side: kb, check: () => {}, describe: () => info, close: () => kb.client.close() };
}

type OnRecord = (r: object) => void;

/** --config runs a configuration's retrieval side; otherwise each question is searched once in the chosen mode. */
async function evaluate(
  args: ParsedArgs,
  source: SearchSource,
  data: BenchmarkData,
  o: { ks: number[]; mode: string; onRecord: OnRecord },
): Promise<{ summary: object; system?: RankedEvidence['system'] }> {
  if (str(args, 'config')) {
    const { summary } = await configRetrieval(str(args, 'config')!, source.side, data, {
      ks: o.ks,
      limit: int(args, 'limit'),
      onRecord: o.onRecord,
      settings: str(args, 'prompts') ? { prompts: str(args, 'prompts') } : undefined,
    });
    return { summary };
  }
  let system: RankedEvidence['system'];
  const search = async (q: Question, k: number) => {
    source.check(q);
    const r = await source.kb.restrictedTo(q.doc ? [q.doc] : undefined).search(q.question, { k, mode: o.mode });
    system ??= r.system; // which variant ranked (DualG: scorer, checkpoint), printed with the figures
    return r;
  };
  const { summary } = await evaluateRetrieval(search, data, { mode: o.mode, ks: o.ks, limit: int(args, 'limit'), onRecord: o.onRecord });
  return { summary, system };
}

/**
 * Each evaluation writes its records afresh (a rerun replaces, never appends to, the previous records),
 * into a temporary file renamed at the end: a failed rerun leaves the previous ones.
 */
async function evaluateInto<T>(outDir: string | undefined, run: (onRecord: OnRecord) => Promise<T>): Promise<T> {
  const recFile = outDir ? path.join(outDir, 'records.jsonl') : undefined;
  const tmpRec = recFile ? path.join(outDir!, `.records.jsonl.${process.pid}.tmp`) : undefined;
  if (tmpRec) fs.rmSync(tmpRec, { force: true });
  const w = tmpRec ? new JsonlWriter(tmpRec) : undefined;
  let result: T;
  try {
    result = await run((r) => w?.write(r));
  } catch (e) {
    w?.close();
    if (tmpRec) fs.rmSync(tmpRec, { force: true });
    throw e;
  }
  w?.close();
  if (tmpRec && recFile) {
    try {
      fs.renameSync(tmpRec, recFile);
    } catch (e) {
      throw fsError(e, recFile, 'write');
    }
  }
  return result;
}

export const command: CommandSpec = {
  name: 'eval retrieval',
  group: 'evaluate',
  summary: 'Model-free retrieval recall (R@k, all-found@k) of one retrieval mode on a benchmark; builds the index when needed',
  options: {
    bench: { type: 'string', required: true, choices: BENCHMARK_NAMES, description: 'benchmark (question format, gold, recall level)' },
    corpus: { type: 'string', description: "passages JSON file or documents folder (default: the benchmark's own under ../shared/bench)" },
    questions: { type: 'string', description: "questions file (default: the benchmark's dev file)" },
    kb: {
      type: 'string',
      description:
        'a hosted knowledge base instead of a local index: remote:<package uuid> (server root from KF_KB_BASE_URL, account key from KF_KB_API_KEY); nothing is built',
    },
    index: {
      type: 'string',
      description: 'index folder to use; built or updated there when absent or stale (default: a content-hash folder under .kf-cache/indexes)',
    },
    mode: { type: 'string', default: 'hybrid+graph', choices: MODES, description: 'retrieval mode' },
    retriever: { type: 'string', description: 'a registered retriever instead of --mode (kf eval retrieval --retriever list names them)' },
    'retriever-settings': { type: 'string', description: 'settings of the registered retriever as a JSON object (as index.settings in an experiment)' },
    config: {
      type: 'string',
      description:
        'an agent configuration (M5, P0, L4R4) or an experiment naming one: run its retrieval side (Locator, judge, bridge searches; offline policies unless an endpoint is configured); adds recallAll and docFound',
    },
    k: {
      type: 'string',
      default: DEFAULT_KS.join(','),
      validate: (v) => {
        const r = parseKs(v);
        return typeof r === 'string' ? r : undefined;
      },
      description: 'cut-offs for R@k and allFound@k',
    },
    embedder: { type: 'string', default: 'fitted', choices: EMBEDDER_CHOICES, description: 'dense encoder when the index is built here' },
    offline: { type: 'boolean', description: 'build with no model (offline knowledge points and relations)' },
    ocr: { type: 'string', choices: ['auto', 'off'], default: 'auto', description: 'OCR when the index is built (PDF pages without text, images)' },
    models: { type: 'string', description: 'models config file for the build stages' },
    prompts: { type: 'string', description: 'with --config: the prompt pack its Locator and judge send (own | knowforge-bench; kf prompts list)' },
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
    'KF_KB_BASE_URL=https://kb.example.org kf eval retrieval --bench m3docvqa --config M5 --kb remote:<uuid>',
  ],
  async run(args) {
    const t0 = Date.now();
    const bench = assertBenchmarkName(str(args, 'bench')!, '--bench');
    const ks = parseKs(str(args, 'k')!) as number[];
    const mode = chosenRetriever(str(args, 'retriever'), str(args, 'mode')!);
    if (mode === undefined) return 0;
    const kbRef = str(args, 'kb');
    if (kbRef !== undefined && !isRemoteKbRef(kbRef)) remoteKbUuid(kbRef); // refuses with the expected form
    const data = loadBench(bench, str(args, 'corpus'), str(args, 'questions'));
    const corpus = kbRef ? undefined : corpusOf(bench, data, str(args, 'corpus'));
    // Checked before the (possibly long) index build, so a bad --out costs nothing.
    const outDir = str(args, 'out') ? ensureWritableDir(str(args, 'out')!, '--out folder') : undefined;
    const { models, router } = modelsFor(args);
    try {
      const source = kbRef ? remoteSource(kbRef, ks) : await localSource(args, bench, corpus!, models, ks);
      try {
        const { summary, system } = await evaluateInto(outDir, (onRecord) => evaluate(args, source, data, { ks, mode, onRecord }));
        const out = {
          ...summary,
          ...(system ? { system } : {}),
          questions: int(args, 'limit') ? Math.min(int(args, 'limit')!, data.questions.length) : data.questions.length,
          index: source.describe(),
          git: gitInfo().commit,
          seconds: Math.round((Date.now() - t0) / 100) / 10,
        };
        if (outDir) writeJsonAtomic(path.join(outDir, 'summary.json'), out);
        console.log(JSON.stringify(out));
      } finally {
        await source.close();
      }
    } finally {
      await router?.close();
    }
  },
};
