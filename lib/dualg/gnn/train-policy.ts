/**
 * Who may start GNN training (minutes of CPU) as a side effect of answering.
 * `kf run` and `kf ask` never do on their own: they set KF_GNN_TRAIN=0 unless
 * given `--train` (KF_GNN_TRAIN=1); a DualG row with `gnnTrain = true` and no
 * checkpoint for its graph is then refused with the estimate and the commands
 * that train it on purpose. Unset (library callers, `kf demo` and `kf suite`,
 * whose job is to produce every row): training goes ahead, announced first.
 */
import { KfError } from '../../util/errors';
import { implicitTrainingAllowed } from '../../pipeline/implicit-training';

export { GNN_TRAIN_ENV, implicitTrainingAllowed, setImplicitTraining } from '../../pipeline/implicit-training';

/** The size of the graph about to be trained for. */
export interface TrainingGraphSize {
  numNodes: number;
  edges: number;
}

/** What training costs, in words: CPU only, the measured demo time, what grows it. */
export function trainingEstimate(g: TrainingGraphSize): string {
  return (
    `a GNN for this graph (${g.numNodes} nodes, ${g.edges} edges): CPU work, no model call unless the paper preset embeds queries; ` +
    `measured about 4 minutes on the default demo world on 2 cores, longer on larger graphs`
  );
}

/** Refuse training nobody asked for (KF_GNN_TRAIN=0), naming the estimate and the ways to go on. */
export function refuseUnaskedTraining(g: TrainingGraphSize, indexDir: string, env: NodeJS.ProcessEnv = process.env): void {
  if (implicitTrainingAllowed(env)) return;
  throw new KfError(
    'gnn_training_not_asked',
    `no trained GNN for this graph and gnnTrain = true would train one before the first answer: ${trainingEstimate(g)}; kf run and kf ask never start that on their own`,
    `train it now with the answers: rerun with --train; or train ahead: kf prepare gnn-checkpoint --set index=${indexDir} (or kf train gnn --index ${indexDir}); ` +
      `or run the DG-heuristic row instead (the untrained scorer, labelled heuristic)`,
    { concerns: indexDir },
  );
}
