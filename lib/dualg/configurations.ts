/**
 * DualG-MRAG configurations as data rows over the 'dualg' family (loaded by
 * lib/pipeline/registry.ts): the full method, its ablations (w/o path
 * injection, w/o micro graph, w/o macro graph) and the scorer comparisons
 * (untrained graph heuristic, personalized PageRank) on the same graph. The
 * rows named after the paper's method score with the trained GNN and refuse to
 * start without a checkpoint (lib/dualg/retriever.ts says how to get one).
 */
import type { Configuration, PipelineSpec } from '../pipeline/spec';
import { registerConfiguration, registerFamily } from '../pipeline/registry';
import { DUALG_FAMILY, dualgFamily } from './pipeline';

export const CONFIGURATIONS: Configuration[] = [
  {
    name: 'DG',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description:
      'DualG-MRAG full: linking + micro matching + trained GNN + path injection (needs a checkpoint: kf train gnn, or index setting gnnTrain = true)',
    settings: { retriever: 'dualg-gnn' },
  },
  {
    name: 'DG-nopaths',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description: 'DualG-MRAG w/o path injection (trained GNN)',
    settings: { retriever: 'dualg-gnn', paths: false },
  },
  {
    name: 'DG-nomicro',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description: 'DualG-MRAG w/o micro graph (trained GNN)',
    settings: { retriever: 'dualg-gnn-no-micro' },
  },
  {
    name: 'DG-nomacro',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description: 'DualG-MRAG w/o macro graph: micro matches only (no linking, no propagation, no hybrid fallback or fill-up)',
    settings: { retriever: 'dualg-no-macro', hybridK: 0 },
  },
  {
    name: 'DG-heuristic',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description: 'DualG graph with the untrained heuristic scorer instead of the GNN (the shipped retriever default)',
    settings: { retriever: 'dualg' },
  },
  { name: 'DG-ppr', family: DUALG_FAMILY, paper: 'dualg', description: 'personalized PageRank over the DualG graph', settings: { retriever: 'ppr' } },
  {
    name: 'DG-checked',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description:
      "DualG-MRAG retrieval (trained GNN) with the path snippets and images sent through KnowForge's synthesizer, guardrail and format checker (this harness's earlier generator, a variant, not the paper's unified prompt)",
    settings: { retriever: 'dualg-gnn', generator: 'checked' },
  },
  {
    name: 'DG-textgen',
    family: DUALG_FAMILY,
    paper: 'dualg',
    description:
      "DualG-MRAG retrieval (trained GNN) with the text-only generator: path lines without snippets, no images, 4 hybrid hits merged (this harness's earlier variant, not the paper's generator)",
    settings: { retriever: 'dualg-gnn', generator: 'text', hybridK: 4 },
  },
];

export function register(): void {
  registerFamily(dualgFamily as unknown as PipelineSpec);
  for (const c of CONFIGURATIONS) registerConfiguration(c);
}
