/**
 * The harness's front door for notebooks and scripts: one import gives the
 * operations a researcher drives interactively (package main; `require('kf-harness')`,
 * or typed: `import * as kf from '../dist/lib/harness'` from a notebook).
 * Everything here is a re-export: the code lives in the one-concept files below.
 */

// Data: the demo world and benchmark loaders
export { ensureDemoWorld, generateWorld, demoFragments, PRESET_NAMES } from './demo';
export { loadBenchmark, defaultPaths } from './bench/registry';
export { BENCHMARKS, benchmarkSpec } from './bench/registry';
export { stratifiedSample, paperSubset } from './bench/subsets';
export type { Question, BenchmarkData } from './bench/types';

// Corpus and index
export { ingestFile, ingestDirectory } from './corpus/ingest';
export { buildIndex, ensureIndex } from './index/build';
export { openIndex } from './index/open';
export { SearchEngine } from './index/engine';
export type { Fragment, DocumentRecord } from './corpus/types';
export type { SearchHit, SearchResult, RetrievalMode } from './index/types';

// Models. Notebooks stand at the top, like the CLI: they may build a router. The lint rule that keeps
// createModelRouter to lib/run and lib/cli is about lib code building one; this file builds none and
// only hands the constructor on (the one exemption, on its line).
// eslint-disable-next-line no-restricted-imports -- notebooks build their routers; nothing here calls it
export { createModelRouter } from './models/router';
// Call once before routing a stage to the offline backend yourself (runExperiment does it).
export { registerOfflineHandlers } from './pipeline/offline-backend';
export type { ModelsConfig } from './models/config';

// The methods: each reached through its manifest. `kf.method('knowforge').capUsageRows(runs)`: a
// method's notebook kit (its report helpers, configuration rows), typed by name for the built-in ones
// (exporting a kit's type from the manifest also brings the manifest's MethodKits entry into a notebook's types).
export { method } from './pipeline/method-kit';
export type { MethodKits } from './pipeline/method-kit';
export type { KnowForgeKit } from './knowforge/plugin';

// The answer layer, shared by the methods
export { buildPool, PAPER_CAPS } from './answer/pool';
export { synthesize, synthMessages } from './answer/synthesizer';
export { checkFormat } from './answer/checker';
export { registerFamily, registerConfiguration, listConfigurations } from './pipeline/registry';

// Runs, suites, results
export { loadExperiment, experimentFromObject } from './run/config';
export { runExperiment } from './run/runner';
export { runSuite, loadSuite } from './report/suite';
export { loadRun, listRuns, summarizeRun, summarizeByBucket, metricValues } from './run/results';
export { compareRuns } from './run/compare';
export { writeRunReport } from './report/run-report';
export { registerPipeline, listPipelines } from './run/registry';

// Evaluation and statistics
export { scoreAnswer } from './eval/score';
export { comparePaired, signTestP, pairedBootstrapCI, pairedStandardError } from './eval/stats';
export { retrievalScores } from './eval/retrieval';

// Tables, figures, notebooks
export { writeTable, toMarkdown } from './report/table';
export { barFigure, lineFigure, scatterFigure, writeFigure, closeSharedExporter } from './report/figure';
export { resultManifest, writeManifest, OFFLINE_NOTE } from './run/result-manifest';
export * as kit from './report/notebook-kit';
export * as frames from './report/frames';

// Utilities
export { makeRng } from './util/rng';
export { repoRoot, benchDir } from './util/paths';
export * as notebook from './report/notebook';
