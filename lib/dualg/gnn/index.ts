/**
 * DG2's side of the scorer seam (lib/dualg/query/scorer.ts): createGnnScorer
 * finds the checkpoint trained for this graph (setting `gnnCheckpoint`, else
 * $KF_GNN_CHECKPOINTS or <repo>/.kf-cache/gnn-checkpoints searched by the graph's
 * fingerprint) and returns the trained scorer, or undefined when there is none
 * (the retriever then uses its heuristic and says so). A checkpoint named
 * explicitly but trained for another graph is refused with the reason.
 */
import path from 'node:path';
import { repoRoot } from '../../util/paths';
import type { GnnScorerSetup } from '../query/scorer';
import { gnnGraphFingerprint } from '../train/fingerprint';
import { findCheckpointFor, loadGnnModel } from './load';
import { makeGnnScorer, type GnnScorer } from './scorer';

export { makeGnnScorer, scoreBatch } from './scorer';
export type { GnnScore, GnnScorer } from './scorer';
export { GnnModel } from './model';
export { gnnConfig, DEFAULT_GNN_CONFIG } from './config';
export { loadGnnModel, findCheckpointFor } from './load';

export function defaultCheckpointRoot(): string {
  return process.env.KF_GNN_CHECKPOINTS ? path.resolve(process.env.KF_GNN_CHECKPOINTS) : path.join(repoRoot(), '.kf-cache', 'gnn-checkpoints');
}

export async function createGnnScorer(setup: GnnScorerSetup): Promise<GnnScorer | undefined> {
  const fingerprint = gnnGraphFingerprint(setup.graph);
  const named = typeof setup.settings.gnnCheckpoint === 'string' ? path.resolve(setup.settings.gnnCheckpoint) : undefined;
  const dir = named ?? findCheckpointFor(defaultCheckpointRoot(), fingerprint);
  if (!dir) return undefined;
  const model = await loadGnnModel(dir, fingerprint);
  setup.log?.(`dualg: trained GNN from ${dir} (${model.config.layers} layers x ${model.config.hidden})`);
  const paths = typeof setup.settings.gnnPaths === 'number' ? setup.settings.gnnPaths : 5;
  return makeGnnScorer(model, { paths });
}
