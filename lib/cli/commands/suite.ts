import type { CommandSpec } from '../command';
import { int, isPositiveInt, list, str } from '../command';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runSuite } from '../../report/suite';
import { KfError } from '../../util/errors';
import { repoRoot } from '../../util/paths';
import { nearestPath } from '../path-hint';
import { printSuiteResult } from './_suite-print';

/** A suite file, or a suite's name in experiments/suites/ (demo-main); a missing one gets the nearest file. */
export function resolveSuiteFile(ref: string): string {
  const dir = path.join(repoRoot(), 'experiments', 'suites');
  for (const c of [ref, path.join(dir, ref), path.join(dir, `${ref}.toml`), path.join(dir, `${ref}.json`)])
    if (fs.existsSync(c) && fs.statSync(c).isFile()) return c;
  const near = nearestPath(ref) ?? nearestPath(path.join(dir, /\.(toml|json)$/.test(ref) ? ref : `${ref}.toml`));
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.(toml|json)$/.test(f)) : [];
  throw new KfError(
    'suite_missing',
    `no suite "${ref}" (neither a file nor a name in experiments/suites/)`,
    near ? `did you mean ${path.relative(process.cwd(), near) || near}?` : `suites: ${names.join(', ')} (kf experiments lists them)`,
    { concerns: ref },
  );
}

export const command: CommandSpec = {
  name: 'suite',
  group: 'run',
  summary: 'Run a suite of experiments, then compare (sign test, bootstrap CI) and write tables and figures',
  positionals: [{ name: 'suite', description: 'suite file (.toml/.json) or its name in experiments/suites/, e.g. demo-one-shot', required: true }],
  options: {
    out: { type: 'string', description: 'results folder of the suite (default results/<suite name>)' },
    limit: { type: 'string', description: 'answer at most N questions per experiment', validate: isPositiveInt },
    concurrency: { type: 'string', description: 'questions at once per experiment', validate: isPositiveInt },
    override: { type: 'string', short: 'o', multiple: true, description: 'config override for every experiment, key.path=value' },
    json: { type: 'boolean', description: 'print the result as one JSON object' },
  },
  examples: [
    'kf suite demo-one-shot',
    'kf suite experiments/suites/demo-one-shot.toml',
    'kf suite experiments/suites/demo-one-shot.toml --limit 20 -o models.defaults.model=qwen3:8b',
  ],
  async run(args) {
    const ac = new AbortController();
    const onSig = () => {
      console.error('\nkf suite: stopping after the questions in flight (rerun the same command to resume)');
      ac.abort();
    };
    process.once('SIGINT', onSig);
    try {
      const r = await runSuite(resolveSuiteFile(args.positionals[0]), {
        out: str(args, 'out'),
        limit: int(args, 'limit'),
        concurrency: int(args, 'concurrency'),
        overrides: list(args, 'override'),
        stopSignal: ac.signal,
      });
      printSuiteResult(r, args.values.json === true);
      return r.incomplete.length ? 1 : 0;
    } finally {
      process.off('SIGINT', onSig);
    }
  },
};
