/** The identity of a GNN checkpoint folder as labels show it (query/scorer-identity.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { sha256 } from '../../util/hash';
import type { CheckpointIdentity } from '../query/scorer-identity';
import type { CheckpointManifest } from '../train/checkpoint';
import { withLegacyDefaults } from './load';
import { presetOf } from './preset';
import { PRIOR_FEATURES_LABEL, PRIOR_NODE_FEATURES } from '../types';

export function checkpointIdentity(dir: string, from = dir): CheckpointIdentity {
  const text = fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8');
  const m = JSON.parse(text) as CheckpointManifest;
  const config = withLegacyDefaults(m.config);
  const trainedOn = typeof m.stats?.trainedOn === 'string' ? m.stats.trainedOn : 'unrecorded (checkpoint written before training data was kept)';
  return {
    id: sha256(text).slice(0, 12),
    from,
    preset: presetOf(config),
    layers: config.layers,
    hidden: config.hidden,
    queryEncoder: config.queryEncoder,
    parameters: m.params.reduce((a, r) => a + r.length, 0),
    trainedOn,
    prior: priorOf(m, config.prior),
  };
}

/** What a checkpoint's prior reads, from the shape it was saved with (older checkpoints read the heuristic alone). */
function priorOf(m: CheckpointManifest, prior: boolean): string {
  if (!prior) return 'none';
  const features = m.params.find((r) => r.name === 'prior.nodeW')?.shape[0];
  return features === PRIOR_NODE_FEATURES ? PRIOR_FEATURES_LABEL : `heuristic (${features} features; retrain for ${PRIOR_FEATURES_LABEL})`;
}
