/**
 * With an endpoint, the model is the default for every stage the paper gives one; for an experiment's
 * index that means two things, both read from the routes `kf models` prints (the experiment's models
 * table and the environment):
 *   - dense retrieval: the corpus-fitted encoder (`embedder = "fitted"`, the offline default) becomes the
 *     embeddings endpoint when one is configured (KF_EMBED_BASE_URL + KF_EMBED_MODEL);
 *   - the folder: an index the harness builds (`build = "ensure"`) with model stages or the endpoint
 *     embedder lives beside the offline one (`<dir>-model-<hash6>`), so switching backends never rebuilds
 *     one over the other.
 */
import { normalizeModelsConfig, resolveStage } from '../models/config';
import { shortHash } from '../util/hash';
import type { ExperimentConfig } from './config';

type Embedder = NonNullable<ExperimentConfig['index']>['embedder'];

function routeOf(config: ExperimentConfig, stage: string, env: NodeJS.ProcessEnv): { backend: string; model: string } {
  const r = resolveStage(stage, { experiment: normalizeModelsConfig(config.models ?? {}, 'models') }, env);
  return { backend: r.backend, model: r.model };
}

/** The embedder the index is built and searched with: "fitted" means the embeddings endpoint when one is configured. */
export function effectiveEmbedder(config: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): Embedder | undefined {
  const e = config.index?.embedder;
  if (e !== 'fitted') return e;
  return routeOf(config, 'embedding', env).backend !== 'offline' ? 'openai' : e;
}

/** "" for an offline-built index; "-model-<hash6>" when a build stage or the embedder is a model. */
export function indexBuildTag(config: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): string {
  const stages = ['caption', 'extraction', 'relations'].map((s) => {
    const r = routeOf(config, s, env);
    return r.backend === 'offline' ? 'offline' : `${r.backend}:${r.model}`;
  });
  const emb = effectiveEmbedder(config, env);
  const embedding = emb === 'openai' ? `openai:${routeOf(config, 'embedding', env).model}` : String(emb);
  if (stages.every((s) => s === 'offline') && emb !== 'openai') return '';
  return `-model-${shortHash({ stages, embedding }).slice(0, 6)}`;
}

/** The experiment with the endpoint's defaults applied to its index (the embedder), for the index provider. */
export function withEndpointDefaults(config: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): ExperimentConfig {
  const emb = effectiveEmbedder(config, env);
  if (!config.index || emb === config.index.embedder) return config;
  return { ...config, index: { ...config.index, embedder: emb! } };
}
