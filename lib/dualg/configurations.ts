/**
 * DualG-MRAG configurations as data rows over the 'dualg' family (loaded by
 * lib/pipeline/registry.ts): the full method, its ablations (w/o path
 * injection, w/o micro graph, w/o macro graph) and the scorer comparisons
 * (untrained graph heuristic, personalized PageRank) on the same graph.
 */
import type { Configuration, PipelineSpec } from '../pipeline/spec';
import { registerConfiguration, registerFamily } from '../pipeline/registry';
import { DUALG_FAMILY, dualgFamily } from './pipeline';

export const CONFIGURATIONS: Configuration[] = [
  {
    name: 'DG',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description: 'DualG-MRAG full: linking + micro matching + GNN (heuristic until trained) + path injection',
    settings: { retriever: 'dualg' },
  },
  { name: 'DG-nopaths', family: DUALG_FAMILY, paper: 'dualg', description: 'DualG-MRAG w/o path injection', settings: { retriever: 'dualg', paths: false } },
  { name: 'DG-nomicro', family: DUALG_FAMILY, paper: 'dualg', description: 'DualG-MRAG w/o micro graph', settings: { retriever: 'dualg-no-micro' } },
  {
    name: 'DG-nomacro',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description: 'DualG-MRAG w/o macro graph (micro matching only, hybrid otherwise)',
    settings: { retriever: 'dualg-no-macro' },
  },
  {
    name: 'DG-heuristic',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description: 'DualG graph with the untrained graph scorer',
    settings: { retriever: 'dualg-heuristic' },
  },
  { name: 'DG-ppr', family: DUALG_FAMILY, paper: 'dualg', description: 'personalized PageRank over the DualG graph', settings: { retriever: 'ppr' } },
];

export function register(): void {
  registerFamily(dualgFamily as unknown as PipelineSpec);
  for (const c of CONFIGURATIONS) registerConfiguration(c);
}
