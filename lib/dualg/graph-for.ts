/** The dual graph of a retriever setup's index, prepared as an artifact on first use (shared by the retrievers and the GNN checkpoint kind). */
import { ArtifactStore } from '../pipeline/artifact-store';
import type { RetrieverSetup } from '../pipeline/retrievers';
import { KfError } from '../util/errors';
import { graphRequest, register as registerArtifacts } from './artifacts';
import { DUALG_GRAPH_KIND } from './graph/store';
import { withStageDefaults } from './stage-defaults';
import type { DualGraph } from './graph/types';

/**
 * The graph of the setup's index (prepared as an artifact on first use). A graph whose settings call model stages
 * (OpenIE, vision, name embeddings: an endpoint's defaults, stage-defaults.ts) is built only when the caller asked
 * for a build (`buildWithModels`: kf train gnn, kf kfold, the GNN artifact); a run's retriever finds it prepared
 * (kf prepare <experiment>) or refuses: a run never starts model-priced work on its own.
 */
export async function graphFor(
  setup: Pick<RetrieverSetup, 'indexDir' | 'settings' | 'log' | 'models'>,
  opts: { buildWithModels?: boolean } = {},
): Promise<DualGraph> {
  if (!setup.indexDir)
    throw new KfError(
      'index_required',
      'the DualG retrievers need a built index folder',
      'search through an opened index (kf eval retrieval / kf run build one)',
    );
  registerArtifacts();
  const store = new ArtifactStore({ root: typeof setup.settings.artifacts === 'string' ? setup.settings.artifacts : undefined });
  // With an endpoint the graph's model stages are the default (stage-defaults.ts; kf prepare asks for the same graph).
  const { tau, microImages, equivalence, openie, alignment } = withStageDefaults(setup.settings, process.env, setup.models).settings;
  // Only the settings that change the graph (absent ones keep the default graph's request, so its artifact is reused).
  const request = graphRequest(setup.indexDir, {
    ...(tau === undefined ? {} : { tau }),
    ...(microImages === undefined ? {} : { microImages }),
    ...(equivalence === undefined ? {} : { equivalence }),
    ...(openie === undefined ? {} : { openie }),
    ...(alignment === undefined ? {} : { alignment }),
  });
  const usesModels = openie === 'stage' || microImages === 'vision' || equivalence === 'stage' || alignment === 'stage';
  if (usesModels && !store.ref(DUALG_GRAPH_KIND, store.keyOf(DUALG_GRAPH_KIND, request))) {
    if (!opts.buildWithModels)
      throw new KfError(
        'graph_build_needs_models',
        `the DualG graph of index ${setup.indexDir} is not prepared, and building it calls model stages (${[
          openie === 'stage' ? 'openie' : '',
          microImages === 'vision' ? 'vision' : '',
          equivalence === 'stage' ? 'embedding' : '',
        ]
          .filter(Boolean)
          .join(', ')}); a run never starts model-priced work on its own`,
        `build it on purpose first: kf prepare <experiment> (or kf prepare dualg-graph --set index=${setup.indexDir}), then rerun`,
        { concerns: setup.indexDir },
      );
    // The caller's models (a command's or the run's router, handed in): the graph's model stages go through them.
    if (!setup.models)
      throw new KfError(
        'models_required',
        `building the DualG graph of ${setup.indexDir} calls model stages and no models were handed in`,
        'build it through a command that configures the models (kf prepare <experiment>, kf train gnn, kf kfold)',
        { concerns: setup.indexDir },
      );
    await store.prepare(DUALG_GRAPH_KIND, { ...request, args: { ...request.args, models: setup.models } }, { log: setup.log });
  } else await store.prepare(DUALG_GRAPH_KIND, request, { log: setup.log });
  return (await store.open<DualGraph>(DUALG_GRAPH_KIND, request)).value;
}
