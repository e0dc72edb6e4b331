/** The dual graph of a retriever setup's index, prepared as an artifact on first use (shared by the retrievers and the GNN checkpoint kind). */
import { ArtifactStore } from '../pipeline/artifact-store';
import type { RetrieverSetup } from '../pipeline/retrievers';
import { KfError } from '../util/errors';
import { graphRequest, register as registerArtifacts } from './artifacts';
import { DUALG_GRAPH_KIND } from './graph/store';
import { withStageDefaults } from './stage-defaults';
import type { DualGraph } from './graph/types';

/** The graph of the setup's index (prepared as an artifact on first use). */
export async function graphFor(setup: Pick<RetrieverSetup, 'indexDir' | 'settings' | 'log'>): Promise<DualGraph> {
  if (!setup.indexDir)
    throw new KfError(
      'index_required',
      'the DualG retrievers need a built index folder',
      'search through an opened index (kf eval retrieval / kf run build one)',
    );
  registerArtifacts();
  const store = new ArtifactStore({ root: typeof setup.settings.artifacts === 'string' ? setup.settings.artifacts : undefined });
  // With an endpoint the graph's model stages are the default (stage-defaults.ts; kf prepare asks for the same graph).
  const { tau, microImages, equivalence, openie } = withStageDefaults(setup.settings).settings;
  // Only the settings that change the graph (absent ones keep the default graph's request, so its artifact is reused).
  const request = graphRequest(setup.indexDir, {
    ...(tau === undefined ? {} : { tau }),
    ...(microImages === undefined ? {} : { microImages }),
    ...(equivalence === undefined ? {} : { equivalence }),
    ...(openie === undefined ? {} : { openie }),
  });
  await store.prepare(DUALG_GRAPH_KIND, request, { log: setup.log });
  return (await store.open<DualGraph>(DUALG_GRAPH_KIND, request)).value;
}
