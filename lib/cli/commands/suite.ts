import type { CommandSpec } from '../command';
import { int, isPositiveInt, list, str } from '../command';
import { runSuite } from '../../report/suite';
import { printSuiteResult } from './_suite-print';

export const command: CommandSpec = {
  name: 'suite',
  group: 'run',
  summary: 'Run a suite of experiments, then compare (sign test, bootstrap CI) and write tables and figures',
  positionals: [{ name: 'suite', description: 'suite file (.toml/.json), e.g. experiments/suites/demo-one-shot.toml', required: true }],
  options: {
    out: { type: 'string', description: 'results folder of the suite (default results/<suite name>)' },
    limit: { type: 'string', description: 'answer at most N questions per experiment', validate: isPositiveInt },
    concurrency: { type: 'string', description: 'questions at once per experiment', validate: isPositiveInt },
    override: { type: 'string', short: 'o', multiple: true, description: 'config override for every experiment, key.path=value' },
    json: { type: 'boolean', description: 'print the result as one JSON object' },
  },
  examples: ['kf suite experiments/suites/demo-one-shot.toml', 'kf suite experiments/suites/demo-one-shot.toml --limit 20 -o models.defaults.model=qwen3:8b'],
  async run(args) {
    const ac = new AbortController();
    const onSig = () => {
      console.error('\nkf suite: stopping after the questions in flight (rerun the same command to resume)');
      ac.abort();
    };
    process.once('SIGINT', onSig);
    try {
      const r = await runSuite(args.positionals[0], {
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
