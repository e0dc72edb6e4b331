/** The runner's seams: what runExperiment takes (RunOptions) and gives back (RunOutcome), and the router it needs. */
import type { BenchmarkData } from '../bench/types';
import type { Embedder } from '../index/types';
import type { CacheMode } from '../models/config';
import type { EndpointTotals, LedgerTotals } from '../models/ledger';
import type { StageRoute } from '../models/router';
import type { AgentProtocol, ChatModel, Stage } from '../model-api/types';
import type { ResolvedExperiment } from './config';
import type { RetrieverProvider } from './index-provider';
import type { RunCounts, RunManifest, RunStatus } from './manifest';
import type { ProgressSink } from './progress';
import type { Scorer } from './scoring';
import type { Pipeline } from '../pipeline/types';

/** The part of a ModelRouter the runner uses (createModelRouter's result satisfies it; tests pass small fakes). */
export interface RunnerRouter {
  forStage(stage: Stage): ChatModel;
  /** The resolved endpoint of a stage (the agent roles read its protocol); optional for test routers. */
  endpoint?(stage: Stage): { protocol?: AgentProtocol };
  describe(): StageRoute[];
  readonly ledger: {
    onRecord(
      listener: (e: {
        stage: string;
        model: string;
        backend: string;
        questionId?: string;
        promptTokens: number;
        completionTokens: number;
        latencyMs: number;
        cacheHit: boolean;
        finishReason?: string;
        error?: string;
      }) => void,
    ): () => void;
    byQuestion(questionId: string): LedgerTotals;
    toJSON(): {
      totals: LedgerTotals;
      byStage: Record<string, LedgerTotals>;
      byModel: Record<string, LedgerTotals>;
      byBackend: Record<string, LedgerTotals>;
      byEndpoint?: Record<string, EndpointTotals>;
    };
  };
  embedder?(): Embedder | undefined;
  close(): Promise<void>;
}

export interface RunOptions {
  experiment: ResolvedExperiment;
  /** Default: `<name>-<subset>-<hash8>`, so rerunning the same command resumes. */
  runId?: string;
  /** Parent of run folders (default <repo>/results). */
  resultsDir?: string;
  /** Drop error records and answer those questions again. */
  retryErrors?: boolean;
  /** Cache mode of this invocation (`kf run --cache`): above KF_CACHE and the experiment's models.cache.mode. */
  cacheMode?: CacheMode;
  pipeline?: Pipeline;
  router?: RunnerRouter;
  retrieverFor?: RetrieverProvider;
  /** Questions (and recall level) to use instead of loading the configured benchmark. */
  benchmark?: BenchmarkData;
  scorer?: Scorer;
  /** Stop taking new questions (in-flight ones finish and are recorded). */
  stopSignal?: AbortSignal;
  /** Abort in-flight questions (not recorded; they rerun on resume). */
  abortSignal?: AbortSignal;
  progress?: ProgressSink;
  /** Status lines (default: progress.log). */
  log?: (line: string) => void;
  /** The command shown for resuming (default built from the experiment file and overrides). */
  resumeCommand?: string;
}

export interface RunOutcome {
  runId: string;
  dir: string;
  status: RunStatus;
  counts: RunCounts;
  /** Records written by this invocation, and how many carry an error. */
  recordedNow: number;
  errorsNow: number;
  resumedWith: number;
  manifest: RunManifest;
  resumeCommand: string;
}
