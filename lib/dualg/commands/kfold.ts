/**
 * `kf kfold`: DualG's heuristic constants chosen under k-fold cross-validation on a text
 * multi-hop corpus (lib/dualg/kfold.ts); prints one JSON object (the figures to quote are `kfold`).
 */
import type { CommandSpec } from '../../pipeline/command';
import { bool, int, isPositiveInt, str } from '../../pipeline/command';
import { assertBenchmarkName } from '../../bench/names';
import { dualgKfold, KFOLD_GRIDS } from '../kfold';
import { KfError } from '../../util/errors';

/** --base: a JSON object; a malformed one is a usage error naming the flag. */
function parseBase(text: string | undefined): { heuristic?: Record<string, unknown> } | undefined {
  if (text === undefined) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as { heuristic?: Record<string, unknown> };
  } catch {
    // fall through to the error below
  }
  throw new KfError('usage', `--base is not a JSON object: ${text}`, 'write it as \'{"heuristic":{"contains":1}}\'', { concerns: '--base' });
}

export const command: CommandSpec = {
  name: 'kfold',
  group: 'evaluate',
  summary: "DualG heuristic constants under k-fold cross-validation: each fold's choice scored on the held-out fold (R@k, allFound@k)",
  options: {
    bench: { type: 'string', description: 'text multi-hop benchmark', default: '2wiki', choices: ['2wiki', 'musique', 'hotpotqa'] },
    index: { type: 'string', description: 'built index folder (default: the newest .kf-cache/indexes/<bench>-*, from kf eval retrieval --offline)' },
    folds: { type: 'string', description: 'number of folds', default: '5', validate: isPositiveInt },
    seed: { type: 'string', description: 'seed of the question shuffle', default: '1' },
    objective: { type: 'string', description: 'selection figure, e.g. allFound@2 or R@5 (default: 2wiki allFound@2, musique R@5, hotpotqa R@2)' },
    grid: {
      type: 'string',
      description: 'around: one setting changed at a time; full: 256 combinations (more room to overfit)',
      default: 'around',
      choices: KFOLD_GRIDS,
    },
    all: { type: 'boolean', description: "print every configuration's means on stderr" },
    base: { type: 'string', description: 'JSON settings under every configuration, e.g. \'{"heuristic":{"contains":1}}\' (measure an opt-in rule)' },
  },
  examples: ['kf kfold --bench 2wiki', 'kf kfold --bench musique --objective R@5 --grid full --all'],
  async run(args, ctx) {
    const all = bool(args, 'all');
    // The environment's models build the graph when its settings call model stages (an endpoint's defaults).
    const models = ctx.models({}, { cacheMode: 'off' });
    const out = await dualgKfold({
      models,
      bench: assertBenchmarkName(str(args, 'bench') ?? '2wiki', '--bench'),
      index: str(args, 'index'),
      folds: int(args, 'folds') ?? 5,
      seed: str(args, 'seed') ?? '1',
      objective: str(args, 'objective'),
      grid: (str(args, 'grid') ?? 'around') as (typeof KFOLD_GRIDS)[number],
      base: parseBase(str(args, 'base')),
      onConfiguration: all ? (config, means) => console.error(JSON.stringify({ config, ...means })) : undefined,
    }).finally(() => models.close().catch(() => undefined));
    console.log(JSON.stringify(out));
  },
};
