/**
 * The artifact seam (issue 9): derived artifacts (the knowledge-point index,
 * DualG-MRAG graphs, trained GNN checkpoints) declared by kind, built by
 * `kf prepare`, stored under a key hashed from their inputs and settings,
 * listed by `kf artifacts`, referenced from experiment configs. Opening an
 * artifact checks its manifest: a stale one (inputs changed) or a foreign one
 * (another kind, another corpus) is refused with the reason.
 */
import type { ModelsConfig } from '../models/config';

/** What an artifact was built from: named fingerprints (content hashes) of its inputs. */
export type ArtifactInputs = Record<string, string>;

/** Written as manifest.json inside every artifact folder. */
export interface ArtifactManifest {
  kind: string;
  /** Bumped by a kind when its stored format or build logic changes: older artifacts are stale. */
  version: number;
  key: string;
  inputs: ArtifactInputs;
  settings: Record<string, unknown>;
  /** Artifacts this one was built from ({kind, key}). */
  dependsOn: { kind: string; key: string }[];
  createdAt: string;
  gitCommit?: string;
  /** Free-form build facts (sizes, timings, ledger totals). */
  stats?: Record<string, unknown>;
}

export interface ArtifactRef {
  kind: string;
  key: string;
  dir: string;
  manifest: ArtifactManifest;
}

export interface ArtifactBuildContext<S> {
  /** Empty folder to build into (moved into place atomically when build returns). */
  dir: string;
  inputs: ArtifactInputs;
  settings: S;
  /** Get (preparing when missing) an artifact this one depends on. */
  need(kind: string, request: ArtifactRequest): Promise<ArtifactRef>;
  log(line: string): void;
  signal?: AbortSignal;
}

/** What a caller asks for: the inputs (fingerprinted) and the settings. */
export interface ArtifactRequest {
  inputs: ArtifactInputs;
  settings: Record<string, unknown>;
  /** Extra, non-hashed arguments the builder needs (paths, loaded corpora, models). */
  args?: Record<string, unknown>;
}

/** What an artifact kind may read of an experiment config (the contract does not depend on the runner's schema). */
export interface ArtifactExperiment {
  name: string;
  benchmark: { name: string };
  index?: { dir?: string; settings?: Record<string, unknown> };
  pipeline: { name: string; settings?: Record<string, unknown> };
  /** Its [models] table (which stages a model serves, over the environment's routes). */
  models?: ModelsConfig;
}

/**
 * Where `kf prepare` takes a request from: an experiment (its resolved config and
 * models) or, for `kf prepare <kind>`, the command's --set key=value options.
 */
export interface PrepareSource {
  /** The resolved experiment config (the part kinds read; lib/run/config.ts ExperimentConfig satisfies it). */
  experiment?: ArtifactExperiment;
  /** The experiment's index folder, resolved by the runner (index.dir or the benchmark's default). */
  indexDir?: string;
  /** --set key=value pairs of `kf prepare <kind>`. */
  options: Record<string, string>;
  /** The experiment's model router (index stages, embeddings), when there is one. */
  models?: unknown;
  log(line: string): void;
}

export interface ArtifactKind<S = Record<string, unknown>, V = unknown> {
  kind: string;
  version: number;
  description: string;
  /** Normalise and validate settings (defaults filled) before they are hashed. */
  settings(raw: Record<string, unknown>): S;
  build(
    ctx: ArtifactBuildContext<S> & { args: Record<string, unknown> },
  ): Promise<{ stats?: Record<string, unknown>; dependsOn?: { kind: string; key: string }[] } | void>;
  open(ref: ArtifactRef, args: Record<string, unknown>): Promise<V>;
  /** The request `kf prepare` builds from an experiment or from --set options (kinds without it are prepared by code only). */
  request?(source: PrepareSource): ArtifactRequest | Promise<ArtifactRequest>;
  /** Whether an experiment needs this kind (kf prepare <experiment>); default: when its pipeline family lists it. */
  neededBy?(experiment: ArtifactExperiment): boolean;
  /** True when preparing with these command-line options calls model stages (`kf prepare <kind>` then passes the environment's models). */
  usesModels?(options: Record<string, string>): boolean;
}
