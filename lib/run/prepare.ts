/**
 * `kf prepare`: build ahead what an experiment (or one artifact kind) needs, so
 * a run starts answering at once:
 *   - its index: the kp-index artifact (index.artifact) or the index folder (index.dir);
 *   - the artifact kinds its pipeline family lists (PipelineSpec.artifacts) or that
 *     declare they are needed (ArtifactKind.neededBy), through their `request` hook.
 */
import type { ArtifactRequest } from '../pipeline/artifact';
import { ArtifactStore, artifactKind, artifactKinds } from '../pipeline/artifact-store';
import { checkSettings } from '../pipeline/registry';
import { KfError } from '../util/errors';
import type { ExperimentConfig, ResolvedExperiment } from './config';
import { environmentRouter, experimentRouter } from './experiment-router';
import { defaultIndexDir, indexProviderFromConfig } from './index-provider';
import { loadConfiguredBenchmark } from './questions';
import { prepareCommandFor } from './run-id';

/** What prepare did for one need. */
export interface Prepared {
  what: string;
  kind?: string;
  key?: string;
  dir: string;
  built: boolean;
}

/** Artifact kinds (beyond the index) an experiment needs. */
export function neededKinds(config: ExperimentConfig): string[] {
  const typed = checkSettings(config.pipeline.name, { settings: config.pipeline.settings, caps: config.caps });
  const byFamily = typed.ok === true ? (typed.spec.artifacts?.(typed.settings) ?? []) : [];
  const declared = artifactKinds().filter((k) => artifactKind(k).neededBy?.(config));
  return [...new Set([...byFamily, ...declared])];
}

/** Build (or find current) everything the experiment needs. */
export async function prepareExperiment(
  exp: ResolvedExperiment,
  opts: {
    store?: ArtifactStore;
    log?: (line: string) => void;
    /** false: refuse an index build that calls a model (kf ask) */
    allowModelBuild?: boolean;
    /** --yes: go ahead with a model-priced build above the estimate's threshold */
    yes?: boolean;
  } = {},
): Promise<Prepared[]> {
  const config = exp.config;
  const log = opts.log ?? (() => undefined);
  const store = opts.store ?? new ArtifactStore();
  const router = experimentRouter(config, `prepare-${config.name}`);
  const out: Prepared[] = [];
  try {
    const { data } = loadConfiguredBenchmark(config);
    if (config.index) {
      // The index is prepared as a run would open it, but always built when missing (build = "ensure" for this call).
      const ensureConfig: ExperimentConfig = { ...config, index: { ...config.index, build: 'ensure' } };
      const ix = indexProviderFromConfig(ensureConfig, {
        models: router,
        data,
        log,
        allowModelBuild: opts.allowModelBuild !== false,
        prepareCommand: prepareCommandFor(exp),
        beforeModelBuild: (input) => {
          // Loaded lazily: it reads the corpus folder through the ingest module.
          const { confirmEstimate, estimateBuild } = require('../index/build-estimate') as typeof import('../index/build-estimate');
          confirmEstimate(estimateBuild(input, router.ledger.prices), {
            yes: !!opts.yes,
            log: (l) => console.error(l),
            command: prepareCommandFor(exp),
          });
        },
      })!;
      await ix.open();
      const info = ix.info();
      const [kind, key] = info.artifact?.split('/') ?? [];
      out.push({ what: 'index', ...(kind ? { kind, key } : {}), dir: info.dir, built: !!info.built });
    }
    for (const kindName of neededKinds(config)) {
      const kind = artifactKind(kindName);
      if (!kind.request)
        throw new KfError(
          'artifact_unpreparable',
          `artifact kind ${kindName} has no request hook`,
          `the kind's author adds request() so kf prepare can build it`,
        );
      const request: ArtifactRequest = await kind.request({ experiment: config, indexDir: defaultIndexDir(config), options: {}, models: router, log });
      const existed = !!store.ref(kindName, store.keyOf(kindName, request));
      const ref = await store.prepare(kindName, request, { log });
      out.push({ what: kindName, kind: kindName, key: ref.key, dir: ref.dir, built: !existed });
    }
  } finally {
    await router.close().catch(() => undefined);
  }
  return out;
}

/** `kf prepare <kind> --set k=v ...`: one artifact of one kind. */
export async function prepareKind(
  kindName: string,
  options: Record<string, string>,
  opts: { store?: ArtifactStore; log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<Prepared> {
  const kind = artifactKind(kindName);
  if (!kind.request)
    throw new KfError(
      'artifact_unpreparable',
      `artifact kind ${kindName} cannot be prepared from the command line (no request hook)`,
      'prepare it through an experiment',
    );
  const store = opts.store ?? new ArtifactStore();
  const log = opts.log ?? (() => undefined);
  // Kinds whose settings call a model stage (dualg-graph's openie / microImages) get the environment's models.
  const router = kind.usesModels?.(options) ? environmentRouter(`prepare-${kindName}`, opts.env) : undefined;
  try {
    const request = await kind.request({ options, ...(router ? { models: router } : {}), log });
    const existed = !!store.ref(kindName, store.keyOf(kindName, request));
    const ref = await store.prepare(kindName, request, { log });
    return { what: kindName, kind: kindName, key: ref.key, dir: ref.dir, built: !existed };
  } finally {
    await router?.close().catch(() => undefined);
  }
}
