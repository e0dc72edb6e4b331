/**
 * `kf index build`: build (or incrementally update) a knowledge-point index from
 * a folder of documents or a passages JSON file, and print the build report
 * summary. Thin: argument checks here, the pipeline in lib/index/build.ts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CommandSpec, ParsedArgs } from '../command';
import { bool, int, isPositiveInt, str } from '../command';
import { buildIndex, EMBEDDER_CHOICES, type BuildOptions, type BuildProgress, type EmbedderChoice } from '../../index/build';
import { reportSummaryText } from '../../index/report';
import { confirmEstimate, estimateBuild } from '../../index/build-estimate';
import type { IndexModels } from '../../index/open';
import type { CorpusPassage } from '../../bench/types';
import { BENCHMARK_NAMES, assertBenchmarkName } from '../../bench/names';
import { defaultPaths } from '../../bench/registry';
import { loadTitledPassages } from '../../bench/text-corpus';
import { createModelRouter, type ModelRouter } from '../../models/router';
import { registerOfflineHandlers } from '../../pipeline/offline-backend';
import { readModelsConfigFile } from '../../models/config-file';
import { KfError } from '../../util/errors';
import { FORMAT_BY_EXTENSION, listCorpusFiles } from '../../corpus/ingest';

/** A corpus argument: a folder of documents, or a passages JSON file ([{title, text}] or {title: [sentences]}). */
export function readCorpusArg(p: string, what = '--corpus'): { corpusDir?: string; passages?: CorpusPassage[] } {
  const abs = path.resolve(p);
  if (!fs.existsSync(abs))
    throw new KfError('corpus_missing', `${what} ${abs} does not exist`, 'pass a folder of documents or a passages JSON file', { concerns: abs });
  if (fs.statSync(abs).isDirectory()) {
    // An index of nothing finds nothing, and every recall would read 0: say so now.
    if (!listCorpusFiles(abs).files.length) {
      throw new KfError(
        'corpus_empty',
        `${what} ${abs} holds no document (${Object.keys(FORMAT_BY_EXTENSION).join(' ')}; subfolders included, hidden files skipped)`,
        'check the path, or pass a passages JSON file',
        { concerns: abs },
      );
    }
    return { corpusDir: abs };
  }
  if (!/\.json$/i.test(abs))
    throw new KfError(
      'corpus_format',
      `${what} ${abs} is a file but not a .json passages file`,
      'pass a folder of documents, or a JSON list of {title, text}',
      { concerns: abs },
    );
  return { passages: loadTitledPassages(abs, 'passages file').passages };
}

/** The default corpus of a benchmark (its passages file or documents folder), when it has one here. */
export function benchCorpusPath(bench: string): string | undefined {
  const p = defaultPaths(assertBenchmarkName(bench, '--bench')) as unknown as Record<string, string | undefined>;
  return p.corpus ?? p.documents ?? p.pdfs;
}

/** Models for the build: none with --offline; else the router from a config file and the environment. */
export function modelsFor(args: ParsedArgs): { models?: IndexModels & { close?(): Promise<void> }; router?: ModelRouter } {
  if (bool(args, 'offline')) return {};
  const cfgFile = str(args, 'models');
  registerOfflineHandlers();
  const router = createModelRouter(cfgFile ? readModelsConfigFile(cfgFile) : {}, {});
  return { models: router, router };
}

/**
 * Build progress on stderr: documents (every percent, and every non-ok one),
 * embedding and engine indexing in tenths, other phases by name, and the time
 * each phase took when the next one starts.
 */
export function progressPrinter(enabled: boolean): (e: BuildProgress) => void {
  let lastPct = -1;
  let phase = '';
  let since = Date.now();
  let lastTenth = -1;
  const out = (line: string) => process.stderr.write(line + '\n');
  return (e) => {
    if (!enabled) return;
    if (e.phase !== phase) {
      if (phase && phase !== 'done') out(`${phase}: ${((Date.now() - since) / 1000).toFixed(1)} s`);
      phase = e.phase;
      since = Date.now();
      lastTenth = -1;
    }
    if (e.phase === 'document' && e.total) {
      const pct = Math.floor((100 * (e.done ?? 0)) / e.total);
      if (e.total <= 200 || pct !== lastPct || e.status !== 'ok') {
        lastPct = pct;
        out(`[${e.done}/${e.total}] ${e.docId} ${e.status}${e.work === 'reused' ? ' (reused)' : ''}`);
      }
    } else if ((e.phase === 'embed' || e.phase === 'engine') && e.total) {
      const tenth = Math.floor((10 * (e.done ?? 0)) / e.total);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        out(`${e.phase} ${e.done}/${e.total}`);
      }
    } else if (e.phase !== 'document' && e.phase !== 'embed') out(`${e.phase}${e.message ? `: ${e.message}` : ''}`);
  };
}

export const command: CommandSpec = {
  name: 'index build',
  group: 'index',
  summary: 'Build or update (incrementally, resumably) the knowledge-point index of a corpus; writes build-report.json and the cost ledger',
  options: {
    corpus: { type: 'string', description: 'folder of documents (PDF/HTML/Markdown/text) or a passages JSON file; default: the --bench corpus' },
    bench: {
      type: 'string',
      description: 'benchmark the corpus belongs to (its default corpus; manifest; ledger compared with the paper)',
      choices: BENCHMARK_NAMES,
    },
    out: { type: 'string', required: true, description: 'index folder (created; an existing index there is updated incrementally)' },
    embedder: {
      type: 'string',
      default: 'fitted',
      choices: EMBEDDER_CHOICES,
      description: 'dense encoder: corpus-fitted, GloVe-SIF, hashing, or the configured OpenAI-compatible endpoint',
    },
    offline: { type: 'boolean', description: 'use no model at all (offline knowledge points, untyped relations, offline media descriptions)' },
    models: { type: 'string', description: 'models config file (JSON/TOML) for the extraction / relations / caption stages' },
    ocr: { type: 'string', choices: ['auto', 'off'], default: 'auto', description: 'OCR PDF pages without a text layer and images' },
    seed: { type: 'string', default: 'kf-index', description: 'seed of the build (HNSW levels)' },
    concurrency: { type: 'string', validate: isPositiveInt, description: 'documents processed at once (default 2)' },
    'no-relations': { type: 'boolean', description: 'skip relations (no graph expansion)' },
    yes: { type: 'boolean', description: 'go ahead with a build that calls a model above the estimate threshold (the estimate is printed first)' },
    json: { type: 'boolean', description: 'print the build report summary as one JSON object' },
    quiet: { type: 'boolean', description: 'no progress lines on stderr' },
  },
  examples: [
    'kf index build --corpus data/demo/tiny/corpus --out .kf-cache/index/demo --offline',
    'kf index build --bench 2wiki --out .kf-cache/index/2wiki --embedder fitted --offline --json',
    'kf index build --bench mmlongbench-doc --out .kf-cache/index/mmlongbench-doc --offline',
  ],
  async run(args) {
    const bench = str(args, 'bench');
    const corpusArg = str(args, 'corpus') ?? (bench ? benchCorpusPath(bench) : undefined);
    if (!corpusArg)
      throw new KfError(
        'corpus_missing',
        bench ? `benchmark ${bench} has no corpus here` : 'no --corpus given',
        'pass --corpus <dir|passages.json> (or --bench with a corpus under ../shared/bench)',
      );
    const corpus = readCorpusArg(corpusArg);
    const { models, router } = modelsFor(args);
    const options: BuildOptions = {
      seed: str(args, 'seed'),
      ...(bench ? { benchmark: bench } : {}),
      ...(corpus.passages ? { corpusPath: path.resolve(corpusArg) } : {}),
      ingest: { ocr: (str(args, 'ocr') as 'auto' | 'off') ?? 'auto' },
      ...(int(args, 'concurrency') ? { concurrency: int(args, 'concurrency') } : {}),
      ...(bool(args, 'no-relations') ? { relations: false as const } : {}),
      onProgress: progressPrinter(!bool(args, 'quiet')),
    };
    try {
      // A build with model stages says what it will cost before it starts, and asks for --yes above the threshold.
      confirmEstimate(estimateBuild({ ...corpus, models }, router?.ledger.prices), {
        yes: bool(args, 'yes'),
        log: (l) => console.error(l),
        command: `kf ${process.argv.slice(2).join(' ')}`,
      });
      const r = await buildIndex({ ...corpus, outDir: str(args, 'out')!, embedder: str(args, 'embedder') as EmbedderChoice, models, options });
      if (bool(args, 'json')) {
        console.log(
          JSON.stringify({
            outDir: r.outDir,
            generation: r.generation,
            resumed: r.report.resumed,
            summary: r.report.summary,
            ledger: r.ledger,
            embedder: r.manifest.embedder,
            offline: r.manifest.offline,
            backends: r.manifest.backends,
          }),
        );
      } else {
        console.log(reportSummaryText(r.report));
        console.log(`report: ${path.join(r.outDir, 'build-report.json')}; ledger: ${path.join(r.outDir, 'cost-ledger.md')}`);
      }
      return r.report.summary.ok === 0 && r.report.summary.documents > 0 ? 1 : 0;
    } finally {
      await router?.close();
    }
  },
};
