/**
 * GNN checkpoints on disk: a folder with manifest.json (kind 'gnn-checkpoint',
 * the graph's fingerprint, the model config, training progress) and weights.bin
 * (model parameters, then the optimizer's moments so a resumed run continues the
 * same trajectory). Written to a temporary folder and renamed into place, so an
 * interrupted write never replaces the last good checkpoint. Opening one built
 * for another graph is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KfError } from '../../util/errors';
import type { GnnConfig } from '../gnn/config';
import { PRIOR_FEATURES_LABEL, PRIOR_NODE_FEATURES } from '../types';

export const GNN_CHECKPOINT_KIND = 'gnn-checkpoint';
export const GNN_CHECKPOINT_VERSION = 1;

export interface TrainingProgress {
  /** Completed epochs per phase. */
  pretrainEpochs: number;
  finetuneEpochs: number;
  /** Best validation metric so far (fine-tuning) and its epoch. */
  best?: { metric: string; value: number; epoch: number };
}

export interface TensorRecord {
  name: string;
  shape: number[];
  offset: number;
  length: number;
}

export interface CheckpointManifest {
  kind: string;
  version: number;
  graphFingerprint: string;
  config: GnnConfig;
  progress: TrainingProgress;
  params: TensorRecord[];
  optimizer: TensorRecord[];
  createdAt: string;
  /** Free-form facts (loss history, timings). */
  stats?: Record<string, unknown>;
}

export interface CheckpointData {
  manifest: CheckpointManifest;
  params: Map<string, { shape: number[]; values: Float32Array }>;
  optimizer: { name: string; shape: number[]; values: Float32Array }[];
}

type Named = { name: string; shape: number[]; values: Float32Array };

function pack(items: Named[], start: number): { records: TensorRecord[]; end: number } {
  let offset = start;
  const records = items.map((t) => {
    const r = { name: t.name, shape: t.shape, offset, length: t.values.length };
    offset += t.values.length;
    return r;
  });
  return { records, end: offset };
}

export function writeCheckpoint(
  dir: string,
  data: Omit<CheckpointData, 'manifest'> & { manifest: Omit<CheckpointManifest, 'params' | 'optimizer' | 'kind' | 'version' | 'createdAt'> },
): void {
  const params: Named[] = [...data.params].map(([name, t]) => ({ name, ...t }));
  const p = pack(params, 0);
  const o = pack(data.optimizer, p.end);
  const buf = new Float32Array(o.end);
  for (const [r, t] of [...p.records.map((r, i) => [r, params[i]] as const), ...o.records.map((r, i) => [r, data.optimizer[i]] as const)])
    buf.set(t.values, r.offset);
  const manifest: CheckpointManifest = {
    kind: GNN_CHECKPOINT_KIND,
    version: GNN_CHECKPOINT_VERSION,
    ...data.manifest,
    params: p.records,
    optimizer: o.records,
    createdAt: new Date().toISOString(),
  };
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  fs.writeFileSync(path.join(tmp, 'weights.bin'), Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength));
  fs.writeFileSync(path.join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  const old = `${dir}.old-${process.pid}`;
  if (fs.existsSync(dir)) fs.renameSync(dir, old);
  fs.renameSync(tmp, dir);
  fs.rmSync(old, { recursive: true, force: true });
}

/**
 * A prior-conditioned checkpoint must read the prior features this code gives (PRIOR_NODE_FEATURES). Those written
 * before the hybrid retriever's rank joined the heuristic's two features are refused, naming the retraining
 * command: their shapes no longer fit, and quietly dropping the new feature would be another model than the label says.
 */
function checkPriorFeatures(dir: string, m: CheckpointManifest): void {
  const nodeW = m.config?.prior ? m.params.find((r) => r.name === 'prior.nodeW') : undefined;
  const features = nodeW?.shape[0];
  if (features === undefined || features === PRIOR_NODE_FEATURES) return;
  throw new KfError(
    'gnn_checkpoint_stale',
    `the GNN checkpoint in ${dir} reads ${features} prior features per node (the heuristic's score and rank); this code's prior-conditioned GNN reads ${PRIOR_NODE_FEATURES} (${PRIOR_FEATURES_LABEL})`,
    'retrain it: kf train gnn --bench <bench> --index <index dir> (or kf prepare gnn-checkpoint --set index=<index dir>, or index setting gnnTrain = true)',
    { concerns: dir },
  );
}

export function checkpointExists(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'manifest.json')) && fs.existsSync(path.join(dir, 'weights.bin'));
}

/** Read a checkpoint; `graphFingerprint` given = refuse one built for another graph. */
export function readCheckpoint(dir: string, expect?: { graphFingerprint?: string }): CheckpointData {
  if (!checkpointExists(dir))
    throw new KfError('gnn_checkpoint_missing', `no GNN checkpoint in ${dir}`, 'train one (kf prepare gnn-checkpoint / kf train gnn)', {
      concerns: dir,
    });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as CheckpointManifest;
  if (manifest.kind !== GNN_CHECKPOINT_KIND)
    throw new KfError('gnn_checkpoint_foreign', `${dir} holds a '${manifest.kind}', not a GNN checkpoint`, 'point at a gnn-checkpoint folder', {
      concerns: dir,
    });
  if (manifest.version !== GNN_CHECKPOINT_VERSION)
    throw new KfError(
      'gnn_checkpoint_stale',
      `${dir} is checkpoint format v${manifest.version}, this code reads v${GNN_CHECKPOINT_VERSION}`,
      'retrain the GNN',
      { concerns: dir },
    );
  checkPriorFeatures(dir, manifest);
  if (expect?.graphFingerprint && manifest.graphFingerprint !== expect.graphFingerprint) {
    throw new KfError(
      'gnn_checkpoint_foreign',
      `the GNN checkpoint in ${dir} was trained for graph ${manifest.graphFingerprint.slice(0, 12)}, not this graph (${expect.graphFingerprint.slice(0, 12)})`,
      'train a checkpoint for this graph; a GNN only scores the graph it was trained on (relation ids, entity ids)',
      { concerns: dir },
    );
  }
  const raw = fs.readFileSync(path.join(dir, 'weights.bin'));
  const all = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  const slice = (r: TensorRecord) => all.slice(r.offset, r.offset + r.length);
  return {
    manifest,
    params: new Map(manifest.params.map((r) => [r.name, { shape: r.shape, values: slice(r) }])),
    optimizer: manifest.optimizer.map((r) => ({ name: r.name, shape: r.shape, values: slice(r) })),
  };
}
