/**
 * What the paper notebooks (notebooks/src/2x-4x, 50) call, in one import:
 *
 *   import * as kf from '../dist/lib/harness';          // figures, tables, runs, stats
 *   import * as nbk from '../dist/lib/report/notebook';  // sessions, configuration runs, peers, published numbers
 *
 * Each concept lives in its own file; this is only the list.
 */
export { NotebookSession, open, notebookResultsRoot, backendNotes, labelFigure } from './notebook-session';
export type { SessionRun, NotebookSessionOptions } from './notebook-session';
export { drawing, drawnRuns } from './drawn-runs';
export type { RunRef, DrawnRuns } from './drawn-runs';
export {
  runConfigurations,
  configurationExperiment,
  summaryRows,
  pairedRows,
  pairsAgainst,
  restrictRun,
  demoOverrides,
  notebookPreset,
  notebookRunsDir,
  envNumber,
} from './notebook-runs';
export type { Configuration, RunConfigurationsOptions, DemoPreset } from './notebook-runs';
export {
  ENGINE_MODES,
  loadPeerRetrievals,
  loadRetrieverModules,
  load2WikiShared,
  harnessRetrieverNames,
  harnessRetrievals,
  passagesIndex,
  recallTable,
  perQuestionFound,
  pairedFound,
  peersDir,
} from './notebook-retrieval';
export type { SystemRetrieval, RetrieverSpec } from './notebook-retrieval';
export { notebookSeries } from './notebook-series';
export type { SeriesEntry } from './notebook-series';
export { PAPER_NUMBERS, PAPER_INDEX_COST, SCIENCEQA_BUCKETS, paperNumbers, paperValue, paperLabel, paperSeries } from './paper-numbers';
export type { PaperNumber, PaperId, PaperQuery } from './paper-numbers';
export { dualAxisFigure, radarFigure, logScatterFigure, stackedBarFigure, pathGraphFigure } from './notebook-figures';
export {
  readTraceEvents,
  metricWithCI,
  usageRows,
  latencyRows,
  firstEventMs,
  flagSplitRows,
  failureClass,
  failureSample,
  classCounts,
  traceRows,
} from './notebook-analysis';
export { corpusScaleLatency, indexCostRow, knownIndexDirs, demoIndexDir } from './notebook-efficiency';
