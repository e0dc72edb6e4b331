/**
 * What exactly ranked a DualG search: the graph scorer, and for the GNN the
 * checkpoint (its id, training data, preset and size), plus any part an
 * ablation removed. A researcher reads results by system, so this identity
 * travels with every search (RankedEvidence.system), into run records,
 * `kf eval retrieval` summaries, notebook tables and figure labels: a scorer
 * is never swapped for another without the label saying so.
 */
export type ScorerName = 'gnn' | 'heuristic' | 'ppr';
export const SCORER_NAMES: readonly ScorerName[] = ['gnn', 'heuristic', 'ppr'];

/** The checkpoint a GNN scorer was opened from. */
export interface CheckpointIdentity {
  /** Short content id of the checkpoint's manifest (changes with every training run). */
  id: string;
  /** Where it was read: a folder, or `artifact gnn-checkpoint/<key>`. */
  from: string;
  /** 'cpu' | 'paper' | 'custom' (gnn/preset.ts). */
  preset: string;
  layers: number;
  hidden: number;
  queryEncoder: string;
  /** Number of trained parameters. */
  parameters: number;
  /** What it was trained on, as the trainer recorded it ('unrecorded' for checkpoints written before this was kept). */
  trainedOn: string;
  /** What a prior-conditioned model reads besides the graph ('heuristic + hybrid rank'; 'none' for the plain model). */
  prior?: string;
}

export interface ScorerIdentity {
  /** The graph scorer; 'none' when the macro graph is removed (nothing propagates, the micro scores rank alone). */
  scorer: ScorerName | 'none';
  checkpoint?: CheckpointIdentity;
  /** What an ablation removed ('macro graph', 'micro graph'). */
  removed: string[];
  /** One line for tables and figure legends. */
  label: string;
}

export function checkpointLabel(c: CheckpointIdentity): string {
  const k = c.parameters >= 1000 ? `${Math.round(c.parameters / 1000)}K` : String(c.parameters);
  const prior = c.prior && c.prior !== 'none' ? `, prior: ${c.prior}` : '';
  return `checkpoint ${c.id}, preset ${c.preset} ${c.layers}x${c.hidden}, ${k} parameters, query ${c.queryEncoder}${prior}, trained on ${c.trainedOn}`;
}

export function scorerIdentity(scorer: ScorerName | 'none', removed: string[], checkpoint?: CheckpointIdentity): ScorerIdentity {
  const what =
    scorer === 'gnn' && checkpoint
      ? `scorer gnn (${checkpointLabel(checkpoint)})`
      : scorer === 'heuristic'
        ? 'scorer heuristic (untrained)'
        : scorer === 'none'
          ? 'no graph scorer (micro matching only)'
          : `scorer ${scorer}`;
  const label = removed.length ? `${what}; without the ${removed.join(' and the ')}` : what;
  return { scorer, ...(checkpoint ? { checkpoint } : {}), removed, label };
}
