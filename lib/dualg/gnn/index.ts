/**
 * DG2's side of the scorer seam (lib/dualg/query/scorer.ts): createGnnScorer
 * finds the checkpoint trained for this graph -- setting `gnnCheckpoint` (a
 * folder), else a 'gnn-checkpoint' artifact for the graph's fingerprint (trained
 * first when setting `gnnTrain` is true), else $KF_GNN_CHECKPOINTS or
 * <repo>/.kf-cache/gnn-checkpoints (kf train gnn writes there) --
 * and returns the trained scorer with its checkpoint's identity, or undefined
 * when there is none (the retriever then refuses, naming `kf train gnn`). A checkpoint named explicitly but
 * trained for another graph is refused with the reason.
 */
import path from 'node:path';
import { stateDir } from '../../util/paths';
import type { GnnScorerSetup, LoadedGnn } from '../query/scorer';
import { checkpointIdentity } from './identity';
import { checkpointExists } from '../train/checkpoint';
import { gnnGraphFingerprint } from '../train/fingerprint';
import { findCheckpointFor, loadGnnModel } from './load';
import { makeGnnScorer } from './scorer';
import { ArtifactStore } from '../../pipeline/artifact-store';
import { GNN_CHECKPOINT_ARTIFACT, gnnCheckpointRequest, register } from './artifact';
import type { GnnModel } from './model';
import { implicitTrainingAllowed, refuseUnaskedTraining, trainingEstimate } from './train-policy';

export { makeGnnScorer, scoreBatch } from './scorer';
export type { GnnScore, GnnScorer } from './scorer';
export { GnnModel } from './model';
export { gnnConfig, DEFAULT_GNN_CONFIG } from './config';
export { loadGnnModel, findCheckpointFor } from './load';

export function defaultCheckpointRoot(): string {
  return process.env.KF_GNN_CHECKPOINTS ? path.resolve(process.env.KF_GNN_CHECKPOINTS) : stateDir('gnn-checkpoints');
}

/** Training is never silent: what is about to be trained, on what, roughly how long, and how to avoid it. */
function announceTraining(setup: GnnScorerSetup, settings: Record<string, unknown>): void {
  const g = setup.graph;
  setup.log?.(
    `dualg: no trained GNN for this graph -- training one now, before the first answer ` +
      `(artifact ${GNN_CHECKPOINT_ARTIFACT}, settings ${Object.keys(settings).length ? JSON.stringify(settings) : 'defaults'}; ` +
      `${trainingEstimate({ numNodes: g.numNodes, edges: g.src.length })}). ` +
      `To train ahead: kf prepare gnn-checkpoint --set index=${setup.indexDir}; for the untrained row, labelled heuristic: scorer = "heuristic"`,
  );
}

/** Where a checkpoint for this graph already lies (the artifact store's, then kf train gnn's folder), if anywhere. */
function existingCheckpoint(store: ArtifactStore, fingerprint: string): string | undefined {
  return findCheckpointFor(path.join(store.root, GNN_CHECKPOINT_ARTIFACT), fingerprint) ?? findCheckpointFor(defaultCheckpointRoot(), fingerprint);
}

/** gnnTrain = true: the 'gnn-checkpoint' artifact for the graph, trained first when missing and asked for (else refused). */
async function trainedArtifact(
  setup: GnnScorerSetup,
  store: ArtifactStore,
  fingerprint: string,
): Promise<{ model: GnnModel; dir: string; from: string } | undefined> {
  const request = await gnnCheckpointRequest(setup.indexDir!, (setup.settings.gnnTraining ?? {}) as Record<string, unknown>, undefined, setup.models);
  if (request.inputs.graph !== fingerprint) return undefined;
  if (!store.ref(GNN_CHECKPOINT_ARTIFACT, store.keyOf(GNN_CHECKPOINT_ARTIFACT, request))) {
    // A checkpoint trained on purpose for this graph (kf train gnn, another preset) is used rather than refused.
    if (!implicitTrainingAllowed() && existingCheckpoint(store, fingerprint)) return undefined;
    refuseUnaskedTraining({ numNodes: setup.graph.numNodes, edges: setup.graph.src.length }, setup.indexDir!);
    announceTraining(setup, request.settings);
  }
  await store.prepare(GNN_CHECKPOINT_ARTIFACT, request, { log: setup.log });
  const opened = await store.open<GnnModel>(GNN_CHECKPOINT_ARTIFACT, request);
  const dir = checkpointExists(path.join(opened.ref.dir, 'best')) ? path.join(opened.ref.dir, 'best') : path.join(opened.ref.dir, 'last');
  return { model: opened.value, dir, from: `artifact ${GNN_CHECKPOINT_ARTIFACT}/${opened.ref.key}` };
}

export async function createGnnScorer(setup: GnnScorerSetup): Promise<LoadedGnn | undefined> {
  const fingerprint = gnnGraphFingerprint(setup.graph);
  const named = typeof setup.settings.gnnCheckpoint === 'string' ? path.resolve(setup.settings.gnnCheckpoint) : undefined;
  let model: GnnModel | undefined;
  let dir = named;
  let from = named;
  if (!named) {
    const store = new ArtifactStore({ root: typeof setup.settings.artifacts === 'string' ? setup.settings.artifacts : undefined });
    register();
    const trained = setup.settings.gnnTrain === true && setup.indexDir ? await trainedArtifact(setup, store, fingerprint) : undefined;
    if (trained) ({ model, dir, from } = trained);
    dir ??= existingCheckpoint(store, fingerprint);
  }
  if (!dir) return undefined;
  model ??= await loadGnnModel(dir, fingerprint);
  const checkpoint = checkpointIdentity(dir, from ?? dir);
  setup.log?.(
    `dualg: trained GNN ${checkpoint.id} from ${checkpoint.from} (preset ${checkpoint.preset}, ${model.config.layers} layers x ${model.config.hidden})`,
  );
  const paths = typeof setup.settings.gnnPaths === 'number' ? setup.settings.gnnPaths : 5;
  return { scorer: makeGnnScorer(model, { paths }), checkpoint };
}
