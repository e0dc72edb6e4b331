/**
 * Which reply cache a router uses. The mode, by precedence: the caller's option
 * (`kf run --cache`), KF_CACHE, the experiment's models.cache.mode, the project
 * defaults. The cache mode is an operating switch, not a result-affecting setting,
 * so the environment overrides the experiment file here (`KF_CACHE=off kf run x`
 * turns the cache off whatever x says). The mode defaults to read-write when a
 * file is known, else off. The file: the caller's option, the experiment, the
 * defaults, then KF_CACHE_FILE.
 */
import { KfError } from '../util/errors';
import { defaultCacheFile, ModelCache } from './cache';
import { CACHE_MODES, type CacheMode, type ModelsConfig } from './config';

export interface CacheChoice {
  cache?: ModelCache;
  mode: CacheMode;
  /** The file in use, or the one named while the cache is off. */
  file?: string;
}

export function chooseCache(
  layers: { experiment: ModelsConfig; defaults?: ModelsConfig },
  opts: { cacheFile?: string; cacheMode?: CacheMode },
  env: NodeJS.ProcessEnv,
): CacheChoice {
  const envMode = env.KF_CACHE as CacheMode | undefined;
  if (envMode !== undefined && envMode !== ('' as CacheMode) && !CACHE_MODES.includes(envMode)) {
    throw new KfError('bad_models_config', `KF_CACHE must be one of ${CACHE_MODES.join('|')}, got "${envMode}"`, 'fix or unset KF_CACHE');
  }
  const { experiment, defaults } = layers;
  const fileGiven = opts.cacheFile ?? experiment.cache?.file ?? defaults?.cache?.file ?? (env.KF_CACHE_FILE || undefined);
  const mode: CacheMode = opts.cacheMode ?? (envMode || undefined) ?? experiment.cache?.mode ?? defaults?.cache?.mode ?? (fileGiven ? 'read-write' : 'off');
  const file = mode === 'off' ? fileGiven : (fileGiven ?? defaultCacheFile());
  const cache = mode !== 'off' && file ? ModelCache.open(file, { create: mode !== 'replay-only' }) : undefined;
  return { cache, mode, file: cache?.file ?? file };
}
