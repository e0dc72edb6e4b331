/**
 * DualG-MRAG's plug-in manifest (issue 16): its pipeline family and configuration rows, its
 * retrievers (dualg, the heuristic and ablations, ppr), its derived artifacts (the dual graph,
 * the GNN checkpoint, the dense linker's name vectors), the offline policies of its stages (OpenIE, pattern, micro vision) and the
 * series it adds to the comparison notebooks, its commands and its part of the printed trace.
 * Loaded by lib/pipeline/plugins.ts.
 */
import type { PipelineSpec } from '../pipeline/spec';
import * as path from 'node:path';
import type { Plugin } from '../pipeline/plugin';
import { repoRoot } from '../util/paths';
import { dualgGraphKind } from './artifacts';
import { CONFIGURATIONS } from './configurations';
import { gnnCheckpointKind } from './gnn/artifact';
import { DUALG_OFFLINE_HANDLERS } from './offline/handlers';
import { dualgFamily } from './pipeline';
import { nameVectorsKind } from './query/name-vectors-artifact';
import { DUALG_RETRIEVER_ENTRIES } from './retriever';
import { DUALG_TRACE } from './trace-section';
import type { CommandSpec } from '../pipeline/command';

/** A command module of lib/dualg/commands/ (its spec is exported as `command`). */
const command = (file: string) => ({ name: file.replace(/-/g, ' '), load: () => (require(`./commands/${file}`) as { command: CommandSpec }).command });

export const plugin: Plugin = {
  name: 'dualg',
  description: 'DualG-MRAG: dual graphs, query patterns, GNN scorer, paths; its retrievers and artifacts',
  order: 30,
  families: [dualgFamily as unknown as PipelineSpec],
  configurations: CONFIGURATIONS,
  retrievers: DUALG_RETRIEVER_ENTRIES,
  artifactKinds: [dualgGraphKind, gnnCheckpointKind, nameVectorsKind],
  offlineHandlers: DUALG_OFFLINE_HANDLERS,
  notebookSeries: [
    // Its graph retrievers beside the engine's modes (notebooks 40, 42, 43): the method, the
    // untrained heuristic, the PageRank baseline.
    { topic: 'retrieval', names: ['dualg-gnn', 'dualg', 'ppr'] },
    // Whole-pipeline rows beside the one-shot reader under each retriever (notebook 40).
    { topic: 'qa', set: 'beside-retrievers', names: ['DG', 'DG-nopaths'] },
    // The ablation rows (notebook 44), labelled by what each removes.
    {
      topic: 'qa',
      set: 'ablations',
      names: ['DG', 'DG-nopaths', 'DG-textgen', 'DG-nomicro', 'DG-nomacro', 'DG-heuristic', 'DG-ppr'],
      labels: {
        DG: 'full (trained GNN)',
        'DG-nopaths': 'w/o path injection (trained GNN)',
        'DG-textgen': 'text-only generator (a variant, not the paper)',
        'DG-nomicro': 'w/o micro graph (trained GNN)',
        'DG-nomacro': 'w/o macro graph (micro matches only)',
        'DG-heuristic': 'heuristic scorer instead of the GNN',
        'DG-ppr': 'PPR',
      },
    },
  ],
  // kf train gnn (and its pool), kf bench dualg, kf kfold.
  commands: [command('train-gnn'), command('train-gnn-pool'), command('bench-dualg'), command('kfold')],
  trace: DUALG_TRACE,
  demoExperiments: path.join(repoRoot(), 'experiments', 'dualg', 'demo'),
  promptsDir: path.join(repoRoot(), 'prompts', 'dualg'),
};
