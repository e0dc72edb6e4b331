/**
 * DualG-MRAG's plug-in manifest (issue 16): its pipeline family and configuration rows, its
 * retrievers (dualg, the heuristic and ablations, ppr), its derived artifacts (the dual graph and
 * the GNN checkpoint) and the offline policies of its stages (OpenIE, pattern, micro vision).
 * Loaded by lib/pipeline/plugins.ts.
 */
import type { PipelineSpec } from '../pipeline/spec';
import type { Plugin } from '../pipeline/plugin';
import { dualgGraphKind } from './artifacts';
import { CONFIGURATIONS } from './configurations';
import { gnnCheckpointKind } from './gnn/artifact';
import { DUALG_OFFLINE_HANDLERS } from './offline/handlers';
import { dualgFamily } from './pipeline';
import { DUALG_RETRIEVER_ENTRIES } from './retriever';

export const plugin: Plugin = {
  name: 'dualg',
  description: 'DualG-MRAG: dual graphs, query patterns, GNN scorer, paths; its retrievers and artifacts',
  families: [dualgFamily as unknown as PipelineSpec],
  configurations: CONFIGURATIONS,
  retrievers: DUALG_RETRIEVER_ENTRIES,
  artifactKinds: [dualgGraphKind, gnnCheckpointKind],
  offlineHandlers: DUALG_OFFLINE_HANDLERS,
};
