/**
 * Whether a command may start training (minutes of CPU) as a side effect of answering: method-neutral, so
 * `kf run` and `kf ask` set it from their `--train` flag without naming a method's internals; a method's
 * trainer reads it (DualG: lib/dualg/gnn/train-policy.ts). KF_GNN_TRAIN=0 refuses, 1 or unset allows.
 */
export const GNN_TRAIN_ENV = 'KF_GNN_TRAIN';

/** Set by a command: whether it may train implicitly (`--train`) -- a value the user exported wins unless --train is given. */
export function setImplicitTraining(flagGiven: boolean, env: NodeJS.ProcessEnv = process.env): void {
  if (flagGiven) env[GNN_TRAIN_ENV] = '1';
  else env[GNN_TRAIN_ENV] ??= '0';
}

/** Whether a command may train before answering (false only where it said so: KF_GNN_TRAIN=0). */
export function implicitTrainingAllowed(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[GNN_TRAIN_ENV] !== '0';
}
