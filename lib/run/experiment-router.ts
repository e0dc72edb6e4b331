/** The model router of an experiment (its models table, cache file made absolute), as runs and `kf prepare` make it. */
import type { CacheMode } from '../models/config';
import { createModelRouter } from '../models/router';
import { registerOfflineHandlers } from '../pipeline/offline-backend';
import { expandPath, type ExperimentConfig } from './config';

export function experimentRouter(config: ExperimentConfig, runId: string, cacheMode?: CacheMode): ReturnType<typeof createModelRouter> {
  const cacheFile = config.models.cache?.file ? expandPath(config.models.cache.file) : undefined;
  registerOfflineHandlers(); // the offline backend's stage handlers, for stages without an endpoint
  // cacheMode: `kf run --cache`, above KF_CACHE and the file (lib/models/cache-choice.ts).
  return createModelRouter(
    { ...config.models, cache: config.models.cache ? { ...config.models.cache, file: cacheFile } : undefined },
    { runId, cacheFile, cacheMode },
  );
}

/**
 * The model router of a command without an experiment (`kf prepare <kind>`): stages from the environment
 * (OPENAI_BASE_URL, KF_<STAGE>_MODEL, ...), the offline backend for stages without an endpoint.
 */
export function environmentRouter(runId: string, env: NodeJS.ProcessEnv = process.env): ReturnType<typeof createModelRouter> {
  registerOfflineHandlers();
  return createModelRouter({}, { runId, env });
}
