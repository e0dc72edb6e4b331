/**
 * The headline table printed at the end of `kf run` and `kf report`: one row per
 * run with its answer metrics and recall in % (the units of every written table),
 * so the command ends with the numbers, not only with file paths.
 */
import type { LoadedRun } from '../run/results';
import { summarizeRun } from '../run/results';
import { formatTextTable } from './text-table';

const ANSWER_KEYS: [string, string][] = [
  ['em', 'EM'],
  ['f1', 'F1'],
  ['acc', 'Acc'],
];
/** The recall columns shown when present (the written tables have all of them). */
const RECALL_KEYS = ['R@1', 'R@2', 'R@5', 'R@8', 'docFound'];

const pct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? '-' : (100 * x).toFixed(1));

/** Lines of the headline table (metrics x100, one decimal), then a line saying what the numbers are. */
export function headlineTable(runs: LoadedRun[]): string[] {
  const ss = runs.map(summarizeRun);
  const answer = ANSWER_KEYS.filter(([k]) => ss.some((s) => k in s.scores));
  const recall = RECALL_KEYS.filter((k) => ss.some((s) => k in s.retrieval));
  const mmlb = ss.some((s) => s.mmlongbench);
  const head = ['run', 'pipeline', 'n', 'answered', 'failed', ...answer.map(([, l]) => l), ...(mmlb ? ['F1 (MMLB)'] : []), ...recall, 'backend'];
  const rows = ss.map((s) => [
    s.runId,
    s.pipeline,
    String(s.n),
    String(s.answered),
    String(s.errors),
    ...answer.map(([k]) => pct(s.scores[k])),
    ...(mmlb ? [pct(s.mmlongbench?.f1)] : []),
    ...recall.map((k) => pct(s.retrieval[k])),
    s.backend,
  ]);
  const offline = ss.some((s) => s.backend === 'offline');
  return [...formatTextTable(head, rows), `(answer metrics and recall in %; failed questions score 0${offline ? '; offline backend: not model results' : ''})`];
}
