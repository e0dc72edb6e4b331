import * as path from 'node:path';
import type { CommandSpec } from '../command';
import { int, isPositiveInt, list, str } from '../command';
import { demoPresetOverrides } from '../../bench/benchmarks/demo';
import { ensureDemoWorld } from '../../demo';
import { runSuite } from '../../report/suite';
import { repoRoot } from '../../util/paths';
import { printSuiteResult } from './_suite-print';

/** The main job's suite (experiments/suites/demo-main.toml): both papers' methods and their paired comparisons. */
export const MAIN_SUITE = 'demo-main';

export const command: CommandSpec = {
  name: 'demo',
  group: 'setup',
  summary:
    'The main job: generate the demo world (first use), build its index, run KnowForge S0/S1/S3/S4v1/S4/M5/P0/P1 and DualG (heuristic scorer), compare, write tables and figures',
  options: {
    preset: { type: 'string', description: 'demo world size', choices: ['tiny', 'default'], default: 'default' },
    limit: { type: 'string', description: 'answer at most N questions per configuration', validate: isPositiveInt },
    out: { type: 'string', description: 'results folder (default results/demo-main, or results/demo-main-tiny)' },
    override: {
      type: 'string',
      short: 'o',
      multiple: true,
      description: 'config override for every experiment, key.path=value (e.g. models.defaults.model=...)',
    },
    json: { type: 'boolean', description: 'print the result as one JSON object' },
  },
  examples: ['kf demo', 'kf demo --preset tiny', 'OPENAI_BASE_URL=http://localhost:8000/v1 KF_MODEL=qwen3 kf demo --limit 30'],
  async run(args) {
    const preset = (str(args, 'preset') ?? 'default') as 'tiny' | 'default';
    const world = await ensureDemoWorld({ preset });
    if (!args.values.json)
      console.log(
        `demo world (${preset}): ${path.relative(process.cwd(), world.dir) || '.'}${world.generated ? ' (generated now)' : ' (reused)'}: ${world.manifest.counts ? JSON.stringify(world.manifest.counts) : ''}`,
      );
    const overrides = [...list(args, 'override')];
    // Always point the suite at the world just ensured: it may live outside data/demo ($KF_DEMO_DIR), and its index under $KF_STATE_DIR.
    overrides.push(...demoPresetOverrides(preset, world.dir).overrides);
    const ac = new AbortController();
    const onSig = () => {
      console.error('\nkf demo: stopping after the questions in flight (rerun the same command to resume)');
      ac.abort();
    };
    process.once('SIGINT', onSig);
    try {
      const r = await runSuite(path.join(repoRoot(), 'experiments', 'suites', `${MAIN_SUITE}.toml`), {
        out: str(args, 'out') ?? path.join(repoRoot(), 'results', preset === 'default' ? MAIN_SUITE : `${MAIN_SUITE}-${preset}`),
        limit: int(args, 'limit'),
        overrides,
        stopSignal: ac.signal,
      });
      printSuiteResult(r, args.values.json === true);
      return r.incomplete.length ? 1 : 0;
    } finally {
      process.off('SIGINT', onSig);
    }
  },
};
