/** Open a trained GNN from a checkpoint folder (refused when it was trained for another graph). */
import fs from 'node:fs';
import path from 'node:path';
import { initTf } from '../../tf/backend';
import { readCheckpoint, checkpointExists } from '../train/checkpoint';
import { GnnModel } from './model';
import type { GnnConfig } from './config';

export async function loadGnnModel(dir: string, graphFingerprint?: string): Promise<GnnModel> {
  await initTf();
  const ck = readCheckpoint(dir, { graphFingerprint });
  const model = new GnnModel(withLegacyDefaults(ck.manifest.config));
  model.setWeights(ck.params);
  return model;
}

/**
 * The newest checkpoint for a graph among the folders under `root` (each a
 * checkpoint, or a training folder holding best/ and last/; best/ preferred).
 */
export function findCheckpointFor(root: string, graphFingerprint: string): string | undefined {
  if (!fs.existsSync(root)) return undefined;
  const found: { dir: string; at: number }[] = [];
  const consider = (dir: string) => {
    if (!checkpointExists(dir)) return;
    try {
      const m = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { graphFingerprint?: string; createdAt?: string };
      if (m.graphFingerprint === graphFingerprint) found.push({ dir, at: Date.parse(m.createdAt ?? '') || 0 });
    } catch {
      /* an unreadable manifest is not a candidate */
    }
  };
  for (const e of fs.readdirSync(root, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    const dir = path.join(root, e.name);
    const best = path.join(dir, 'best');
    if (checkpointExists(best)) consider(best);
    else if (checkpointExists(path.join(dir, 'last'))) consider(path.join(dir, 'last'));
    else consider(dir);
  }
  found.sort((a, b) => b.at - a.at || a.dir.localeCompare(b.dir));
  return found[0]?.dir;
}

/**
 * Checkpoints written before `prior` / `queryEncoder` existed are plain GFM-RAG models with the hashed encoder;
 * those written before `hybridUnit` existed learned the raw hybrid scalar (unit 1); those written before `update` /
 * `projection` existed have the rich update and GFM-RAG's top-k ranker.
 */
export function withLegacyDefaults(config: GnnConfig): GnnConfig {
  return {
    ...config,
    prior: config.prior ?? false,
    queryEncoder: config.queryEncoder ?? 'hashed',
    hybridUnit: config.hybridUnit ?? 1,
    update: config.update ?? 'rich',
    projection: config.projection ?? 'topk-idf',
  };
}
