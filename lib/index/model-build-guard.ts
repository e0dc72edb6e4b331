/**
 * No model-priced index build nobody asked for: `kf run` and `kf ask` open the
 * index their experiment names, and build it on their own only when every
 * build stage (caption, extraction, relations, the embedder) runs offline.
 * A build that would call a model is refused with the command that builds it
 * on purpose (`kf prepare <experiment>` / `kf index build`, which print their
 * estimate first).
 */
import { KfError } from '../util/errors';
import type { IndexModels } from './open';
import { isOffline, stageModel } from './build-helpers';

/** Which model (or 'offline') each model-backed build stage would use: part of what an index depends on. */
export function buildStageModels(models: IndexModels | undefined): Record<string, string> {
  const model = (stage: string) => {
    const m = stageModel(models, stage);
    return isOffline(m) ? 'offline' : `${m!.backend}:${m!.id}`;
  };
  return { caption: model('caption'), extraction: model('extraction'), relations: model('relations') };
}

/** The model-backed build stages ("extraction: openai:qwen3", ...); empty when the build is offline. */
export function modelBuildStages(models: IndexModels | undefined, embedder: unknown): string[] {
  const out = Object.entries(buildStageModels(models))
    .filter(([, m]) => m !== 'offline')
    .map(([stage, m]) => `${stage}: ${m}`);
  if (embedder === 'openai') out.push('embedding: the embeddings endpoint');
  return out;
}

/** Refuse an implicit build that would call a model (`what`: the index, for the message; `prepare`: the command that builds it). */
export function refuseImplicitModelBuild(models: IndexModels | undefined, embedder: unknown, o: { what: string; prepare: string }): void {
  const stages = modelBuildStages(models, embedder);
  if (!stages.length) return;
  throw new KfError(
    'index_build_needs_models',
    `${o.what} is missing or stale, and building it calls a model (${stages.join('; ')}); a run never starts model-priced work on its own`,
    `build it on purpose first: ${o.prepare} (prints the calls, tokens and cost it expects; --yes goes ahead), then rerun; or keep the build offline: --override models.stages.extraction.backend=offline (likewise relations, caption)`,
    { concerns: o.what },
  );
}
