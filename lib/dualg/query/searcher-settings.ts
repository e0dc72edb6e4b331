/**
 * Retriever settings (experiment `index.settings` / RetrieverSetup.settings) read into SearcherSettings: every
 * absent value the default, every present one checked (a boolean, or a known finite number), a bad one refused
 * naming it. One reader for the retriever, `kf kfold`, the speed bench and GNN training (train/query-adapter.ts),
 * so all of them rank under exactly the settings the shipped retriever runs.
 */
import { KfError } from '../../util/errors';
import { FUSION_DEFAULTS, FUSION_RULES, type FusionRule } from './fuse';
import { HEURISTIC_DEFAULTS } from './heuristic-scorer';
import { SEARCHER_DEFAULTS, type SearcherSettings } from './searcher';
import type { ScorerName } from './scorer-identity';

function bool(v: unknown, dflt: boolean, name: string): boolean {
  if (v === undefined) return dflt;
  if (typeof v === 'boolean') return v;
  throw new KfError('bad_setting', `dualg setting ${name} must be true or false, got ${JSON.stringify(v)}`, `set ${name} = true or false`, { concerns: name });
}

function numbers<T extends object>(raw: unknown, dflt: T, name: string): T {
  if (raw === undefined) return dflt;
  const out = { ...dflt } as Record<string, number>;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (!(k in dflt) || typeof v !== 'number' || !Number.isFinite(v))
      throw new KfError('bad_setting', `dualg setting ${name}.${k} is unknown or not a number`, `known: ${Object.keys(dflt).join(', ')}`, {
        concerns: `${name}.${k}`,
      });
    out[k] = v;
  }
  return out as T;
}

function fusionRule(v: unknown): FusionRule {
  if (v === undefined) return SEARCHER_DEFAULTS.fusionRule;
  if (FUSION_RULES.includes(v as FusionRule)) return v as FusionRule;
  throw new KfError(
    'bad_setting',
    `dualg setting fusionRule must be one of ${FUSION_RULES.join(', ')}, got ${JSON.stringify(v)}`,
    'set fusionRule = "max" or "sum"',
    {
      concerns: 'fusionRule',
    },
  );
}

export function searcherSettings(raw: Record<string, unknown>, scorer: ScorerName): SearcherSettings {
  return {
    ...SEARCHER_DEFAULTS,
    scorer,
    macro: bool(raw.macro, true, 'macro'),
    micro: bool(raw.micro, true, 'micro'),
    lexicon: bool(raw.lexicon, true, 'lexicon'),
    heuristic: numbers(raw.heuristic, HEURISTIC_DEFAULTS, 'heuristic'),
    fusion: numbers(raw.fusion, FUSION_DEFAULTS, 'fusion'),
    fusionRule: fusionRule(raw.fusionRule),
    hybrid: raw.hybrid === undefined ? SEARCHER_DEFAULTS.hybrid : Number(raw.hybrid),
    graphFirst: raw.graphFirst === undefined ? SEARCHER_DEFAULTS.graphFirst : Number(raw.graphFirst),
    minSeedIdf: raw.minSeedIdf === undefined ? SEARCHER_DEFAULTS.minSeedIdf : Number(raw.minSeedIdf),
    pseudoSeeds: raw.pseudoSeeds === undefined ? SEARCHER_DEFAULTS.pseudoSeeds : Number(raw.pseudoSeeds),
    partialLink: raw.partialLink === undefined ? SEARCHER_DEFAULTS.partialLink : Number(raw.partialLink),
    prf: raw.prf === undefined ? SEARCHER_DEFAULTS.prf : Number(raw.prf),
    pseudoOnNoLink: bool(raw.pseudoOnNoLink, SEARCHER_DEFAULTS.pseudoOnNoLink, 'pseudoOnNoLink'),
    microLabels: bool(raw.microLabels, SEARCHER_DEFAULTS.microLabels, 'microLabels'),
    microFigures: bool(raw.microFigures, SEARCHER_DEFAULTS.microFigures, 'microFigures'),
  };
}
