/** `kf runs`: the runs in results/ with status, progress, backend and main metric. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bool, str, type CommandSpec } from '../command';
import { KfError } from '../../util/errors';
import { defaultResultsDir, listRuns } from '../../run/results';

export const command: CommandSpec = {
  name: 'runs',
  group: 'run',
  summary: 'List runs (status, questions recorded, errors, backend, main metric), also those of kf demo, suites and notebooks (<job>/runs/)',
  options: {
    results: { type: 'string', description: 'folder holding run folders (default results/)' },
    json: { type: 'boolean', description: 'print one JSON list' },
  },
  async run(args) {
    const given = str(args, 'results');
    const dir = given ? path.resolve(given) : defaultResultsDir();
    // The default folder may not exist yet (no run so far); a folder the user named must.
    if (given && !fs.existsSync(dir))
      throw new KfError('results_missing', `--results ${dir} does not exist`, 'pass the folder that holds run folders (default results/)', { concerns: dir });
    if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory())
      throw new KfError('results_not_dir', `--results ${dir} is a file, not a folder`, 'pass the folder that holds run folders (default results/)', {
        concerns: dir,
      });
    const runs = listRuns(dir);
    if (bool(args, 'json')) {
      console.log(JSON.stringify(runs));
      return;
    }
    if (!runs.length) {
      console.log(`no runs in ${dir} (kf run <experiment> makes one)`);
      return;
    }
    const rows = runs.map((r) => [
      r.runId,
      r.status,
      r.pipeline,
      r.benchmark,
      r.backend,
      `${r.recorded}${r.selected !== undefined ? `/${r.selected}` : ''}`,
      // Cut replies (the token limit) are errors too, never scored: said beside the count.
      `${r.errors}${r.cutReplies ? ` (${r.cutReplies} cut)` : ''}`,
      r.metric && r.value !== undefined ? `${r.metric} ${(100 * r.value).toFixed(1)}` : '-',
      (r.updatedAt ?? '').replace('T', ' ').slice(0, 16),
      // Runs of the main job, suites and notebooks live in <job>/runs/: said so, the id alone finds them.
      path.dirname(path.relative(dir, r.dir)) === '.' ? '' : `${path.dirname(path.relative(dir, r.dir))}/`,
    ]);
    const head = ['run', 'status', 'pipeline', 'benchmark', 'backend', 'recorded', 'errors', 'main', 'updated', 'in'];
    const widths = head.map((h, j) => Math.max(h.length, ...rows.map((r) => r[j].length)));
    const fmt = (cells: string[]) =>
      cells
        .map((c, j) => c.padEnd(widths[j]))
        .join('  ')
        .trimEnd();
    console.log(fmt(head));
    for (const r of rows) console.log(fmt(r));
    // A run whose process died (kill -9, power loss) still says "running" in its manifest: say so, and how to go on.
    for (const r of runs.filter((x) => x.dead)) {
      const gone = r.dead?.pid !== undefined ? `its process ${r.dead.pid} is gone` : 'no process holds its lock';
      console.log(`${r.runId}: dead (${gone}; ${r.recorded} recorded); resume with: ${r.dead?.resume ?? `kf run <experiment> --run-id ${r.runId}`}`);
    }
  },
};
