/**
 * What a run is, beyond its config: the backend and model id of every stage, the
 * prompt pack, the embedder and the index build the questions searched. Two
 * invocations with the same config but another model are two runs: the default
 * run id of a model-backed run carries a short hash of its routes (an all-offline
 * run keeps its plain id), and resuming a run with any of these changed is refused,
 * naming what differs.
 */
import type { StageRoute } from '../models/stage-route';
import { normalizeModelsConfig, resolveStage } from '../models/config';
import { STAGES } from '../model-api/types';
import { KfError } from '../util/errors';
import { shortHash } from '../util/hash';
import type { ExperimentConfig } from './config';
import type { IndexInfo } from './index-types';
import { effectiveEmbedder } from './endpoint-defaults';

export interface RunIdentity {
  /** Per stage: "offline", or "<backend>:<model id>" (base URLs and keys are not part of it). */
  stages: Record<string, string>;
  /** The prompt pack the pipeline sends (name@sha256 prefix), when it has one. */
  promptPack?: string;
  /** The query embedder: the config's index embedder, or the embeddings endpoint's model for "openai". */
  embedder?: string;
  /** The index build the questions searched: folder + generation (known once the index opened). */
  index?: string;
}

/** Per-stage "offline" or "<backend>:<model>". */
export function stageIdentity(routes: readonly Pick<StageRoute, 'stage' | 'backend' | 'model'>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of [...routes].sort((a, b) => a.stage.localeCompare(b.stage))) out[r.stage] = r.backend === 'offline' ? 'offline' : `${r.backend}:${r.model}`;
  return out;
}

/** The routes an experiment's models table gives (the environment included), without opening a router. */
export function configuredRoutes(config: ExperimentConfig, env: NodeJS.ProcessEnv = process.env): Pick<StageRoute, 'stage' | 'backend' | 'model'>[] {
  const experiment = normalizeModelsConfig(config.models ?? {}, 'models');
  const stages = new Set<string>([...STAGES, ...Object.keys(experiment.stages ?? {})]);
  return [...stages].map((stage) => {
    const r = resolveStage(stage, { experiment }, env);
    return { stage, backend: r.backend, model: r.model };
  });
}

export function runIdentity(
  config: ExperimentConfig,
  routes: readonly Pick<StageRoute, 'stage' | 'backend' | 'model'>[],
  promptPack?: { name: string; sha256: string },
): RunIdentity {
  const stages = stageIdentity(routes);
  const emb = effectiveEmbedder(config);
  return {
    stages,
    ...(promptPack ? { promptPack: `${promptPack.name}@${promptPack.sha256.slice(0, 12)}` } : {}),
    ...(emb ? { embedder: emb === 'openai' ? (stages.embedding ?? 'openai:unconfigured') : emb } : {}),
  };
}

/** The index part of the identity, from what the opened index reports. */
export function indexIdentity(info: IndexInfo | undefined): string | undefined {
  if (!info?.generation) return undefined;
  return `${info.artifact ?? info.dir}#${info.generation}`;
}

/** True when every stage runs on the offline backend. */
export function allOffline(routes: readonly Pick<StageRoute, 'backend'>[]): boolean {
  return routes.every((r) => r.backend === 'offline');
}

/**
 * The run-id suffix of a model-backed run: "-<backend>-<hash6 of the stage models>", so that the same
 * config run with another model (or backend) is a new run beside the offline one; "" when all-offline.
 */
export function identityTag(routes: readonly Pick<StageRoute, 'stage' | 'backend' | 'model'>[]): string {
  if (allOffline(routes)) return '';
  const backends = [...new Set(routes.filter((r) => r.backend !== 'offline').map((r) => r.backend))].sort();
  const label = backends.length === 1 ? backends[0] : 'mixed';
  return `-${label}-${shortHash(stageIdentity(routes)).slice(0, 6)}`;
}

/** Human-readable differences between two identities ("model: offline -> openai:qwen3 (stages reader, synth)"). */
export function identityDiff(before: RunIdentity, now: RunIdentity): string[] {
  const out: string[] = [];
  const byChange = new Map<string, string[]>();
  const stages = [...new Set([...Object.keys(before.stages), ...Object.keys(now.stages)])].sort();
  for (const s of stages) {
    const a = before.stages[s] ?? 'offline';
    const b = now.stages[s] ?? 'offline'; // a stage only one side resolved (a stage name added later) ran offline there
    if (a !== b) byChange.set(`${a} -> ${b}`, [...(byChange.get(`${a} -> ${b}`) ?? []), s]);
  }
  for (const [change, names] of byChange) out.push(`model ${change} (stage${names.length > 1 ? 's' : ''} ${names.join(', ')})`);
  if (before.promptPack !== now.promptPack && before.promptPack !== undefined && now.promptPack !== undefined)
    out.push(`prompt pack: ${before.promptPack} -> ${now.promptPack}`);
  if (before.embedder !== now.embedder && before.embedder !== undefined && now.embedder !== undefined)
    out.push(`embedder: ${before.embedder} -> ${now.embedder}`);
  if (before.index && now.index && before.index !== now.index) out.push(`index build: ${before.index} -> ${now.index}`);
  return out;
}

/** Refuse a resume whose identity differs from the run's (what differs, and how to start a new run instead). */
export function refuseChangedIdentity(before: RunIdentity | undefined, now: RunIdentity, runId: string, dir: string, recorded: number): void {
  if (!before || !recorded) return;
  const diff = identityDiff(before, now);
  if (!diff.length) return;
  throw new KfError(
    'run_identity_changed',
    `run ${runId} holds ${recorded} record(s) answered with another setup (${diff.slice(0, 6).join('; ')}${diff.length > 6 ? `; ${diff.length - 6} more` : ''})`,
    'resuming would mix answers of two setups in one run: start a new run (leave out --run-id to get one named by its models, or pass a new --run-id), or restore the setup the run was started with',
    { concerns: dir },
  );
}
