/**
 * Experiments that name a kp-index artifact (`index.artifact`) instead of an
 * index folder: the request is made from the benchmark's corpus and the
 * experiment's index settings (the same ones `index.build = "ensure"` uses), so
 * `kf prepare <experiment>` and the run agree on the key.
 *   index.artifact = "<key>"  open that artifact; refused when stale or built from another corpus
 *   index.artifact = "auto"   the artifact of this corpus and these settings (built first with build = "ensure")
 */
import type { BenchmarkData, CorpusPassage } from '../bench/types';
import { KP_INDEX, kpIndexRequest } from '../pipeline/kp-index-artifact';
import type { IndexModels, OpenIndex } from '../index/open';
import type { ArtifactRef, ArtifactRequest } from '../pipeline/artifact';
import { ArtifactStore } from '../pipeline/artifact-store';
import { KfError } from '../util/errors';
import type { ExperimentConfig } from './config';
import { benchmarkDisplayName } from '../bench/own';

/** The kp-index request of an experiment (its corpus is read and hashed now). */
export function indexArtifactRequest(config: ExperimentConfig, data: BenchmarkData, models?: IndexModels): ArtifactRequest {
  const ix = config.index;
  if (!ix) throw new KfError('no_index', `experiment ${config.name} has no [index] table`, 'add one (index.artifact = "auto")');
  if (!data.passages?.length && !data.corpusDir) {
    throw new KfError(
      'no_corpus',
      `benchmark ${config.benchmark.name} has no corpus here (no passages, no documents folder)`,
      'set the corpus path in benchmark.paths',
    );
  }
  const corpus = data.passages?.length ? { passages: data.passages } : { corpusDir: data.corpusDir };
  return kpIndexRequest(corpus, { embedder: ix.embedder, options: { benchmark: config.benchmark.name, ...(ix.options as object) } }, models);
}

/** Open (building first when asked) the index artifact an experiment names. */
export async function openIndexArtifact(
  config: ExperimentConfig,
  opts: {
    data: BenchmarkData;
    models?: IndexModels;
    store?: ArtifactStore;
    log?: (line: string) => void;
    allowModelBuild?: boolean;
    prepareCommand?: string;
    /** With allowModelBuild: called before a build that calls a model (kf prepare prints the estimate and asks for --yes). */
    beforeModelBuild?: (input: { corpusDir?: string; passages?: readonly CorpusPassage[]; models?: IndexModels }) => void | Promise<void>;
  },
): Promise<{ index: OpenIndex; ref: ArtifactRef; built: boolean }> {
  const ix = config.index!;
  const store = opts.store ?? new ArtifactStore();
  const request = indexArtifactRequest(config, opts.data, opts.models);
  let built = false;
  if (ix.artifact === 'auto' && ix.build === 'ensure' && !store.ref(KP_INDEX, store.keyOf(KP_INDEX, request))) {
    if (!opts.allowModelBuild) {
      const { refuseImplicitModelBuild } = require('../index/model-build-guard') as typeof import('../index/model-build-guard');
      refuseImplicitModelBuild(opts.models, ix.embedder, {
        what: `the kp-index artifact of experiment ${config.name}`,
        prepare: opts.prepareCommand ?? `kf prepare <experiment file of ${config.name}>`,
      });
    } else if (opts.beforeModelBuild) {
      // A build asked for (kf prepare) that calls a model: the estimate first, as for an index folder.
      const { modelBuildStages } = require('../index/model-build-guard') as typeof import('../index/model-build-guard');
      if (modelBuildStages(opts.models, ix.embedder).length) {
        const corpus = opts.data.passages?.length ? { passages: opts.data.passages } : { corpusDir: opts.data.corpusDir };
        await opts.beforeModelBuild({ ...corpus, models: opts.models });
      }
    }
    opts.log?.(`index: building the kp-index artifact for the ${benchmarkDisplayName(config.benchmark)} corpus (a first build can take minutes)`);
    await store.prepare(KP_INDEX, request, { log: opts.log });
    built = true;
  }
  const target = ix.artifact === 'auto' ? request : ix.artifact!;
  const { ref, value } = await store.open<OpenIndex>(KP_INDEX, target, { models: opts.models }, { inputs: request.inputs });
  return { index: value, ref, built };
}
