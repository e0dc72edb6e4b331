/**
 * Artifact kind 'dualg-graph' (lib/pipeline/artifact-store.ts): the dual-tier
 * graph of one built index. Inputs: the index identity (input key +
 * generation), so a rebuilt index gets a new graph and a graph is never opened
 * for another index. Build args: `indexDir`. `kf prepare dualg-graph` and the
 * 'dualg' retriever (on first search) prepare it.
 */
import type { ArtifactKind } from '../pipeline/artifact';
import { registerArtifactKind } from '../pipeline/artifact-store';
import { defaultIndexDir } from '../run/index-provider';
import { KfError } from '../util/errors';
import { buildDualGraph, DUALG_GRAPH_VERSION } from './graph/build';
import { indexIdentity, sourceFromIndexDir } from './graph/source';
import { DUALG_GRAPH_KIND, loadGraph, writeGraphFiles } from './graph/store';
import type { DualGraph } from './graph/types';

export interface DualGraphSettings {
  tau: number;
}

export function graphSettings(raw: Record<string, unknown>): DualGraphSettings {
  const tau = raw.tau === undefined ? 0.8 : Number(raw.tau);
  if (!Number.isFinite(tau) || tau <= 0 || tau > 1)
    throw new KfError('bad_setting', `dualg-graph tau must be in (0, 1], got ${String(raw.tau)}`, 'use e.g. tau = 0.8', { concerns: 'tau' });
  return { tau };
}

export const dualgGraphKind: ArtifactKind<DualGraphSettings, DualGraph> = {
  kind: DUALG_GRAPH_KIND,
  version: DUALG_GRAPH_VERSION,
  description: 'DualG-MRAG dual-tier graph (macro entities/triples, micro facts, alignment) of one index',
  settings: graphSettings,
  async build(ctx) {
    const indexDir = ctx.args.indexDir as string | undefined;
    if (!indexDir)
      throw new KfError('bad_request', 'dualg-graph needs the index folder (args.indexDir)', 'prepare it through the dualg retriever or pass --index');
    const g = await buildDualGraph(sourceFromIndexDir(indexDir), { tau: ctx.settings.tau, log: ctx.log });
    writeGraphFiles(ctx.dir, g);
    return { stats: g.meta.stats };
  },
  /** `kf prepare dualg-graph --set index=DIR [--set tau=0.8]`, or an experiment's index (prepared first by kf prepare). */
  request(source) {
    const indexDir = source.options.index ?? (source.experiment ? defaultIndexDir(source.experiment) : undefined);
    if (!indexDir) throw new KfError('bad_request', 'dualg-graph needs the index it is built from', 'kf prepare dualg-graph --set index=<index folder>');
    return graphRequest(indexDir, source.options.tau === undefined ? {} : { tau: Number(source.options.tau) });
  },
  async open(ref, args) {
    const indexDir = args.indexDir as string | undefined;
    return loadGraph(ref.dir, indexDir ? { fingerprint: indexIdentity(indexDir).fingerprint } : undefined);
  },
};

/** The request for the graph of an index (inputs = its identity). */
export function graphRequest(indexDir: string, settings: Record<string, unknown> = {}) {
  return { inputs: { index: indexIdentity(indexDir).fingerprint }, settings, args: { indexDir } };
}

let registered = false;
export function register(): void {
  if (registered) return;
  registered = true;
  registerArtifactKind(dualgGraphKind);
}
